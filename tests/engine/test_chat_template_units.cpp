// Unit tests of the Jinja interpreter behind ChatTemplate: each filter, test and operator the
// chat templates use, loop variables, macros, namespaces, whitespace control, tojson, undefined
// values, the bounds that stop endless templates, and malformed templates (clear errors with a
// line number, never a crash). Expected strings are what Python's Jinja (transformers' setup)
// prints; tests/data/templates/expected.json checks many of the same against transformers itself.
#include <ctime>
#include <string>

#include <nlohmann/json.hpp>

#include "chat/chat_template.h"
#include "check.h"

using hearth::StatusCode;
using hearth::chat::ChatTemplate;
using hearth::chat::RenderOptions;
using Json = nlohmann::ordered_json;

namespace {

const Json kMessages = Json::parse(R"([
  {"role": "system", "content": "Be brief."},
  {"role": "user", "content": "Hi"},
  {"role": "assistant", "content": "Hello!"},
  {"role": "user", "content": "Bye", "name": "bob"}
])");

RenderOptions defaultOptions() {
    RenderOptions options;
    options.bosToken = "<s>";
    options.eosToken = "</s>";
    std::tm now{};
    now.tm_year = 2025 - 1900;
    now.tm_mon = 2;
    now.tm_mday = 14;
    now.tm_hour = 9;
    now.tm_min = 26;
    now.tm_sec = 53;
    now.tm_wday = 5; // a Friday
    now.tm_yday = 72;
    options.clock = [now] { return now; };
    options.extraContext["data"] = Json::parse(R"({"b": [1, 2.5, null, true], "a": {"é": "ü\n\"x\""}, "e": []})");
    return options;
}

hearth::Result<std::string> render(const std::string& source, const RenderOptions& options = defaultOptions()) {
    auto tmpl = ChatTemplate::parse(source);
    if (!tmpl.isOk()) return tmpl.status();
    return tmpl->render(kMessages, options);
}

// Renders and compares; prints the template on failure.
#define EXPECT_RENDER(source, expected)                                                            \
    do {                                                                                           \
        const auto hearthRendered_ = render(source);                                               \
        CHECK_MSG(hearthRendered_.isOk(), (source) << " -> " << hearthRendered_.status().message()); \
        if (hearthRendered_.isOk()) {                                                              \
            CHECK_MSG(*hearthRendered_ == (expected),                                              \
                      (source) << "\n  got:  [" << *hearthRendered_ << "]\n  want: [" << (expected) << "]"); \
        }                                                                                          \
    } while (0)

#define EXPECT_ERROR(source, needle) CHECK_ERR(render(source), StatusCode::InvalidArgument, needle)

void testLiteralsAndPrinting() {
    EXPECT_RENDER("{{ 'a\\tb\\n' }}|{{ \"q\\\"\" }}|{{ '\\u00e9\\x41' }}", "a\tb\n|q\"|éA");
    EXPECT_RENDER("{{ 1 }} {{ -2 }} {{ 1.5 }} {{ 1.0 }} {{ 1e3 }} {{ 1_000 }}", "1 -2 1.5 1.0 1000.0 1000");
    EXPECT_RENDER("{{ none }}|{{ true }}|{{ False }}|{{ [1, 'a', none] }}|{{ {'k': 'v'} }}",
                  "None|True|False|[1, 'a', None]|{'k': 'v'}");
    EXPECT_RENDER("{{ 0.1 + 0.2 }}|{{ 1e16 }}|{{ 1e-5 }}|{{ 123456789.125 }}", "0.30000000000000004|1e+16|1e-05|123456789.125");
    EXPECT_RENDER("{{ \"it's\" }}{{ [\"it's\"] }}", "it's[\"it's\"]");
}

