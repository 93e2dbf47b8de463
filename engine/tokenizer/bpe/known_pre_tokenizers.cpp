// The tokenizer.ggml.pre names Hearth maps to their HF pre-tokenizers. A GGUF records only the
// name; the regex and the normalizer come from the HF tokenizer.json of that model family.
#include "tokenizer/bpe/bpe_loader.h"

#include <array>

namespace hearth::bpe {

namespace {

// Qwen2/2.5/3: GPT-4-style split with single digits; NFC normalizer.
constexpr std::string_view kQwen2Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
// Llama 3: the same with digits in groups of up to three; no normalizer; ignore_merges.
constexpr std::string_view kLlama3Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// Qwen3.5: the Qwen2 split, except that letter runs also take combining marks (\p{M}) and the
// punctuation run excludes them (tokenizer.json of Qwen/Qwen3.5-*; llama.cpp's "qwen35").
constexpr std::string_view kQwen35Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

constexpr std::array<KnownPreTokenizer, 5> kKnown{{
    {"qwen2", kQwen2Pattern, true, false},
    {"qwen35", kQwen35Pattern, true, false},
    {"llama-bpe", kLlama3Pattern, false, true},
    {"llama3", kLlama3Pattern, false, true}, // an alias some converters wrote
    {"gpt-2", kGpt2Pattern, false, false},
}};

} // namespace

const KnownPreTokenizer* findKnownPreTokenizer(std::string_view name) {
    for (const auto& known : kKnown)
        if (known.name == name) return &known;
    return nullptr;
}

std::string knownPreTokenizerName(std::string_view pattern) {
    for (const auto& known : kKnown)
        if (known.pattern == pattern) return std::string(known.name);
    return {};
}

std::string knownPreTokenizerNames() {
    std::string names;
    for (const auto& known : kKnown) names += (names.empty() ? "" : ", ") + std::string(known.name);
    return names;
}

} // namespace hearth::bpe
