#include "tokenizer/bpe/bpe_model.h"

#include <algorithm>

#include "tokenizer/bpe/byte_level.h"

namespace hearth::bpe {

namespace {

uint64_t pairKey(int32_t left, int32_t right) { return (uint64_t(uint32_t(left)) << 32) | uint32_t(right); }

// Fibonacci hashing: the top bits of key * 2^64/phi spread consecutive ids well.
size_t slotOf(uint64_t key, int shift) { return size_t((key * 0x9E3779B97F4A7C15ull) >> shift); }

} // namespace

const BpeModel::MergeSlot* BpeModel::findMerge(int32_t left, int32_t right) const {
    const uint64_t key = pairKey(left, right);
    const size_t mask = m_mergeTable.size() - 1;
    for (size_t i = slotOf(key, m_mergeShift);; i = (i + 1) & mask) {
        const MergeSlot& slot = m_mergeTable[i];
        if (slot.key == key) return &slot;
        if (slot.key == kEmptyKey) return nullptr;
    }
}

void BpeModel::insertMerge(int32_t left, int32_t right, int32_t rank, int32_t id) {
    const uint64_t key = pairKey(left, right);
    const size_t mask = m_mergeTable.size() - 1;
    for (size_t i = slotOf(key, m_mergeShift);; i = (i + 1) & mask) {
        MergeSlot& slot = m_mergeTable[i];
        if (slot.key == key) return; // a repeated pair keeps its first (lowest) rank
        if (slot.key == kEmptyKey) {
            slot = {key, rank, id};
            return;
        }
    }
}

Result<std::unique_ptr<BpeModel>> BpeModel::create(const BpeModelSpec& spec) {
    std::unique_ptr<BpeModel> model(new BpeModel());
    model->m_ignoreMerges = spec.ignoreMerges;
    model->m_unkId = spec.unkId;
    model->m_byteIds.fill(-1);
    model->m_vocab.reserve(spec.vocab.size());
    for (const auto& [piece, id] : spec.vocab) {
        std::string bytes = byteLevelToBytes(piece);
        if (bytes.size() == 1 && model->m_byteIds[uint8_t(bytes[0])] < 0) model->m_byteIds[uint8_t(bytes[0])] = id;
        model->m_vocab.emplace(std::move(bytes), id); // a duplicate keeps the first id
    }

    size_t capacity = 16;
    int shift = 60;
    while (capacity < spec.merges.size() * 2) {
        capacity *= 2;
        --shift;
    }
    model->m_mergeTable.assign(capacity, MergeSlot{});
    model->m_mergeShift = shift;
    model->m_mergePairs.reserve(spec.merges.size());
    std::string joined;
    for (size_t rank = 0; rank < spec.merges.size(); ++rank) {
        // Plain references, not a structured binding: the lambda below captures them, which
        // clang accepts only from version 16 (Debian 12's is 14).
        const std::string& left = spec.merges[rank].first;
        const std::string& right = spec.merges[rank].second;
        const std::string leftBytes = byteLevelToBytes(left);
        const std::string rightBytes = byteLevelToBytes(right);
        const int32_t leftId = model->lookup(leftBytes);
        const int32_t rightId = model->lookup(rightBytes);
        joined = leftBytes + rightBytes;
        const int32_t mergedId = model->lookup(joined);
        const auto where = [&] {
            return spec.source + "[" + std::to_string(rank) + "]: '" + left + " " + right + "'";
        };
        if (leftId < 0 || rightId < 0)
            return dataLoss(where() + " names a token that is not in the vocabulary");
        if (mergedId < 0)
            return dataLoss(where() + ": the merged token '" + left + right + "' is not in the vocabulary");
        model->insertMerge(leftId, rightId, int32_t(rank), mergedId);
        model->m_mergePairs.emplace_back(leftId, rightId);
    }
    return model;
}

int32_t BpeModel::lookup(std::string_view bytes) const {
    const auto it = m_vocab.find(bytes);
    return it == m_vocab.end() ? -1 : it->second;
}

void BpeModel::encodeWord(std::string_view word, std::vector<int32_t>& out) const {
    if (word.empty()) return;
    if (word.size() == 1) { // the commonest short cut: no merge can apply
        const int32_t id = m_byteIds[uint8_t(word[0])];
        if (id >= 0) out.push_back(id);
        else if (m_unkId >= 0) out.push_back(m_unkId);
        return;
    }
    const bool cacheable = word.size() <= kCacheWordLimit;
    if (cacheable) {
        const std::lock_guard lock(m_cacheMutex);
        if (const auto it = m_cache.find(word); it != m_cache.end()) {
            out.insert(out.end(), it->second.begin(), it->second.end());
            return;
        }
    }
    const size_t first = out.size();
    mergeWord(word, out);
    if (cacheable) {
        std::vector<int32_t> ids(out.begin() + std::ptrdiff_t(first), out.end());
        const std::lock_guard lock(m_cacheMutex);
        if (m_cache.size() >= kCacheLimit) m_cache.clear();
        m_cache.emplace(std::string(word), std::move(ids));
    }
}

void BpeModel::mergeWord(std::string_view word, std::vector<int32_t>& out) const {
    if (m_ignoreMerges) {
        if (const int32_t id = lookup(word); id >= 0) {
            out.push_back(id);
            return;
        }
    }
    // Symbols form a linked list over the byte positions; a merged-away symbol gets id -2.
    struct Symbol {
        int32_t id;
        int32_t prev;
        int32_t next;
    };
    const auto n = int32_t(word.size());
    // Scratch space reused across words (per thread: encode may run on several at once).
    thread_local std::vector<Symbol> symbols;
    symbols.resize(size_t(n));
    for (int32_t i = 0; i < n; ++i) symbols[size_t(i)] = {m_byteIds[uint8_t(word[size_t(i)])], i - 1, i + 1 < n ? i + 1 : -1};

    // Candidate merges, lowest rank first, then leftmost. Entries go stale when a neighbour
    // merges; they are checked when popped instead of being removed (lazy deletion).
    struct Candidate {
        int32_t rank;
        int32_t pos;
        int32_t left;
        int32_t right;
        int32_t merged;
    };
    const auto later = [](const Candidate& a, const Candidate& b) {
        return a.rank != b.rank ? a.rank > b.rank : a.pos > b.pos;
    };
    thread_local std::vector<Candidate> heap;
    heap.clear();
    const auto consider = [&](int32_t pos) {
        if (pos < 0) return;
        const int32_t next = symbols[size_t(pos)].next;
        if (next < 0) return;
        const int32_t left = symbols[size_t(pos)].id;
        const int32_t right = symbols[size_t(next)].id;
        if (left < 0 || right < 0) return;
        const MergeSlot* merge = findMerge(left, right);
        if (!merge) return;
        heap.push_back({merge->rank, pos, left, right, merge->id});
        std::push_heap(heap.begin(), heap.end(), later);
    };
    for (int32_t i = 0; i + 1 < n; ++i) consider(i);

    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), later);
        const Candidate c = heap.back();
        heap.pop_back();
        Symbol& s = symbols[size_t(c.pos)];
        if (s.id != c.left || s.next < 0 || symbols[size_t(s.next)].id != c.right) continue; // stale
        const int32_t gone = s.next;
        s.id = c.merged;
        s.next = symbols[size_t(gone)].next;
        if (s.next >= 0) symbols[size_t(s.next)].prev = c.pos;
        symbols[size_t(gone)].id = -2;
        consider(s.prev);
        consider(c.pos);
    }

    for (int32_t i = 0; i >= 0; i = symbols[size_t(i)].next) {
        const int32_t id = symbols[size_t(i)].id;
        if (id >= 0) out.push_back(id);
        else if (id == -1 && m_unkId >= 0) out.push_back(m_unkId);
    }
}

} // namespace hearth::bpe
