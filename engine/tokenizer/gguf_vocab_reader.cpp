#include "tokenizer/gguf_vocab_reader.h"

#include <variant>

namespace hearth {

Status GgufVocabReader::keyError(const std::string& key, const std::string& what) const {
    return dataLoss(m_file.path() + ": key " + key + ": " + what);
}

Result<const std::vector<io::GgufValue>*> GgufVocabReader::array(const std::string& key, bool required,
                                                                 std::optional<size_t> entries) const {
    const io::GgufValue* value = m_file.find(key);
    if (!value) {
        if (required) return dataLoss(m_file.path() + ": key " + key + " is missing");
        return static_cast<const std::vector<io::GgufValue>*>(nullptr);
    }
    const auto* items = value->asArray();
    if (!items) return keyError(key, std::string("expected an array, got ") + io::ggufValueTypeName(value->type));
    if (entries && items->size() != *entries)
        return keyError(key, "has " + std::to_string(items->size()) + " entries, but tokenizer.ggml.tokens has " +
                                 std::to_string(*entries));
    return items;
}

Result<int32_t> GgufVocabReader::tokenId(const std::string& key, int64_t fallback, size_t vocab) const {
    const io::GgufValue* value = m_file.find(key);
    if (!value) return int32_t(fallback >= 0 && uint64_t(fallback) < vocab ? fallback : -1);
    const auto id = value->asInt();
    if (!id) {
        if (const auto* huge = std::get_if<uint64_t>(&value->data))
            return keyError(key, "token id " + std::to_string(*huge) + " is outside the vocabulary (" +
                                     std::to_string(vocab) + " tokens)");
        return keyError(key, std::string("expected an integer, got ") + io::ggufValueTypeName(value->type));
    }
    if (*id == -1) return int32_t(-1);
    if (*id < 0 || uint64_t(*id) >= vocab)
        return keyError(key, "token id " + std::to_string(*id) + " is outside the vocabulary (" +
                                 std::to_string(vocab) + " tokens)");
    return int32_t(*id);
}

Result<bool> GgufVocabReader::flag(const std::string& key, bool fallback) const {
    if (!m_file.find(key)) return fallback;
    return m_file.getBool(key);
}

} // namespace hearth
