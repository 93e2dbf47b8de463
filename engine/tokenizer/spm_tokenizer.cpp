#include "tokenizer/spm_tokenizer.h"

#include <algorithm>
#include <exception>

#include <sentencepiece_processor.h>

#include "base/utf8.h"

namespace hearth::spm {

namespace {

constexpr std::string_view kMetaSpace = "\xE2\x96\x81"; // U+2581 "▁"
// SentencePiece's default unk surface (U+2047 "⁇" between spaces): visible, so that lost text
// shows instead of vanishing. (HF with skip_special_tokens drops it; llama.cpp prints "▅".)
constexpr std::string_view kUnknownSurface = " \xE2\x81\x87 ";

std::string replaceMetaSpace(const std::string& piece) {
    std::string out;
    out.reserve(piece.size());
    for (size_t i = 0; i < piece.size();) {
        if (piece.compare(i, kMetaSpace.size(), kMetaSpace) == 0) {
            out.push_back(' ');
            i += kMetaSpace.size();
        } else {
            out.push_back(piece[i++]);
        }
    }
    return out;
}

// "<0xAB>" -> 0xAB; -1 if the piece is not of that form.
int parseBytePiece(const std::string& piece) {
    if (piece.size() != 6 || piece.compare(0, 3, "<0x") != 0 || piece[5] != '>') return -1;
    int value = 0;
    for (size_t i = 3; i < 5; ++i) {
        const char c = piece[i];
        int digit = -1;
        if (c >= '0' && c <= '9') digit = c - '0';
        else if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
        else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
        if (digit < 0) return -1;
        value = value * 16 + digit;
    }
    return value;
}

} // namespace

SpmTokenizer::SpmTokenizer() : m_processor(std::make_unique<sentencepiece::SentencePieceProcessor>()) {}
SpmTokenizer::~SpmTokenizer() = default;

Result<std::unique_ptr<SpmTokenizer>> SpmTokenizer::create(const ModelProto& model,
                                                           const TokenizerOptions& options) {
    try {
        // Such models put the "▁" at the end of words; the dummy-prefix and leading-space
        // handling below assumes the usual prefix form (every Llama-family model uses it).
        if (model.trainerSpec.getBool(field::kTreatWhitespaceAsSuffix, false))
            return unsupported(options.source +
                               ": SentencePiece models with treat_whitespace_as_suffix are not supported");
        std::unique_ptr<SpmTokenizer> t(new SpmTokenizer());
        const auto vocab = static_cast<int64_t>(model.pieces.size());
        for (const auto& [name, id] : {std::pair{"BOS", options.bosId}, {"EOS", options.eosId}}) {
            if (id < -1 || id >= vocab)
                return dataLoss(options.source + ": " + name + " id " + std::to_string(id) +
                                " is outside the vocabulary (" + std::to_string(vocab) + " tokens)");
        }
        t->m_bosId = options.bosId;
        t->m_eosId = options.eosId;
        t->m_addBos = options.addBos;
        t->m_addEos = options.addEos;
        t->m_stripsLeadingSpace = model.addDummyPrefix();
        t->m_addDummyPrefix = model.addDummyPrefix();

        // The dummy prefix is added here rather than by the library, once per stretch of user
        // text (after each special token, as llama.cpp and HF do) and not again where invalid
        // UTF-8 splits the text. That needs remove_extra_whitespaces off, or the library would
        // strip our leading space again; the loaders turn it off anyway (see there).
        ModelProto loaded = model;
        loaded.normalizerSpec.setBool(field::kAddDummyPrefix, false);
        loaded.normalizerSpec.setBool(field::kRemoveExtraWhitespaces, false);
        const auto status = t->m_processor->LoadFromSerializedProto(serializeModelProto(loaded));
        if (!status.ok())
            return dataLoss(options.source + ": SentencePiece refused the vocabulary: " +
                            status.message());
        if (t->m_processor->GetPieceSize() != vocab)
            return internalError(options.source + ": SentencePiece reports " +
                                 std::to_string(t->m_processor->GetPieceSize()) + " pieces, expected " +
                                 std::to_string(vocab));

        t->m_unkId = t->m_processor->unk_id();
        t->m_pieces.reserve(model.pieces.size());
        t->m_bytes.reserve(model.pieces.size());
        t->m_kinds.reserve(model.pieces.size());
        t->m_byteIds.fill(-1);
        for (size_t id = 0; id < model.pieces.size(); ++id) {
            const auto& piece = model.pieces[id];
            std::string bytes;
            switch (piece.kind) {
            case TokenKind::Normal:
            case TokenKind::UserDefined: bytes = replaceMetaSpace(piece.piece); break;
            case TokenKind::Unknown: bytes = kUnknownSurface; break;
            case TokenKind::Control:
            case TokenKind::Unused: break;
            case TokenKind::Byte: {
                const int value = parseBytePiece(piece.piece);
                if (value < 0)
                    return dataLoss(options.source + ": token " + std::to_string(id) + " '" +
                                    piece.piece + "' is a byte token but not of the form <0xAB>");
                bytes.assign(1, static_cast<char>(value));
                if (t->m_byteIds[value] < 0) t->m_byteIds[value] = static_cast<int32_t>(id);
                break;
            }
            }
            if ((piece.kind == TokenKind::Control || piece.kind == TokenKind::UserDefined) &&
                !piece.piece.empty()) {
                t->m_specials[static_cast<uint8_t>(piece.piece[0])].emplace_back(
                    piece.piece, static_cast<int32_t>(id));
                t->m_hasSpecials = true;
            }
            t->m_pieces.push_back(piece.piece);
            t->m_bytes.push_back(std::move(bytes));
            t->m_kinds.push_back(piece.kind);
            t->m_scores.push_back(piece.score);
        }
        for (auto& bucket : t->m_specials) // longest first, then lowest id
            std::stable_sort(bucket.begin(), bucket.end(), [](const auto& a, const auto& b) {
                return a.first.size() > b.first.size();
            });
        return t;
    } catch (const std::exception& e) {
        return internalError(options.source + ": loading the tokenizer failed: " + e.what());
    } catch (...) {
        return internalError(options.source + ": loading the tokenizer failed");
    }
}

std::pair<int32_t, size_t> SpmTokenizer::matchSpecial(std::string_view text, size_t pos) const {
    for (const auto& [piece, id] : m_specials[static_cast<uint8_t>(text[pos])])
        if (text.compare(pos, piece.size(), piece) == 0) return {id, piece.size()};
    return {-1, 0};
}

int32_t SpmTokenizer::byteToken(uint8_t byte) const {
    return m_byteIds[byte] >= 0 ? m_byteIds[byte] : m_unkId;
}

void SpmTokenizer::encodeRun(std::string_view run, std::vector<int32_t>& out) const {
    if (run.empty()) return;
    std::vector<int> ids;
    if (m_processor->Encode(run, &ids).ok()) {
        out.insert(out.end(), ids.begin(), ids.end());
    } else { // not expected after a successful load; never lose the text
        for (char c : run) out.push_back(byteToken(static_cast<uint8_t>(c)));
    }
}

void SpmTokenizer::encodeText(std::string_view segment, std::vector<int32_t>& out) const {
    if (segment.empty()) return;
    std::string text;
    text.reserve(segment.size() + 1);
    if (m_addDummyPrefix) text.push_back(' ');
    text.append(segment);

    // libsentencepiece would turn invalid UTF-8 into U+FFFD; byte fallback keeps the bytes, as
    // llama.cpp and run.c do. Bytes that cannot start or continue a character go through byte
    // tokens one by one; the valid stretches between them go to the library.
    const std::string_view view = text;
    size_t runStart = 0;
    size_t pos = 0;
    while (pos < view.size()) {
        const utf8::Step step = utf8::scan(view, pos);
        if (step.kind == utf8::Scan::Complete) {
            pos += step.length;
            continue;
        }
        encodeRun(view.substr(runStart, pos - runStart), out);
        for (size_t i = 0; i < step.length; ++i) out.push_back(byteToken(static_cast<uint8_t>(view[pos + i])));
        pos += step.length;
        runStart = pos;
    }
    encodeRun(view.substr(runStart), out);
}

std::vector<int32_t> SpmTokenizer::encode(std::string_view text, bool addBos, bool parseSpecial) const {
    return encodeImpl(text, addBos, parseSpecial, {});
}

std::vector<int32_t> SpmTokenizer::encodeWithPlainRanges(std::string_view text, bool addBos,
                                                        std::span<const TextRange> plainRanges) const {
    return encodeImpl(text, addBos, true, plainRanges);
}

std::vector<int32_t> SpmTokenizer::encodeImpl(std::string_view text, bool addBos, bool parseSpecial,
                                              std::span<const TextRange> plainRanges) const {
    auto isPlain = [&](size_t begin, size_t end) {
        return std::any_of(plainRanges.begin(), plainRanges.end(),
                           [&](const TextRange& r) { return r.overlaps(begin, end); });
    };
    std::vector<int32_t> out;
    try {
        if (addBos && addsBos()) out.push_back(m_bosId);
        if (parseSpecial && m_hasSpecials) {
            // HF-style: the text of control/user-defined tokens becomes that token (longest
            // match, leftmost first); the text between them is encoded as usual.
            size_t start = 0;
            size_t pos = 0;
            while (pos < text.size()) {
                const auto [id, length] = matchSpecial(text, pos);
                if (id < 0 || isPlain(pos, pos + length)) {
                    ++pos;
                    continue;
                }
                encodeText(text.substr(start, pos - start), out);
                out.push_back(id);
                pos += length;
                start = pos;
            }
            encodeText(text.substr(start), out);
        } else {
            encodeText(text, out);
        }
        if (addBos && addsEos()) out.push_back(m_eosId);
    } catch (...) {
        // Only allocation can fail here; the ids so far are the best answer left.
    }
    return out;
}

std::string SpmTokenizer::tokenBytes(int32_t id) const {
    if (id < 0 || id >= vocabSize()) return {};
    return m_bytes[size_t(id)];
}

std::string SpmTokenizer::tokenPiece(int32_t id) const {
    if (id < 0 || id >= vocabSize()) return {};
    return m_pieces[size_t(id)];
}

TokenKind SpmTokenizer::tokenKind(int32_t id) const {
    if (id < 0 || id >= vocabSize()) return TokenKind::Unused; // contributes nothing
    return m_kinds[size_t(id)];
}

float SpmTokenizer::tokenScore(int32_t id) const {
    if (id < 0 || id >= vocabSize()) return 0.0f;
    return m_scores[size_t(id)];
}

} // namespace hearth::spm
