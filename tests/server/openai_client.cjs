// The official OpenAI client library for JavaScript (npm package `openai`) against a running
// `hearth-cli serve`: models, chat whole and streamed with usage, stop strings, text completions,
// the library's own error classes for a bad request, a wrong key and an unknown model, and a
// streamed reply aborted halfway (the server started with a decode delay, so the abort lands
// mid-stream and the next request must not wait for the abandoned one).
// Environment: HEARTH_URL, HEARTH_API_KEY, HEARTH_MODEL, OPENAI_PACKAGE (the installed package's
// folder). Exit 0: every check held.
'use strict';
const assert = require('node:assert/strict');
const OpenAI = require(process.env.OPENAI_PACKAGE);

const baseURL = process.env.HEARTH_URL + '/v1';
const model = process.env.HEARTH_MODEL;
const client = new OpenAI({ baseURL, apiKey: process.env.HEARTH_API_KEY, maxRetries: 0, timeout: 60000 });
const messages = [{ role: 'user', content: 'Once upon a time' }];

async function expectError(promise, ErrorClass, status) {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof ErrorClass, `expected ${ErrorClass.name}, got ${e && e.constructor.name}: ${e}`);
    assert.equal(e.status, status);
    return e;
  }
  assert.fail(`expected ${ErrorClass.name}`);
}

async function main() {
  const models = await client.models.list();
  assert.deepEqual(models.data.map((m) => m.id), [model]);

  const whole = await client.chat.completions.create({ model, messages, max_tokens: 8, temperature: 0 });
  const content = whole.choices[0].message.content;
  assert.equal(whole.object, 'chat.completion');
  assert.equal(whole.choices[0].finish_reason, 'length');
  assert.ok(content.length > 0);
  assert.equal(whole.usage.completion_tokens, 8);
  assert.equal(whole.usage.total_tokens, whole.usage.prompt_tokens + 8);

  const stream = await client.chat.completions.create({
    model, messages, max_tokens: 8, temperature: 0, stream: true, stream_options: { include_usage: true },
  });
  let streamed = '';
  let finish = null;
  let usage = null;
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage;
    if (chunk.choices.length === 0) continue;
    streamed += chunk.choices[0].delta.content || '';
    finish = chunk.choices[0].finish_reason || finish;
  }
  assert.equal(streamed, content);
  assert.equal(finish, 'length');
  assert.equal(usage.completion_tokens, 8);

  const stop = content.slice(Math.floor(content.length / 2), Math.floor(content.length / 2) + 3);
  const stopped = await client.chat.completions.create({ model, messages, max_tokens: 8, temperature: 0, stop: [stop] });
  assert.equal(stopped.choices[0].finish_reason, 'stop');
  assert.equal(stopped.choices[0].message.content, content.slice(0, content.indexOf(stop)));

  const completion = await client.completions.create({ model, prompt: 'Once upon a time', max_tokens: 4, temperature: 0 });
  assert.equal(completion.object, 'text_completion');
  assert.equal(typeof completion.choices[0].text, 'string');
  assert.ok(completion.usage.completion_tokens >= 1 && completion.usage.completion_tokens <= 4);

  const bad = await expectError(client.chat.completions.create({ model, messages: [] }), OpenAI.BadRequestError, 400);
  assert.equal(bad.param, 'messages');
  const stranger = new OpenAI({ baseURL, apiKey: 'not-the-key-at-all', maxRetries: 0 });
  await expectError(stranger.models.list(), OpenAI.AuthenticationError, 401);
  await expectError(client.chat.completions.create({ model: 'gpt-4o', messages }), OpenAI.NotFoundError, 404);

  // Abort a long streamed reply after a few chunks; the next request is answered at once.
  const long = await client.chat.completions.create({ model, messages, max_tokens: 400, stream: true });
  let chunks = 0;
  try {
    for await (const chunk of long) {
      if (++chunks === 3) long.controller.abort();
    }
  } catch (e) {
    assert.ok(e instanceof OpenAI.APIUserAbortError, `aborting gave ${e}`);
  }
  assert.equal(chunks >= 3, true);
  const started = Date.now();
  await client.chat.completions.create({ model, messages, max_tokens: 2 });
  assert.ok(Date.now() - started < 5000, `the next request took ${Date.now() - started} ms`);
  console.log('openai_client.cjs: all checks passed');
}

main().catch((e) => {
  console.error('openai_client.cjs:', e);
  process.exit(1);
});
