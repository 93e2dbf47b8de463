// The BPE model proper: a word (one pre-token, as raw bytes) becomes ids by applying the merges
// in rank order, lowest rank first and leftmost first among equal ranks (HF's order). Each word
// starts as one symbol per byte; a priority queue of candidate pairs makes a word of n bytes
// cost O(n log n). Results of short words are cached, since text repeats its words.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hearth/status.h"

namespace hearth::bpe {

struct BpeModelSpec {
    std::string source;                                    // for messages: file and key
    std::vector<std::pair<std::string, int32_t>> vocab;    // byte-level form -> id
    std::vector<std::pair<std::string, std::string>> merges; // byte-level form, by rank
    bool ignoreMerges = false; // a word that is itself in the vocabulary is emitted whole (Llama 3)
    int32_t unkId = -1;        // for bytes missing from the vocabulary; -1: they are dropped (as HF)
};

class BpeModel {
public:
    // Errors: DataLoss naming the source and the merge ("merges[12]: 'Ġ x' names a token that is
    // not in the vocabulary").
    static Result<std::unique_ptr<BpeModel>> create(const BpeModelSpec& spec);

    // Appends the ids of `word` (raw bytes). Thread-safe.
    void encodeWord(std::string_view word, std::vector<int32_t>& out) const;

    // The merges as (left id, right id), by rank.
    const std::vector<std::pair<int32_t, int32_t>>& mergePairs() const { return m_mergePairs; }

private:
    BpeModel() = default;
    void mergeWord(std::string_view word, std::vector<int32_t>& out) const;
    int32_t lookup(std::string_view bytes) const;

    struct StringHash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
    };
    // The merge table is the hot spot of encoding (a lookup per candidate pair), so it is a
    // flat open-addressing table (one cache line per lookup, no nodes) rather than a std map.
    struct MergeSlot {
        uint64_t key = kEmptyKey; // left << 32 | right
        int32_t rank = 0;
        int32_t id = 0; // the merged token
    };
    static constexpr uint64_t kEmptyKey = ~uint64_t(0); // ids are never negative
    const MergeSlot* findMerge(int32_t left, int32_t right) const;
    void insertMerge(int32_t left, int32_t right, int32_t rank, int32_t id);

    std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>> m_vocab; // raw bytes -> id
    std::array<int32_t, 256> m_byteIds{};                // single bytes, -1 when absent
    std::vector<MergeSlot> m_mergeTable;                 // power-of-two size, at most half full
    int m_mergeShift = 64;
    std::vector<std::pair<int32_t, int32_t>> m_mergePairs;
    bool m_ignoreMerges = false;
    int32_t m_unkId = -1;

    // Cache of short words. Cleared when full rather than evicted piecemeal: simple, and a chat
    // rarely has more distinct words than the limit.
    static constexpr size_t kCacheLimit = 1 << 16;
    static constexpr size_t kCacheWordLimit = 64; // bytes
    mutable std::mutex m_cacheMutex;
    mutable std::unordered_map<std::string, std::vector<int32_t>, StringHash, std::equal_to<>> m_cache;
};

} // namespace hearth::bpe