void testOperators() {
    EXPECT_RENDER("{{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ -7 % 3 }} {{ 7 / 2 }} {{ 2 ** 8 }}", "3 -4 1 2 3.5 256");
    EXPECT_RENDER("{{ 1 + 2 * 3 }} {{ (1 + 2) * 3 }} {{ -3 + 1 }} {{ 2 - -1 }}", "7 9 -2 3");
    EXPECT_RENDER("{{ 'a' ~ 1 ~ none }} {{ 'ab' + 'cd' }} {{ 'ab' * 2 }} {{ [1] + [2] }} {{ [0] * 3 }}",
                  "a1None abcd abab [1, 2] [0, 0, 0]");
    EXPECT_RENDER("{{ 1 == 1.0 }} {{ 'a' != 'b' }} {{ 1 < 2 <= 2 }} {{ 3 > 2 > 2 }} {{ 'abc' < 'abd' }}",
                  "True True True False True");
    EXPECT_RENDER("{{ 'b' in 'abc' }} {{ 2 in [1, 2] }} {{ 'k' in {'k': 1} }} {{ 3 not in [1] }} {{ 'x' not in 'xy' }}",
                  "True True True True False");
    EXPECT_RENDER("{{ true and 'x' }}|{{ 0 or 'y' }}|{{ none or false }}|{{ not 0 }}|{{ not [1] }}", "x|y|False|True|False");
    EXPECT_RENDER("{{ 'yes' if 1 else 'no' }}|{{ 'yes' if 0 else 'no' }}|{{ 'x' if false }}|", "yes|no||");
    EXPECT_RENDER("{{ messages | length - 1 }}", "3"); // filters bind tighter than arithmetic
    EXPECT_ERROR("{{ 'a' + 1 }}", "can only concatenate str");
    EXPECT_ERROR("{{ 1 / 0 }}", "division by zero");
    EXPECT_ERROR("{{ 1 < 'a' }}", "not supported between");
}

void testAccessAndSlicing() {
    EXPECT_RENDER("{{ messages[0].role }}|{{ messages[0]['content'] }}|{{ messages[-1].name }}|{{ messages[1:3] | length }}",
                  "system|Be brief.|bob|2");
    EXPECT_RENDER("{{ 'héllo'[::-1] }}|{{ 'héllo'[1:3] }}|{{ 'héllo'[-1] }}|{{ [1,2,3,4,5][::2] }}|{{ [1,2,3][-2:] }}",
                  "olléh|él|o|[1, 3, 5]|[2, 3]");
    EXPECT_RENDER("{{ [1,2,3][10:] }}|{{ 'abc'[5:] }}|{{ [1,2,3][::-1] }}|{{ messages[::-1][0].content }}", "[]||[3, 2, 1]|Bye");
    EXPECT_RENDER("{{ data.a['é'] | length }}|{{ data['b'][1] }}|{{ data.b.0 }}", "5|2.5|1");
    // Jinja's getattr order: d.items is the method even if the dict had such a key.
    EXPECT_RENDER("{% for k, v in {'items': 1}.items() %}{{ k }}={{ v }}{% endfor %}", "items=1");
}

void testStringMethods() {
    EXPECT_RENDER("{{ '  a b  '.strip() }}|{{ 'xxaxx'.strip('x') }}|{{ '\\n a'.lstrip() }}|{{ 'a \\n'.rstrip() }}|{{ 'a\\n\\n'.rstrip('\\n') }}",
                  "a b|a|a|a|a");
    EXPECT_RENDER("{{ 'a,b,,c'.split(',') }}|{{ ' a  b '.split() }}|{{ 'a b c'.split(' ', 1) }}|{{ 'a b c'.rsplit(' ', 1) }}",
                  "['a', 'b', '', 'c']|['a', 'b']|['a', 'b c']|['a b', 'c']");
    EXPECT_RENDER("{{ '<think>x</think>y'.split('</think>')[-1] }}|{{ 'abc'.startswith('ab') }}|{{ 'abc'.endswith(('x', 'bc')) }}",
                  "y|True|True");
    EXPECT_RENDER("{{ 'hello world'.title() }}|{{ 'hELLO'.capitalize() }}|{{ 'Ab'.upper() }}|{{ 'Ab'.lower() }}|{{ 'straße'.upper() }}",
                  "Hello World|Hello|AB|ab|STRASSE");
    EXPECT_RENDER("{{ 'aaa'.replace('a', 'b') }}|{{ 'aaa'.replace('a', 'b', 1) }}|{{ 'héllo'.find('l') }}|{{ 'abc'.find('z') }}",
                  "bbb|baa|2|-1");
    EXPECT_RENDER("{{ '{} and {x}'.format(1, x='y') }}|{{ '%s=%d' % ('k', 3) }}|{{ ', '.join(['a', 'b']) }}|{{ 'a\\nb'.splitlines() }}",
                  "1 and y|k=3|a, b|['a', 'b']");
    EXPECT_RENDER("{{ data.a.get('é') | length }}|{{ data.a.get('zz', 'd') }}|{{ data.a.keys() | list }}", "5|d|['é']");
}

