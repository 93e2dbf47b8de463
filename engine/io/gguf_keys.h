// GGUF metadata key names (llama.cpp's), spelled once for every reader and writer: the general.*
// and tokenizer.* keys, and the per-architecture hyperparameters ("<arch>.block_count").
#pragma once

#include <string>
#include <string_view>

namespace hearth::gguf_key {

inline constexpr const char* kArchitecture = "general.architecture";
inline constexpr const char* kName = "general.name";
inline constexpr const char* kLicense = "general.license";
inline constexpr const char* kAlignment = "general.alignment";
inline constexpr const char* kFileType = "general.file_type";
// llama.cpp's gguf-split: the part's number (0-based), the number of parts, all parts' tensors.
inline constexpr const char* kSplitNo = "split.no";
inline constexpr const char* kSplitCount = "split.count";
inline constexpr const char* kSplitTensorsCount = "split.tensors.count";
inline constexpr const char* kQuantizationVersion = "general.quantization_version";

inline constexpr const char* kChatTemplate = "tokenizer.chat_template";
inline constexpr const char* kTokenizerModel = "tokenizer.ggml.model";
inline constexpr const char* kTokenizerPre = "tokenizer.ggml.pre";
inline constexpr const char* kTokens = "tokenizer.ggml.tokens";
inline constexpr const char* kTokenTypes = "tokenizer.ggml.token_type";
inline constexpr const char* kScores = "tokenizer.ggml.scores";
inline constexpr const char* kMerges = "tokenizer.ggml.merges";
inline constexpr const char* kBosId = "tokenizer.ggml.bos_token_id";
inline constexpr const char* kEosId = "tokenizer.ggml.eos_token_id";
inline constexpr const char* kEotId = "tokenizer.ggml.eot_token_id";
inline constexpr const char* kEomId = "tokenizer.ggml.eom_token_id";
inline constexpr const char* kUnknownId = "tokenizer.ggml.unknown_token_id";
inline constexpr const char* kPaddingId = "tokenizer.ggml.padding_token_id";
inline constexpr const char* kAddBos = "tokenizer.ggml.add_bos_token";
inline constexpr const char* kAddEos = "tokenizer.ggml.add_eos_token";
inline constexpr const char* kAddSpacePrefix = "tokenizer.ggml.add_space_prefix";

// "<arch>.<suffix>", e.g. archKey("qwen3", kBlockCount) = "qwen3.block_count".
inline std::string archKey(std::string_view arch, std::string_view suffix) {
    return std::string(arch) + "." + std::string(suffix);
}
inline constexpr const char* kVocabSize = "vocab_size";
inline constexpr const char* kContextLength = "context_length";
inline constexpr const char* kEmbeddingLength = "embedding_length";
inline constexpr const char* kBlockCount = "block_count";
inline constexpr const char* kFeedForwardLength = "feed_forward_length";
inline constexpr const char* kHeadCount = "attention.head_count";
inline constexpr const char* kHeadCountKv = "attention.head_count_kv";
inline constexpr const char* kKeyLength = "attention.key_length";
inline constexpr const char* kValueLength = "attention.value_length";
inline constexpr const char* kRmsEpsilon = "attention.layer_norm_rms_epsilon";
inline constexpr const char* kRopeFreqBase = "rope.freq_base";
inline constexpr const char* kRopeDimensionCount = "rope.dimension_count";
inline constexpr const char* kRopeScaling = "rope.scaling."; // + type, factor, ...
inline constexpr const char* kRopeDimensionSections = "rope.dimension_sections";
// Hybrid recurrent models (qwen35): the Gated DeltaNet sizes and which layers are recurrent.
inline constexpr const char* kSsmConvKernel = "ssm.conv_kernel";
inline constexpr const char* kSsmStateSize = "ssm.state_size";
inline constexpr const char* kSsmGroupCount = "ssm.group_count";
inline constexpr const char* kSsmTimeStepRank = "ssm.time_step_rank";
inline constexpr const char* kSsmInnerSize = "ssm.inner_size";
inline constexpr const char* kFullAttentionInterval = "full_attention_interval";
inline constexpr const char* kRecurrentLayers = "attention.recurrent_layers";
inline constexpr const char* kNextnPredictLayers = "nextn_predict_layers"; // MTP blocks after the layers

} // namespace hearth::gguf_key
