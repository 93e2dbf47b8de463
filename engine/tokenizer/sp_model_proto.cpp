// Protobuf wire format, as much as ModelProto needs: varints, fixed32/64, length-delimited.
#include "tokenizer/sp_model_proto.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace hearth::spm {

namespace {

class WireReader {
public:
    explicit WireReader(std::string_view bytes) : m_bytes(bytes) {}
    bool atEnd() const { return m_pos >= m_bytes.size(); }
    size_t position() const { return m_pos; }

    bool readVarint(uint64_t& out) {
        out = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (m_pos >= m_bytes.size()) return false;
            const auto byte = static_cast<uint8_t>(m_bytes[m_pos++]);
            out |= uint64_t(byte & 0x7f) << shift;
            if ((byte & 0x80) == 0) return true;
        }
        return false; // more than 10 bytes: not a varint
    }
    bool readFixed(int size, uint64_t& out) {
        if (m_bytes.size() - m_pos < size_t(size)) return false;
        out = 0;
        for (int i = 0; i < size; ++i) // little endian on the wire
            out |= uint64_t(static_cast<uint8_t>(m_bytes[m_pos + i])) << (8 * i);
        m_pos += size;
        return true;
    }
    bool readBytes(uint64_t length, std::string& out) {
        if (length > m_bytes.size() - m_pos) return false;
        out.assign(m_bytes.substr(m_pos, size_t(length)));
        m_pos += size_t(length);
        return true;
    }

private:
    std::string_view m_bytes;
    size_t m_pos = 0;
};

void writeVarint(std::string& out, uint64_t value) {
    while (value >= 0x80) {
        out.push_back(static_cast<char>((value & 0x7f) | 0x80));
        value >>= 7;
    }
    out.push_back(static_cast<char>(value));
}

void writeFixed(std::string& out, uint64_t value, int size) {
    for (int i = 0; i < size; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

void writeField(std::string& out, const ProtoField& f) {
    writeVarint(out, (uint64_t(f.number) << 3) | uint64_t(f.wireType));
    switch (f.wireType) {
    case WireType::Varint: writeVarint(out, f.value); break;
    case WireType::Fixed64: writeFixed(out, f.value, 8); break;
    case WireType::Fixed32: writeFixed(out, f.value, 4); break;
    case WireType::LengthDelimited:
        writeVarint(out, f.bytes.size());
        out += f.bytes;
        break;
    }
}

float floatFromBits(uint64_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits)); }

} // namespace

std::optional<ProtoMessage> ProtoMessage::parse(std::string_view bytes, std::string& error) {
    ProtoMessage message;
    WireReader reader(bytes);
    while (!reader.atEnd()) {
        const size_t start = reader.position();
        uint64_t key = 0;
        if (!reader.readVarint(key)) {
            error = "truncated field key at byte " + std::to_string(start);
            return std::nullopt;
        }
        ProtoField f;
        const uint64_t number = key >> 3;
        if (number == 0 || number > 0x1fffffff) { // protobuf field numbers are 1 .. 2^29-1
            error = "invalid field number at byte " + std::to_string(start);
            return std::nullopt;
        }
        f.number = static_cast<uint32_t>(number);
        const auto wire = static_cast<uint8_t>(key & 7);
        bool ok = false;
        switch (wire) {
        case 0: f.wireType = WireType::Varint; ok = reader.readVarint(f.value); break;
        case 1: f.wireType = WireType::Fixed64; ok = reader.readFixed(8, f.value); break;
        case 5: f.wireType = WireType::Fixed32; ok = reader.readFixed(4, f.value); break;
        case 2: {
            f.wireType = WireType::LengthDelimited;
            uint64_t length = 0;
            ok = reader.readVarint(length) && reader.readBytes(length, f.bytes);
            break;
        }
        default:
            error = "unsupported wire type " + std::to_string(wire) + " at byte " +
                    std::to_string(start);
            return std::nullopt;
        }
        if (!ok) {
            error = "field " + std::to_string(f.number) + " truncated at byte " +
                    std::to_string(start);
            return std::nullopt;
        }
        message.m_fields.push_back(std::move(f));
    }
    return message;
}

std::string ProtoMessage::serialize() const {
    std::string out;
    for (const auto& f : m_fields) writeField(out, f);
    return out;
}

const ProtoField* ProtoMessage::find(uint32_t number) const {
    for (auto it = m_fields.rbegin(); it != m_fields.rend(); ++it)
        if (it->number == number) return &*it;
    return nullptr;
}

std::optional<int64_t> ProtoMessage::getInt(uint32_t number) const {
    const ProtoField* f = find(number);
    if (!f || f->wireType != WireType::Varint) return std::nullopt;
    // int32 fields are sign-extended to 64 bits on the wire; truncating restores them.
    return static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(f->value)));
}

bool ProtoMessage::getBool(uint32_t number, bool defaultValue) const {
    const ProtoField* f = find(number);
    if (!f || f->wireType != WireType::Varint) return defaultValue;
    return f->value != 0;
}