void testFilters() {
    EXPECT_RENDER("{{ ' x ' | trim }}|{{ 'xyx' | trim('x') }}|{{ 'ab' | upper }}|{{ 'AB' | lower }}|{{ 'a b' | title }}|{{ 'aB' | capitalize }}",
                  "x|y|AB|ab|A B|Ab");
    EXPECT_RENDER("{{ 'a-b' | replace('-', '+') }}|{{ [1, 2] | join(', ') }}|{{ messages | map(attribute='role') | join(',') }}",
                  "a+b|1, 2|system,user,assistant,user");
    EXPECT_RENDER("{{ messages | length }}|{{ 'héllo' | length }}|{{ {'a': 1} | length }}|{{ messages | count }}", "4|5|1|4");
    EXPECT_RENDER("{{ [1, 2, 3] | first }}|{{ [1, 2, 3] | last }}|{{ 'abc' | list }}|{{ 42 | string }}", "1|3|['a', 'b', 'c']|42");
    EXPECT_RENDER("{{ '7' | int + 1 }}|{{ '7.9' | int }}|{{ 'x' | int }}|{{ 'x' | int(5) }}|{{ '2.5' | float }}|{{ 3 | float }}",
                  "8|7|0|5|2.5|3.0");
    EXPECT_RENDER("{{ missing | default('d') }}|{{ '' | default('d') }}|{{ '' | default('d', true) }}|{{ missing | d('x') }}",
                  "d||d|x");
    EXPECT_RENDER("{% for k, v in {'b': 1, 'a': 2} | items %}{{ k }}{{ v }}{% endfor %}|{% for k, v in {'b': 1, 'a': 2} | dictsort %}{{ k }}{% endfor %}",
                  "b1a2|ab");
    EXPECT_RENDER("{{ messages | selectattr('role', 'equalto', 'user') | list | length }}|"
                  "{{ messages | rejectattr('role', 'equalto', 'user') | map(attribute='content') | join('/') }}|"
                  "{{ messages | selectattr('name', 'defined') | map(attribute='name') | first }}|"
                  "{{ messages | selectattr('name', 'undefined') | list | length }}",
                  "2|Be brief./Hello!|bob|3");
    EXPECT_RENDER("{{ [3, 1, 2] | sort }}|{{ ['b', 'A'] | sort }}|{{ [1, 2, 1] | unique | list }}|{{ [1, 2] | sum }}|{{ [3, 1] | min }}{{ [3, 1] | max }}",
                  "[1, 2, 3]|['A', 'b']|[1, 2]|3|13");
    EXPECT_RENDER("{{ '<a & b>' | escape }}|{{ 'x' | safe }}|{{ -2 | abs }}|{{ 2.5 | round }}|{{ 2.567 | round(2) }}|{{ [1, 0, 2] | select | list }}",
                  "&lt;a &amp; b&gt;|x|2|2.0|2.57|[1, 2]");
    EXPECT_RENDER("{{ 'a\\nb' | indent(2) }}|{{ [1, 2] | map('string') | join }}|{{ [1, 2, 3] | reject('odd') | list }}|{{ [1, 2] | reverse | list }}",
                  "a\n  b|12|[2]|[2, 1]");
}

void testTojson() {
    EXPECT_RENDER("{{ data | tojson }}", R"({"b": [1, 2.5, null, true], "a": {"é": "ü\n\"x\""}, "e": []})");
    EXPECT_RENDER("{{ data.b | tojson(indent=2) }}", "[\n  1,\n  2.5,\n  null,\n  true\n]");
    EXPECT_RENDER("{{ {'x': {'y': [1]}, 'e': {}} | tojson(indent=1) }}", "{\n \"x\": {\n  \"y\": [\n   1\n  ]\n },\n \"e\": {}\n}");
    EXPECT_RENDER("{{ data.a | tojson(ensure_ascii=True) }}", R"({"\u00e9": "\u00fc\n\"x\""})");
    EXPECT_RENDER("{{ {'b': 1, 'a': 2} | tojson(sort_keys=True) }}|{{ [1, 2] | tojson(separators=(',', ':')) }}",
                  R"({"a": 2, "b": 1}|[1,2])");
    EXPECT_RENDER("{{ '\\u0001 \\\\ / 👋' | tojson }}|{{ 1.0 | tojson }}|{{ 1e20 | tojson }}", R"("\u0001 \\ / 👋"|1.0|1e+20)");
    EXPECT_ERROR("{{ missing | tojson }}", "'missing' is undefined");
}

