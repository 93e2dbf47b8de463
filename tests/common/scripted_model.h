// Models whose greedy output is scripted, for tests that need a reply with a known shape (thinking,
// an end token) from a real tokenizer and chat template. Every block adds zero to the residual
// stream, so the logits depend on the last token alone; the embedding and the LM head then map
// each token of a chain to the next one.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace hearth::test {

// Writes `out` with the metadata and tensor table of the F32 GGUF `base`: after chain[i] greedy
// decoding gives chain[i + 1], after any other token `fallback`. The chain's ids must be distinct
// and fewer than the hidden size. False (after a failed check) when it cannot be written.
bool writeScriptedGguf(const std::filesystem::path& base, const std::filesystem::path& out,
                       const std::vector<int32_t>& chain, int32_t fallback);

struct ThinkingReply {
    std::string reasoning = "Let me think";
    std::string answer = "Four.";
};

// A one-layer Qwen3-shaped model with the real Qwen3 tokenizer and chat template
// (`qwen3TokenizerJson` with its tokenizer_config.json beside it) whose greedy reply to the
// template's generation prompt is "<think>" + reasoning + "</think>\n\n" + answer + "<|im_end|>",
// or, after the prompt of enable_thinking=false (which ends "</think>\n\n"), answer + "<|im_end|>".
// Returns the model's path; empty (after a failed check) on failure.
std::filesystem::path writeThinkingQwen3(const std::filesystem::path& dir,
                                         const std::filesystem::path& qwen3TokenizerJson,
                                         const ThinkingReply& reply = {});

// A one-layer Qwen3-shaped random model (Q8_0, Qwen3's 151,936-row vocabulary) carrying the
// tokenizer at `tokenizerJson`, written by synth to dir/name (its config.json beside it); empty
// (and a failed check) on error.
std::string writeTinyQwen3(const std::filesystem::path& dir, const std::filesystem::path& tokenizerJson,
                           const std::string& name, uint64_t seed);

} // namespace hearth::test