std::optional<std::string> ProtoMessage::getBytes(uint32_t number) const {
    const ProtoField* f = find(number);
    if (!f || f->wireType != WireType::LengthDelimited) return std::nullopt;
    return f->bytes;
}

void ProtoMessage::remove(uint32_t number) {
    std::erase_if(m_fields, [number](const ProtoField& f) { return f.number == number; });
}

void ProtoMessage::setInt(uint32_t number, int64_t value) {
    remove(number);
    ProtoField f;
    f.number = number;
    f.wireType = WireType::Varint;
    f.value = static_cast<uint64_t>(value);
    m_fields.push_back(std::move(f));
}

void ProtoMessage::setBytes(uint32_t number, std::string value) {
    remove(number);
    ProtoField f;
    f.number = number;
    f.wireType = WireType::LengthDelimited;
    f.bytes = std::move(value);
    m_fields.push_back(std::move(f));
}

void ProtoMessage::setFloat(uint32_t number, float value) {
    remove(number);
    ProtoField f;
    f.number = number;
    f.wireType = WireType::Fixed32;
    f.value = std::bit_cast<uint32_t>(value);
    m_fields.push_back(std::move(f));
}

ModelType ModelProto::modelType() const {
    return static_cast<ModelType>(trainerSpec.getInt(field::kModelType).value_or(1));
}

Result<ModelProto> parseModelProto(std::string_view bytes, const std::string& nameForErrors) {
    const auto fail = [&](const std::string& why) {
        return dataLoss(nameForErrors + ": not a valid SentencePiece model (" + why + ")");
    };
    std::string error;
    auto top = ProtoMessage::parse(bytes, error);
    if (!top) return fail(error);

    ModelProto model;
    for (const auto& f : top->fields()) {
        if (f.number == field::kPieces && f.wireType == WireType::LengthDelimited) {
            auto message = ProtoMessage::parse(f.bytes, error);
            if (!message) return fail("piece " + std::to_string(model.pieces.size()) + ": " + error);
            Piece piece;
            for (const auto& pf : message->fields()) {
                if (pf.number == field::kPiece && pf.wireType == WireType::LengthDelimited) {
                    piece.piece = pf.bytes;
                } else if (pf.number == field::kScore && pf.wireType == WireType::Fixed32) {
                    piece.score = floatFromBits(pf.value);
                } else if (pf.number == field::kType && pf.wireType == WireType::Varint) {
                    if (pf.value < 1 || pf.value > 6)
                        return fail("piece " + std::to_string(model.pieces.size()) +
                                    " has type " + std::to_string(pf.value) + ", expected 1..6");
                    piece.kind = static_cast<TokenKind>(pf.value);
                } else if (pf.number == field::kPiece || pf.number == field::kScore ||
                           pf.number == field::kType) {
                    return fail("piece " + std::to_string(model.pieces.size()) +
                                " field " + std::to_string(pf.number) + " has the wrong wire type");
                } else {
                    piece.extra.append(pf);
                }
            }
            model.pieces.push_back(std::move(piece));
        } else if (f.number == field::kTrainerSpec && f.wireType == WireType::LengthDelimited) {
            // A repeated embedded message merges; models have one, so the last one wins here.
            auto message = ProtoMessage::parse(f.bytes, error);
            if (!message) return fail("trainer_spec: " + error);
            model.trainerSpec = std::move(*message);
        } else if (f.number == field::kNormalizerSpec && f.wireType == WireType::LengthDelimited) {
            auto message = ProtoMessage::parse(f.bytes, error);
            if (!message) return fail("normalizer_spec: " + error);
            model.normalizerSpec = std::move(*message);
        } else if (f.number <= field::kNormalizerSpec) {
            return fail("field " + std::to_string(f.number) + " has the wrong wire type");
        } else {
            model.others.append(f);
        }
    }
    if (model.pieces.empty()) return fail("no pieces");
    return model;
}

std::string serializeModelProto(const ModelProto& model) {
    std::string out;
    for (const auto& piece : model.pieces) {
        ProtoMessage message;
        message.setBytes(field::kPiece, piece.piece);
        message.setFloat(field::kScore, piece.score);
        message.setInt(field::kType, static_cast<int64_t>(piece.kind));
        for (const auto& f : piece.extra.fields()) message.append(f);
        ProtoField f;
        f.number = field::kPieces;
        f.wireType = WireType::LengthDelimited;
        f.bytes = message.serialize();
        writeField(out, f);
    }
    ProtoField trainer{field::kTrainerSpec, WireType::LengthDelimited, 0, model.trainerSpec.serialize()};
    writeField(out, trainer);
    ProtoField normalizer{field::kNormalizerSpec, WireType::LengthDelimited, 0,
                          model.normalizerSpec.serialize()};
    writeField(out, normalizer);
    out += model.others.serialize();
    return out;
}

} // namespace hearth::spm