void testTests() {
    EXPECT_RENDER("{{ x is defined }}{{ messages is defined }}{{ x is undefined }}{{ none is none }}{{ 'a' is string }}{{ 1 is string }}",
                  "FalseTrueTrueTrueTrueFalse");
    EXPECT_RENDER("{{ {} is mapping }}{{ [] is mapping }}{{ 'a' is iterable }}{{ 1 is iterable }}{{ [] is sequence }}",
                  "TrueFalseTrueFalseTrue");
    EXPECT_RENDER("{{ 1 is number }}{{ 1.5 is number }}{{ 1 is integer }}{{ 1.0 is float }}{{ true is boolean }}{{ 1 is boolean }}",
                  "TrueTrueTrueTrueTrueFalse");
    EXPECT_RENDER("{{ true is true }}{{ 1 is true }}{{ false is false }}{{ 4 is divisibleby 2 }}{{ 3 is odd }}{{ 3 is even }}",
                  "TrueFalseTrueTrueTrueFalse");
    EXPECT_RENDER("{{ 2 is in [1, 2] }}{{ 'ab' is lower }}{{ 'AB' is upper }}{{ 2 is eq 2 }}{{ 1 is not none }}{{ none is sameas none }}",
                  "TrueTrueTrueTrueTrueTrue");
}

void testLoops() {
    EXPECT_RENDER("{% for m in messages %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}"
                  "{{ loop.first | int }}{{ loop.last | int }}{{ loop.length }} {% endfor %}",
                  "1043104 2132004 3221004 4310014 ");
    EXPECT_RENDER("{% for x in [1, 2, 3] %}{{ loop.previtem | default('-') }}{{ loop.nextitem | default('-') }}{{ loop.cycle('a', 'b') }} {% endfor %}",
                  "-2a 13b 2-a ");
    EXPECT_RENDER("{% for x in [1, 2, 3, 4] if x is even %}{{ x }}/{{ loop.length }} {% endfor %}", "2/2 4/2 ");
    EXPECT_RENDER("{% for x in [] %}x{% else %}empty{% endfor %}|{% for x in missing %}x{% else %}none{% endfor %}", "empty|none");
    EXPECT_RENDER("{% for x in range(10) %}{% if x == 1 %}{% continue %}{% endif %}{% if x == 4 %}{% break %}{% endif %}{{ x }}{% endfor %}",
                  "023");
    EXPECT_RENDER("{% for a, b in [[1, 2], [3, 4]] %}{{ a + b }}{% endfor %}|{% for c in 'hé' %}[{{ c }}]{% endfor %}", "37|[h][é]");
    EXPECT_RENDER("{{ range(3) | list }}|{{ range(1, 7, 2) | list }}|{{ range(3, 0, -1) | list }}", "[0, 1, 2]|[1, 3, 5]|[3, 2, 1]");
}

void testScopingAndNamespaces() {
    // `set` in a loop body is local to the iteration; `if` shares the enclosing scope.
    EXPECT_RENDER("{% set x = 1 %}{% for i in [5, 6] %}{{ x }}{% set x = i %}{{ x }}{% endfor %}{{ x }}", "15161");
    EXPECT_RENDER("{% if true %}{% set y = 2 %}{% endif %}{{ y }}", "2");
    EXPECT_RENDER("{% set ns = namespace(n=0, found=false, items=[]) %}{% for m in messages %}{% if m.role == 'user' %}"
                  "{% set ns.n = ns.n + 1 %}{% set ns.found = true %}{% set ns.items = ns.items + [loop.index0] %}{% endif %}{% endfor %}"
                  "{{ ns.n }} {{ ns.found }} {{ ns.items }}",
                  "2 True [1, 3]");
    EXPECT_RENDER("{% set a, b = 1, 2 %}{{ b }}{{ a }}|{% set t %}[{{ 1 + 1 }}]{% endset %}{{ t }}|{% set u | upper %}x{% endset %}{{ u }}",
                  "21|[2]|X");
    EXPECT_ERROR("{% set s = 'x' %}{% set s.a = 1 %}", "not a namespace");
}

