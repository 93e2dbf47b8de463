// A small reader/writer for SentencePiece's ModelProto (the tokenizer.model format).
// Debian's libsentencepiece-dev ships no generated sentencepiece_model.pb.h, so the few fields
// Hearth needs are read and written here by hand: pieces, a handful of TrainerSpec and
// NormalizerSpec fields. Every other field is kept verbatim so that a rewritten model stays
// what it was, apart from what we change on purpose.
// Field numbers follow sentencepiece_model.proto (proto2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hearth/status.h"
#include "tokenizer/tokenizer.h"

namespace hearth::spm {

// Field numbers of sentencepiece_model.proto.
namespace field {
// ModelProto
constexpr uint32_t kPieces = 1;
constexpr uint32_t kTrainerSpec = 2;
constexpr uint32_t kNormalizerSpec = 3;
// ModelProto.SentencePiece
constexpr uint32_t kPiece = 1;
constexpr uint32_t kScore = 2;
constexpr uint32_t kType = 3;
// TrainerSpec
constexpr uint32_t kModelType = 3;
constexpr uint32_t kVocabSize = 4;
constexpr uint32_t kTreatWhitespaceAsSuffix = 24;
constexpr uint32_t kByteFallback = 35;
constexpr uint32_t kUnkId = 40;
constexpr uint32_t kBosId = 41;
constexpr uint32_t kEosId = 42;
constexpr uint32_t kPadId = 43;
// NormalizerSpec
constexpr uint32_t kName = 1;
constexpr uint32_t kPrecompiledCharsmap = 2;
constexpr uint32_t kAddDummyPrefix = 3;
constexpr uint32_t kRemoveExtraWhitespaces = 4;
constexpr uint32_t kEscapeWhitespaces = 5;
} // namespace field

// TrainerSpec.ModelType
enum class ModelType : int32_t { Unigram = 1, Bpe = 2, Word = 3, Char = 4 };

enum class WireType : uint8_t { Varint = 0, Fixed64 = 1, LengthDelimited = 2, Fixed32 = 5 };

// One field as stored: the number, the wire type, and either the integer value (varint, fixed)
// or the bytes (length-delimited).
struct ProtoField {
    uint32_t number = 0;
    WireType wireType = WireType::Varint;
    uint64_t value = 0;
    std::string bytes;
};

// A message as its list of fields in file order. Groups (wire types 3/4, long deprecated) are
// refused. Later occurrences of a scalar win, as in protobuf.
class ProtoMessage {
public:
    // On failure returns a short reason ("truncated varint at byte 17") in `error`.
    static std::optional<ProtoMessage> parse(std::string_view bytes, std::string& error);
    std::string serialize() const;

    const ProtoField* find(uint32_t number) const; // the last occurrence, or nullptr
    std::optional<int64_t> getInt(uint32_t number) const; // varint as int32/int64/enum/bool
    bool getBool(uint32_t number, bool defaultValue) const;
    std::optional<std::string> getBytes(uint32_t number) const;

    // Replace every occurrence of `number` by one field (appended at the end).
    void setInt(uint32_t number, int64_t value); // negative int32 values use 10 bytes, as protobuf
    void setBool(uint32_t number, bool value) { setInt(number, value ? 1 : 0); }
    void setBytes(uint32_t number, std::string value);
    void setFloat(uint32_t number, float value);
    void remove(uint32_t number);
    void append(ProtoField field) { m_fields.push_back(std::move(field)); }

    const std::vector<ProtoField>& fields() const { return m_fields; }

private:
    std::vector<ProtoField> m_fields;
};

struct Piece {
    std::string piece;
    float score = 0.0f;
    TokenKind kind = TokenKind::Normal;
    ProtoMessage extra; // any other fields of the piece message, verbatim
};

// The parts of a ModelProto the tokenizer reads or rewrites.
struct ModelProto {
    std::vector<Piece> pieces;
    ProtoMessage trainerSpec;
    ProtoMessage normalizerSpec;
    ProtoMessage others; // self_test_data, denormalizer_spec, extensions: verbatim

    // TrainerSpec values with the proto's defaults.
    ModelType modelType() const;
    bool byteFallback() const { return trainerSpec.getBool(field::kByteFallback, false); }
    int64_t unkId() const { return trainerSpec.getInt(field::kUnkId).value_or(0); }
    int64_t bosId() const { return trainerSpec.getInt(field::kBosId).value_or(1); }
    int64_t eosId() const { return trainerSpec.getInt(field::kEosId).value_or(2); }
    int64_t padId() const { return trainerSpec.getInt(field::kPadId).value_or(-1); }
    bool addDummyPrefix() const { return normalizerSpec.getBool(field::kAddDummyPrefix, true); }
    bool removeExtraWhitespaces() const {
        return normalizerSpec.getBool(field::kRemoveExtraWhitespaces, true);
    }
};

// Parses a serialized ModelProto. DataLoss naming `nameForErrors` when the bytes are not one
// (truncated, garbage, a piece type outside 1..6, no pieces).
Result<ModelProto> parseModelProto(std::string_view bytes, const std::string& nameForErrors);
std::string serializeModelProto(const ModelProto& model);

} // namespace hearth::spm
