#include "tokenizer/bpe/bpe_tokenizer.h"

#include "base/utf8.h"

#include <algorithm>
#include <exception>

#include "tokenizer/bpe/byte_level.h"

namespace hearth::bpe {

Result<std::unique_ptr<BpeTokenizer>> BpeTokenizer::create(BpeTokenizerSpec spec) {
    try {
        std::unique_ptr<BpeTokenizer> t(new BpeTokenizer());
        const auto vocab = int64_t(spec.pieces.size());
        if (vocab == 0) return dataLoss(spec.source + ": the vocabulary is empty");
        if (spec.kinds.size() != spec.pieces.size())
            return internalError(spec.source + ": token kinds and pieces differ in number");
        for (const auto& [name, id] : {std::pair{"BOS", spec.bosId}, {"EOS", spec.eosId}})
            if (id < -1 || id >= vocab)
                return dataLoss(spec.source + ": " + name + " id " + std::to_string(id) +
                                " is outside the vocabulary (" + std::to_string(vocab) + " tokens)");
        for (const auto& [piece, id] : spec.model.vocab)
            if (id < 0 || id >= vocab)
                return dataLoss(spec.source + ": token '" + piece + "' has id " + std::to_string(id) +
                                ", outside the vocabulary (" + std::to_string(vocab) + " tokens)");
        for (const AddedToken& token : spec.added)
            if (token.id < 0 || token.id >= vocab)
                return dataLoss(spec.source + ": added token '" + token.content + "' has id " +
                                std::to_string(token.id) + ", outside the vocabulary");

        HEARTH_ASSIGN(t->m_model, BpeModel::create(spec.model));
        HEARTH_ASSIGN(t->m_normalizer, Normalizer::create(spec.normalization, spec.source));
        t->m_pieces = std::move(spec.pieces);
        t->m_kinds = std::move(spec.kinds);
        t->m_added = std::move(spec.added);
        t->m_steps = std::move(spec.preTokenizer);
        t->m_bosId = spec.bosId;
        t->m_eosId = spec.eosId;
        t->m_addBos = spec.addBos;
        t->m_addEos = spec.addEos;
        t->m_preName = std::move(spec.preName);

        // What each token contributes to text. Added tokens' text is stored as it reads.
        t->m_bytes.resize(t->m_pieces.size());
        for (size_t id = 0; id < t->m_pieces.size(); ++id) {
            switch (t->m_kinds[id]) {
            case TokenKind::Normal:
            case TokenKind::Unknown:
            case TokenKind::Byte: t->m_bytes[id] = byteLevelToBytes(t->m_pieces[id]); break;
            case TokenKind::UserDefined: t->m_bytes[id] = t->m_pieces[id]; break;
            case TokenKind::Control:
            case TokenKind::Unused: break;
            }
        }
        for (const AddedToken& token : t->m_added) {
            if (token.content.empty()) continue; // HF ignores empty added tokens
            if (!token.normalized) {
                addToMatcher(t->m_rawMatcher, token.content, token);
                continue;
            }
            std::string normalized;
            if (!t->m_normalizer.apply(utf8::sanitize(token.content), normalized))
                return internalError(spec.source + ": normalizing added token '" + token.content + "' failed");
            if (!normalized.empty()) addToMatcher(t->m_normalizedMatcher, std::move(normalized), token);
        }
        return t;
    } catch (const std::exception& e) {
        return internalError(spec.source + ": building the tokenizer failed: " + e.what());
    }
}

void BpeTokenizer::addToMatcher(Matcher& matcher, std::string text, const AddedToken& token) {
    const auto first = uint8_t(text[0]);
    auto& bucket = matcher.byFirstByte[first];
    bucket.push_back({std::move(text), &token});
    // Longest first, then the lower id, so the first hit at a position is the longest match.
    std::stable_sort(bucket.begin(), bucket.end(), [](const Entry& a, const Entry& b) {
        return a.text.size() != b.text.size() ? a.text.size() > b.text.size() : a.token->id < b.token->id;
    });
    matcher.starts[first] = true;
    matcher.empty = false;
}

BpeTokenizer::Match BpeTokenizer::findLeftmostLongest(const Matcher& matcher, std::string_view text, size_t from) {
    for (size_t pos = from; pos < text.size(); ++pos) {
        const auto first = uint8_t(text[pos]);
        if (!matcher.starts[first]) continue;
        for (const Entry& entry : matcher.byFirstByte[first])
            if (text.compare(pos, entry.text.size(), entry.text) == 0)
                return {entry.token, pos, pos + entry.text.size()};
    }
    return {};
}

namespace {

// The start of the run of white space that ends at `end` (HF: \s*$ on the text before it).
size_t whiteSpaceRunBefore(std::string_view text, size_t end) {
    size_t begin = end;
    while (begin > 0) {
        size_t charStart = begin - 1;
        while (charStart > 0 && (uint8_t(text[charStart]) & 0xC0) == 0x80) --charStart;
        size_t length = 0;
        if (!isWhiteSpace(utf8::decode(text, charStart, length))) break;
        begin = charStart;
    }
    return begin;
}

// The end of the run of white space that starts at `begin` (HF: ^\s* on the text after it).
size_t whiteSpaceRunAfter(std::string_view text, size_t begin) {
    size_t end = begin;
    while (end < text.size()) {
        size_t length = 0;
        if (!isWhiteSpace(utf8::decode(text, end, length))) break;
        end += length;
    }
    return end;
}

bool wordCharBefore(std::string_view text, size_t pos) {
    if (pos == 0) return false;
    size_t charStart = pos - 1;
    while (charStart > 0 && (uint8_t(text[charStart]) & 0xC0) == 0x80) --charStart;
    size_t length = 0;
    return isWordChar(utf8::decode(text, charStart, length));
}

bool wordCharAt(std::string_view text, size_t pos) {
    if (pos >= text.size()) return false;
    size_t length = 0;
    return isWordChar(utf8::decode(text, pos, length));
}

} // namespace

template <typename Plain>
void BpeTokenizer::splitAdded(const Matcher& matcher, std::string_view text, std::vector<int32_t>& out,
                              const Plain& plain, size_t base, std::span<const TextRange> plainRanges) const {
    size_t done = 0;   // end of what has been handed on
    size_t search = 0; // where the next search starts (matches never overlap)
    while (search < text.size()) {
        const Match m = findLeftmostLongest(matcher, text, search);
        if (!m.token) break;
        search = m.end;
        // What the user typed stays text: no added token may start or end inside it.
        if (std::any_of(plainRanges.begin(), plainRanges.end(),
                        [&](const TextRange& r) { return r.overlaps(base + m.begin, base + m.end); })) {
            search = m.begin + 1;
            continue;
        }
        // HF drops a single_word match touching a word character and searches on after it.
        if (m.token->singleWord && (wordCharBefore(text, m.begin) || wordCharAt(text, m.end))) continue;
        size_t begin = m.begin;
        size_t end = m.end;
        if (m.token->lstrip) begin = std::max(whiteSpaceRunBefore(text, begin), done);
        if (m.token->rstrip) end = whiteSpaceRunAfter(text, end);
        if (begin > done) plain(text.substr(done, begin - done));
        out.push_back(m.token->id);
        done = end;
        search = std::max(search, end);
    }
    if (done < text.size()) plain(text.substr(done));
}

std::vector<int32_t> BpeTokenizer::encode(std::string_view text, bool addBos, bool parseSpecial) const {
    return encodeImpl(text, addBos, parseSpecial, {});
}

std::vector<int32_t> BpeTokenizer::encodeWithPlainRanges(std::string_view text, bool addBos,
                                                        std::span<const TextRange> plainRanges) const {
    return encodeImpl(text, addBos, true, plainRanges);
}

std::vector<int32_t> BpeTokenizer::encodeImpl(std::string_view text, bool addBos, bool parseSpecial,
                                              std::span<const TextRange> plainRanges) const {
    std::vector<int32_t> out;
    try {
        out.reserve(text.size() / 3 + 4);
        if (addBos && addsBos()) out.push_back(m_bosId);
        // Everything below works on valid UTF-8 (PCRE2 and ICU require it).
        std::string cleaned;
        if (!utf8::isValid(text)) {
            cleaned = utf8::sanitize(text);
            text = cleaned;
        }
        // Cleaning moved the offsets of plainRanges: then nothing is matched (callers sanitise
        // chat text first, so this is only a safety net against injection).
        if (!cleaned.empty() && !plainRanges.empty()) parseSpecial = false;
        if (parseSpecial && !m_rawMatcher.empty) {
            splitAdded(m_rawMatcher, text, out, [&](std::string_view segment) {
                // Tokens matched after normalisation are allowed only where nothing user-typed is.
                const size_t begin = size_t(segment.data() - text.data());
                const bool plain = std::any_of(plainRanges.begin(), plainRanges.end(), [&](const TextRange& r) {
                    return r.overlaps(begin, begin + segment.size());
                });
                encodeSegment(segment, parseSpecial && !plain, out);
            }, 0, plainRanges);
        } else {
            encodeSegment(text, parseSpecial, out);
        }
        if (addBos && addsEos()) out.push_back(m_eosId);
    } catch (...) {
        // Only allocation can fail here; the ids so far are the best answer left.
    }
    return out;
}

void BpeTokenizer::encodeSegment(std::string_view segment, bool parseSpecial, std::vector<int32_t>& out) const {
    std::string normalized;
    if (!m_normalizer.isIdentity()) {
        // ICU failing on valid UTF-8 is not expected; the text then goes on as it is.
        if (m_normalizer.apply(segment, normalized)) segment = normalized;
    }
    if (parseSpecial && !m_normalizedMatcher.empty) {
        splitAdded(m_normalizedMatcher, segment, out, [&](std::string_view plain) { encodePlain(plain, out); }, 0, {});
    } else {
        encodePlain(segment, out);
    }
}

void BpeTokenizer::encodePlain(std::string_view text, std::vector<int32_t>& out) const {
    if (!text.empty()) preTokenize(text, 0, out);
}

void BpeTokenizer::preTokenize(std::string_view piece, size_t step, std::vector<int32_t>& out) const {
    if (step == m_steps.size()) {
        m_model->encodeWord(piece, out);
        return;
    }
    const PreTokenizerStep& s = m_steps[step];
    std::string spaced;
    if (s.byteLevel && s.addPrefixSpace && piece.front() != ' ') {
        spaced.reserve(piece.size() + 1);
        spaced.push_back(' ');
        spaced.append(piece);
        piece = spaced;
    }
    if (s.regex) s.regex->split(piece, [&](std::string_view sub) { preTokenize(sub, step + 1, out); });
    else preTokenize(piece, step + 1, out);
}

std::string BpeTokenizer::tokenBytes(int32_t id) const {
    if (id < 0 || id >= vocabSize()) return {};
    return m_bytes[size_t(id)];
}

std::string BpeTokenizer::tokenPiece(int32_t id) const {
    if (id < 0 || id >= vocabSize()) return {};
    return m_pieces[size_t(id)];
}

TokenKind BpeTokenizer::tokenKind(int32_t id) const {
    if (id < 0 || id >= vocabSize()) return TokenKind::Unused;
    return m_kinds[size_t(id)];
}

std::vector<std::string> BpeTokenizer::bpeMerges() const {
    std::vector<std::string> merges;
    try {
        merges.reserve(m_model->mergePairs().size());
        for (const auto& [left, right] : m_model->mergePairs())
            merges.push_back(m_pieces[size_t(left)] + " " + m_pieces[size_t(right)]);
    } catch (...) { // allocation only
        merges.clear();
    }
    return merges;
}

} // namespace hearth::bpe