void testMacros() {
    EXPECT_RENDER("{% macro m(a, b='B', c='C') %}{{ a }}{{ b }}{{ c }}{% endmacro %}{{ m(1) }}|{{ m(1, 2) }}|{{ m(1, c=3) }}",
                  "1BC|12C|1B3");
    EXPECT_RENDER("{% macro r(n) %}{% if n > 0 %}{{ n }}{{ r(n - 1) }}{% endif %}{% endmacro %}{{ r(4) }}", "4321");
    EXPECT_RENDER("{% macro v() %}{{ varargs | length }}{{ kwargs.k }}{% endmacro %}{{ v(1, 2, k='x') }}", "2x");
    EXPECT_RENDER("{% macro w() %}<{{ caller() }}>{% endmacro %}{% call w() %}inner{% endcall %}", "<inner>");
    EXPECT_RENDER("{% filter upper %}shout {{ 'it' }}{% endfilter %}", "SHOUT IT");
}

void testWhitespace() {
    // trim_blocks + lstrip_blocks, as transformers configures Jinja.
    EXPECT_RENDER("a\n  {% if true %}\n  b\n  {% endif %}\nc", "a\n  b\nc");
    EXPECT_RENDER("a  {%- if true -%}  b  {%- endif -%}  c", "abc");
    EXPECT_RENDER("x {{- ' y ' -}} z", "x y z");
    EXPECT_RENDER("a\n  {%+ if true %}b{% endif +%}\nc", "a\n  b\nc");
    EXPECT_RENDER("a\n    {# comment #}\nb", "a\nb");
    EXPECT_RENDER("{% raw %}{{ x }}{% endraw %}", "{{ x }}");
    EXPECT_RENDER("line\n", "line");            // keep_trailing_newline=False
    EXPECT_RENDER("a\r\nb\r\n\r\n", "a\nb\n"); // newlines normalised
    EXPECT_RENDER("{% for i in [1, 2] %}\n{{ i }}\n{% endfor %}\n", "1\n2\n");
}

void testUndefined() {
    EXPECT_RENDER("[{{ nothing }}][{{ nothing | length }}][{{ messages[0].nope }}][{{ messages[9] }}][{{ nothing ~ 'z' }}]",
                  "[][0][][][z]");
    EXPECT_RENDER("{% if nothing %}a{% elif not nothing %}b{% endif %}{{ nothing == none }}{{ nothing is defined }}", "bFalseFalse");
    EXPECT_ERROR("{{ nothing.attr }}", "'nothing' is undefined");
    EXPECT_ERROR("{{ messages[0].nope.deeper }}", "'dict object' has no attribute 'nope'");
    EXPECT_ERROR("{{ nothing + 1 }}", "'nothing' is undefined");
    EXPECT_ERROR("{{ nothing() }}", "'nothing' is undefined");
    EXPECT_ERROR("\n\n{{ messages[0].nope.deeper }}", "line 3");
    EXPECT_ERROR("{{ messages.append(1) }}", "unsafe");
}

void testGlobals() {
    EXPECT_RENDER("{{ strftime_now('%Y-%m-%d %H:%M:%S %A %b') }}|{{ strftime_now('%d %B %Y') }}",
                  "2025-03-14 09:26:53 Friday Mar|14 March 2025");
    EXPECT_RENDER("{{ bos_token }}{{ eos_token }}{{ add_generation_prompt }}{{ tools }}{{ dict(a=1) }}", "<s></s>FalseNone{'a': 1}");
    CHECK_ERR(render("{{ raise_exception('Roles must alternate') }}"), StatusCode::InvalidArgument, "Roles must alternate");
    RenderOptions noSpecials = defaultOptions();
    noSpecials.bosToken.reset();
    CHECK_ERR(render("{{ bos_token + 'x' }}", noSpecials), StatusCode::InvalidArgument, "'bos_token' is undefined");
}

void testBounds() {
    EXPECT_ERROR("{% for x in range(10**9) %}{{ x }}{% endfor %}", "Range too big");
    EXPECT_ERROR("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "maximum recursion depth exceeded");
    // Nested loops within the range limit but far beyond the operation budget.
    EXPECT_ERROR("{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}", "operations");
    // A macro that branches twice per level: exponential work at a modest depth (a smaller budget
    // keeps the test quick; the default one is exercised just above).
    RenderOptions budget = defaultOptions();
    budget.limits.maxOperations = 200'000;
    CHECK_ERR(render("{% macro t(n) %}{% if n > 0 %}{{ t(n - 1) }}{{ t(n - 1) }}{% endif %}{% endmacro %}{{ t(40) }}", budget),
              StatusCode::InvalidArgument, "operations");
    EXPECT_ERROR("{{ 'x' * 100000000000 }}", "exceeds the limit");
    EXPECT_ERROR("{% set ns = namespace(s='xx') %}{% for i in range(100) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}", "exceeds the limit");
    RenderOptions small = defaultOptions();
    small.limits.maxOutputBytes = 100;
    CHECK_ERR(render("{% for i in range(1000) %}abc{% endfor %}", small), StatusCode::InvalidArgument, "exceeds the limit");
    // Data a template builds counts by its size (found by fuzz_chat_template, see docs/FUZZING.md):
    // a list doubled 40 times exhausted memory; a list wrapped in a new list each time, or a 10 MB
    // string copied again and again, hung in quadratic copying while costing one operation each.
    EXPECT_ERROR("{% set ns = namespace(x=[1]) %}{% for i in range(40) %}{% set ns.x = ns.x + ns.x %}{% endfor %}"
                 "{{ ns.x | length }}", "line 1: template stopped: it exceeded the limit of 2000000 operations (the data");
    EXPECT_ERROR("{% set ns = namespace(x=[]) %}{% for i in range(100000) %}{% set ns.x = [ns.x] %}{% endfor %}",
                 "(the data it builds counts by its size)");
    EXPECT_ERROR("{% set big = 'x' * 10000000 %}{% for i in range(100000) %}{% set copy = big ~ i %}{% endfor %}",
                 "(the data it builds counts by its size)");
    // Modest data building stays well inside the budget: 1000 appends to one list, rebuilt each time.
    EXPECT_RENDER("{% set ns = namespace(x=[]) %}{% for i in range(1000) %}{% set ns.x = ns.x + [i] %}{% endfor %}"
                  "{{ ns.x | length }}", "1000");
    // Data nested absurdly deep (copying and printing it recurse) is refused up front. (Parsed,
    // not copied: nlohmann::json's copy recurses too.)
    const auto deepData = [] { return Json::parse(std::string(100000, '[') + std::string(100000, ']')); };
    auto tmpl = ChatTemplate::parse("{{ messages }}");
    CHECK_OK(tmpl);
    if (tmpl.isOk()) {
        CHECK_OK(tmpl->render(kMessages, defaultOptions()));
        CHECK_ERR(tmpl->render(deepData(), defaultOptions()), StatusCode::InvalidArgument,
                  "chat template: messages nest deeper than 256 levels");
        RenderOptions deepTools = defaultOptions();
        deepTools.tools = deepData();
        CHECK_ERR(tmpl->render(kMessages, deepTools), StatusCode::InvalidArgument, "tools nest deeper than 256 levels");
    }
}

void testMalformed() {
    struct Case {
        const char* source;
        const char* needle;
    };
    const Case cases[] = {
        {"{% if x %}never closed", "line 1"},
        {"a\nb\n{% for x in y %}\n{{ x }}", "not closed"},
        {"{{ x ", "unclosed '{{'"},
        {"{% if x %}", "'endif'"},
        {"line1\n{{ x | nosuchfilter }}", "line 2: no filter named 'nosuchfilter'"},
        {"{{ x is nosuchtest }}", "no test named 'nosuchtest'"},
        {"{% endfor %}", "unexpected 'endfor'"},
        {"{% for x in y %}{% endif %}", "unexpected 'endif'"},
        {"{% frobnicate %}", "unknown tag 'frobnicate'"},
        {"{% include 'x.html' %}", "not supported"},
        {"{{ 'unterminated }}", "unterminated string"},
        {"{{ (1 + 2 }}", "'(' is not closed"},
        {"{{ 1 + }}", "expected an expression"},
        {"{# never closed", "unclosed comment"},
        {"{{ a.}}", "expected an attribute name"},
        {"{% set %}", "expected a variable name"},
        {"{{ ] }}", "unexpected ']'"},
        {"{% macro m(a %}{% endmacro %}", "'(' is not closed"},
        {"{{ x @ y }}", "unexpected character '@'"},
    };
    for (const auto& c : cases) {
        auto tmpl = ChatTemplate::parse(c.source);
        CHECK_ERR(tmpl, StatusCode::InvalidArgument, c.needle);
    }
    // Absurd nesting is refused, not a stack overflow.
    CHECK_ERR(ChatTemplate::parse("{{ " + std::string(100000, '(') + "1" + std::string(100000, ')') + " }}"),
              StatusCode::InvalidArgument, "nested too deeply");
    std::string deepIfs;
    for (int i = 0; i < 5000; ++i) deepIfs += "{% if true %}";
    CHECK_ERR(ChatTemplate::parse(deepIfs), StatusCode::InvalidArgument, "nested too deeply");
    CHECK_ERR(ChatTemplate::parse("{{ " + std::string(100000, '-') + "1 }}"), StatusCode::InvalidArgument, "nested too deeply");
    CHECK_ERR(ChatTemplate::parse("{{ " + std::string(100000, '[') + " }}"), StatusCode::InvalidArgument, "is not closed");
    std::string ternaries = "{{ 1";
    for (int i = 0; i < 20000; ++i) ternaries += " if x else 1";
    CHECK_ERR(ChatTemplate::parse(ternaries + " }}"), StatusCode::InvalidArgument, "nested too deeply");
    // Every prefix of a real template either parses or fails cleanly (no crash, no hang).
    const std::string real = "{%- for message in messages %}{{- '<|im_start|>' + message.role + '\\n' }}"
                             "{%- if message.content is string %}{{ message.content | trim }}{% endif %}{%- endfor %}";
    for (size_t n = 0; n <= real.size(); ++n) {
        auto tmpl = ChatTemplate::parse(real.substr(0, n));
        if (tmpl.isOk()) (void)tmpl->render(kMessages, defaultOptions());
    }
}

void testApiDetails() {
    // Key order of the caller's JSON is kept (ordered_json), as Python keeps dict order.
    auto tmpl = ChatTemplate::parse("{{ tools | tojson }}");
    CHECK_OK(tmpl);
    RenderOptions options = defaultOptions();
    options.tools = Json::parse(R"([{"z": 1, "a": {"y": 2, "b": 3}}])");
    auto out = tmpl->render(kMessages, options);
    CHECK_OK(out);
    if (out.isOk()) CHECK_EQ(*out, std::string(R"([{"z": 1, "a": {"y": 2, "b": 3}}])"));
    // A template is reusable and renders the same text twice.
    auto again = tmpl->render(kMessages, options);
    CHECK(again.isOk() && out.isOk() && *again == *out);

    auto fromList = hearth::chat::chatTemplateFromTokenizerConfig(
        Json::parse(R"({"chat_template": [{"name": "tool_use", "template": "T"}, {"name": "default", "template": "D"}]})"));
    CHECK(fromList.isOk() && *fromList == "D");
    CHECK_ERR(hearth::chat::chatTemplateFromTokenizerConfig(Json::object()), StatusCode::NotFound, "no chat_template");

    // Invalid UTF-8 in user text must not break rendering or tojson.
    const Json bad = Json::array({Json{{"role", "user"}, {"content", std::string("a\xff\xfe b")}}});
    auto t2 = ChatTemplate::parse("{{ messages[0].content | length }}|{{ messages[0].content[1:] | tojson }}");
    CHECK_OK(t2);
    if (t2.isOk()) {
        auto r = t2->render(bad, defaultOptions());
        CHECK_OK(r);
    }
}

} // namespace

int main() {
    hearth::test::announce("chat_template_units", "cpu");
    testLiteralsAndPrinting();
    testOperators();
    testAccessAndSlicing();
    testStringMethods();
    testFilters();
    testTojson();
    testTests();
    testLoops();
    testScopingAndNamespaces();
    testMacros();
    testWhitespace();
    testUndefined();
    testGlobals();
    testBounds();
    testMalformed();
    testApiDetails();
    return hearth::test::finish();
}
