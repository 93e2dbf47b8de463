// The malformed-file corpus CI replays: inputs are generated here from files made by our own
// writers (never from shared test data), then truncated at every byte, patched into each named
// corruption, and mutated at random with a fixed seed. Every parse must end in ok or in a
// Status whose message names the file; the named cases check the exact code and message.
#include <cstring>
#include <random>
#include <sys/resource.h>

#include <nlohmann/json.hpp>

#include "check.h"
#include "io/gguf.h"
#include "io/json_file.h"
#include "io/safetensors.h"

using namespace hearth;
using namespace hearth::io;

// Present when the ASan runtime is linked in (the engine may be instrumented while this file is not).
extern "C" __attribute__((weak)) void __asan_init();

namespace {

constexpr uint32_t kMutationSeed = 20240607;
constexpr int kMutations = 4000;

// ---- GGUF ---------------------------------------------------------------------------------

// Hand-assembled GGUF bytes, so that any field can hold any value.
struct Raw {
    std::string b;
    template <typename T>
    Raw& put(T v) {
        char bytes[sizeof(T)];
        std::memcpy(bytes, &v, sizeof(T));
        b.append(bytes, sizeof(T));
        return *this;
    }
    Raw& u32(uint32_t v) { return put(v); }
    Raw& u64(uint64_t v) { return put(v); }
    Raw& str(const std::string& s) {
        u64(s.size());
        b += s;
        return *this;
    }
    Raw& kvU32(const std::string& key, uint32_t v) { return str(key).u32(4).u32(v); }
    Raw& kvStr(const std::string& key, const std::string& v) { return str(key).u32(8).str(v); }
    Raw& tensor(const std::string& name, std::vector<uint64_t> ne, uint32_t type, uint64_t offset) {
        str(name).u32(static_cast<uint32_t>(ne.size()));
        for (uint64_t d : ne) u64(d);
        return u32(type).u64(offset);
    }
};

std::string gguf(uint32_t version, uint64_t tensorCount, uint64_t kvCount, const Raw& kvs, const Raw& tensors,
                 uint64_t alignment = 32, size_t dataBytes = 64) {
    Raw r;
    r.b = "GGUF";
    r.u32(version).u64(tensorCount).u64(kvCount);
    r.b += kvs.b;
    r.b += tensors.b;
    while (r.b.size() % alignment) r.b += '\0';
    r.b.append(dataBytes, '\x11');
    return r.b;
}

// One well-formed tensor of 16 F32 elements at offset 0 (64 bytes of data).
std::string ggufWithTensor(const Raw& tensor, const Raw& kvs = Raw().kvStr("general.architecture", "llama"),
                           uint64_t kvCount = 1) {
    return gguf(3, 1, kvCount, kvs, tensor);
}

Result<GgufFile> parseGguf(std::string bytes) {
    return GgufFile::parse(MappedFile::fromBuffer("model.gguf", std::move(bytes)));
}

// The small valid file everything else is derived from: several value types, an array, two
// tensors; the last tensor ends the file, so every truncation cuts into something required.
std::string validGguf() {
    GgufWriter w;
    w.set("general.architecture", GgufValue::string("llama"));
    w.set("general.alignment", GgufValue::u32(32));
    w.set("llama.block_count", GgufValue::u32(2));
    w.set("llama.rope.freq_base", GgufValue::f32(10000.f));
    w.set("tokenizer.ggml.add_bos_token", GgufValue::boolean(true));
    w.set("tokenizer.ggml.token_type", GgufValue::i32Array({1, 2, 3}));
    w.set("general.tags", GgufValue::stringArray({"a", "bc"}));
    std::vector<uint8_t> a(16, 0x3F), b(32, 0x7C);
    w.addTensor("a.weight", DType::F32, {4}, a);
    w.addTensor("b.weight", DType::F16, {8, 2}, b);
    auto bytes = w.serialize();
    return bytes.isOk() ? *bytes : std::string();
}

void checkAnyOutcome(const Status& status, const std::string& name, const char* what, size_t i) {
    if (status.isOk()) return;
    CHECK_MSG(status.message().rfind(name + ": ", 0) == 0 && status.message().size() > name.size() + 2,
              what << " " << i << ": message '" << status.message() << "' does not start with the name");
}

void testGgufTruncations() {
    const std::string valid = validGguf();
    CHECK(valid.size() > 200 && valid.size() < 1000);
    CHECK_OK(parseGguf(valid));
    for (size_t n = 0; n < valid.size(); ++n) {
        auto r = parseGguf(valid.substr(0, n));
        CHECK_MSG(!r.isOk(), "truncation at " << n << " was accepted");
        if (r.isOk()) continue;
        CHECK_MSG(r.status().code() == StatusCode::DataLoss, "truncation at " << n << ": " << r.status().message());
        checkAnyOutcome(r.status(), "model.gguf", "truncation", n);
    }
}

void testGgufNamedCases() {
    const std::string valid = validGguf();
    const Raw arch = Raw().kvStr("general.architecture", "llama");
    const Raw oneTensor = Raw().tensor("blk.0.attn_q.weight", {16}, 0, 0);

    std::string magic = valid;
    magic.replace(0, 4, "PK\x03\x04", 4);
    CHECK_ERR(parseGguf(magic), StatusCode::DataLoss, "model.gguf: not a GGUF file (magic 'PK\\x03\\x04')");
    CHECK_ERR(parseGguf("GG"), StatusCode::DataLoss, "model.gguf: not a GGUF file");
    CHECK_ERR(parseGguf(gguf(1, 0, 0, {}, {})), StatusCode::Unsupported, "model.gguf: GGUF version 1 is not supported");
    CHECK_ERR(parseGguf(gguf(4, 0, 0, {}, {})), StatusCode::Unsupported, "GGUF version 4");
    CHECK_ERR(parseGguf(gguf(0x03000000, 0, 0, {}, {})), StatusCode::Unsupported, "big-endian");
    CHECK_OK(parseGguf(gguf(2, 1, 1, arch, oneTensor)));

    CHECK_ERR(parseGguf(gguf(3, 1ull << 62, 1, arch, oneTensor)), StatusCode::DataLoss,
              "tensor count 4611686018427387904 cannot fit");
    CHECK_ERR(parseGguf(gguf(3, 1, 1ull << 62, arch, oneTensor)), StatusCode::DataLoss,
              "metadata count 4611686018427387904 cannot fit");
    CHECK_ERR(parseGguf(ggufWithTensor(oneTensor, Raw().str("general.name").u32(8).u64(1ull << 63))),
              StatusCode::DataLoss,
              "model.gguf: truncated: metadata key 'general.name' string length 9223372036854775808 exceeds the");
    CHECK_ERR(parseGguf(ggufWithTensor(oneTensor, Raw().str("tokenizer.ggml.tokens").u32(9).u32(8).u64(1ull << 60))),
              StatusCode::DataLoss, "metadata key 'tokenizer.ggml.tokens' array count 1152921504606846976");
    CHECK_ERR(parseGguf(ggufWithTensor(oneTensor, Raw().str("x").u32(9).u32(0).u64(~0ull))), StatusCode::DataLoss,
              "array count");

    // Arrays nested 8 deep are fine; 9 are refused.
    auto nested = [](int depth) {
        Raw r;
        r.str("nested").u32(9);
        for (int i = 1; i < depth; ++i) r.u32(9).u64(1);
        r.u32(4).u64(1).u32(7);
        return r;
    };
    CHECK_OK(parseGguf(ggufWithTensor(oneTensor, nested(8))));
    CHECK_ERR(parseGguf(ggufWithTensor(oneTensor, nested(9))), StatusCode::DataLoss,
              "metadata key 'nested' element 0 element 0 element 0 element 0 element 0 element 0 element 0 element 0 nests arrays deeper than 8");

    for (uint32_t bad : {0u, 3u, 4u, 7u, 12u, 24u, 131072u, 0xF6FF0020u}) {
        Raw kvs = Raw().kvU32("general.alignment", bad);
        CHECK_ERR(parseGguf(ggufWithTensor(oneTensor, kvs)), StatusCode::DataLoss,
                  "general.alignment " + std::to_string(bad) + " is not a power of two from 8 to 65536");
    }
    CHECK_ERR(parseGguf(ggufWithTensor(oneTensor, Raw().kvStr("general.alignment", "32"))), StatusCode::DataLoss,
              "'general.alignment' must be a u32, got string");
    // A custom alignment is honoured.
    CHECK_OK(parseGguf(gguf(3, 1, 1, Raw().kvU32("general.alignment", 64), oneTensor, 64)));

    CHECK_ERR(parseGguf(ggufWithTensor(Raw().tensor("blk.0.attn_q.weight", {4}, 0, 4))), StatusCode::DataLoss,
              "tensor blk.0.attn_q.weight offset 4 is not a multiple of the alignment 32");
    CHECK_ERR(parseGguf(ggufWithTensor(Raw().tensor("blk.0.attn_q.weight", {16}, 0, 32))), StatusCode::DataLoss,
              "tensor blk.0.attn_q.weight data (64 bytes at offset 32");
    CHECK_ERR(parseGguf(ggufWithTensor(Raw().tensor("w", {16}, 0, ~0ull - 31))), StatusCode::DataLoss,
              "extends past the end of the file");
    CHECK_ERR(parseGguf(ggufWithTensor(Raw().tensor("blk.0.attn_q.weight", {16}, 99, 0))), StatusCode::Unsupported,
              "model.gguf: tensor blk.0.attn_q.weight has unknown type id 99");
    CHECK_ERR(parseGguf(ggufWithTensor(Raw().tensor("w", {16, 0}, 0, 0))), StatusCode::DataLoss,
              "tensor w has dimension 1 equal to 0");
    CHECK_ERR(parseGguf(ggufWithTensor(Raw().tensor("w", {1, 1, 1, 1, 16}, 0, 0))), StatusCode::DataLoss,
              "tensor w has 5 dimensions (1 to 4 allowed)");
    CHECK_ERR(parseGguf(ggufWithTensor(Raw().str("w").u32(0).u32(0).u64(0))), StatusCode::DataLoss,
              "tensor w has 0 dimensions");
    CHECK_ERR(parseGguf(ggufWithTensor(Raw().tensor("w", {1ull << 32, 1ull << 32}, 0, 0))), StatusCode::DataLoss,
              "tensor w has too many elements");
    CHECK_ERR(parseGguf(ggufWithTensor(Raw().tensor("w", {1ull << 62, 2}, 8, 0))), StatusCode::DataLoss,
              "tensor w has too many elements");
    // Elements fit in int64 but bytes would not (F32: 4 bytes each).
    CHECK_ERR(parseGguf(ggufWithTensor(Raw().tensor("w", {1ull << 31, 1ull << 31}, 0, 0))), StatusCode::DataLoss,
              "tensor w size overflows");
    CHECK_ERR(parseGguf(ggufWithTensor(Raw().tensor("w", {100}, 12, 0))), StatusCode::DataLoss,
              "tensor w has rows of 100 elements, not a multiple of the Q4_K block size 256");
    CHECK_ERR(parseGguf(gguf(3, 2, 1, arch, Raw().tensor("w", {4}, 0, 0).tensor("w", {4}, 0, 32))),
              StatusCode::DataLoss, "duplicate tensor name 'w'");
    CHECK_ERR(parseGguf(gguf(3, 1, 2, Raw().kvU32("k", 1).kvU32("k", 2), oneTensor)), StatusCode::DataLoss,
              "duplicate metadata key 'k'");
    CHECK_ERR(parseGguf(ggufWithTensor(oneTensor, Raw().str("flag").u32(7).put<uint8_t>(2))), StatusCode::DataLoss,
              "metadata key 'flag' bool value is 2");
    CHECK_ERR(parseGguf(ggufWithTensor(oneTensor, Raw().str("odd").u32(13).u32(0))), StatusCode::DataLoss,
              "metadata key 'odd' has unknown value type 13");
    CHECK_ERR(parseGguf(ggufWithTensor(oneTensor, Raw().str("arr").u32(9).u32(42).u64(0))), StatusCode::DataLoss,
              "array has unknown element type 42");
    CHECK_ERR(parseGguf(ggufWithTensor(oneTensor, Raw().str("").u32(4).u32(1))), StatusCode::DataLoss,
              "metadata entry #0 has an empty key");
    CHECK_ERR(parseGguf(ggufWithTensor(oneTensor, Raw().kvU32(std::string(70000, 'k'), 1))), StatusCode::DataLoss,
              "metadata entry #0 key length 70000 exceeds the limit of 65535");
    CHECK_ERR(parseGguf(ggufWithTensor(Raw().tensor(std::string(300, 'n'), {16}, 0, 0))), StatusCode::DataLoss,
              "tensor #0 name length 300 exceeds the limit of 256");
    CHECK_OK(parseGguf(ggufWithTensor(Raw().tensor(std::string(200, 'n'), {16}, 0, 0))));
    // Control bytes in a name are escaped in the message.
    CHECK_ERR(parseGguf(ggufWithTensor(Raw().tensor("a\nb", {16}, 99, 0))), StatusCode::Unsupported,
              "tensor a\\x0Ab has unknown type id 99");
}

// ---- safetensors -------------------------------------------------------------------------

std::string safetensors(const std::string& headerJson, size_t dataBytes, bool pad = true) {
    std::string text = headerJson;
    while (pad && text.size() % 8) text += ' ';
    std::string out(8, '\0');
    uint64_t n = text.size();
    std::memcpy(out.data(), &n, 8);
    return out + text + std::string(dataBytes, '\x22');
}

std::string validSafetensors() {
    return safetensors(R"({"__metadata__":{"format":"pt"},)"
                       R"("a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},)"
                       R"("b":{"dtype":"BF16","shape":[4],"data_offsets":[16,24]}})",
                       24);
}

Result<SafetensorsModel> parseSt(std::string bytes) {
    return SafetensorsModel::parse(MappedFile::fromBuffer("model.safetensors", std::move(bytes)));
}

std::string oneTensorSt(const std::string& entry, size_t dataBytes = 16) {
    return safetensors("{\"t\":" + entry + "}", dataBytes);
}

void testSafetensors() {
    const std::string valid = validSafetensors();
    CHECK_OK(parseSt(valid));
    for (size_t n = 0; n < valid.size(); ++n) {
        auto r = parseSt(valid.substr(0, n));
        CHECK_MSG(!r.isOk(), "truncation at " << n << " was accepted");
        if (r.isOk()) continue;
        CHECK_MSG(r.status().code() == StatusCode::DataLoss, "truncation at " << n << ": " << r.status().message());
        checkAnyOutcome(r.status(), "model.safetensors", "truncation", n);
    }

    std::string huge = valid;
    uint64_t big = 1ull << 40;
    std::memcpy(huge.data(), &big, 8);
    CHECK_ERR(parseSt(huge), StatusCode::DataLoss, "model.safetensors: truncated: header length 1099511627776 exceeds");
    CHECK_ERR(parseSt(safetensors("{\"t\": {\"dtype\": ", 0)), StatusCode::DataLoss,
              "model.safetensors: invalid JSON header at byte");
    CHECK_ERR(parseSt(safetensors("[1, 2]", 0)), StatusCode::DataLoss, "not an object");
    CHECK_ERR(parseSt(oneTensorSt(R"({"dtype":"I64","shape":[2],"data_offsets":[0,16]})")), StatusCode::Unsupported,
              "model.safetensors: tensor 't' has dtype I64, which is not supported");
    CHECK_ERR(parseSt(oneTensorSt(R"({"dtype":"F8_E4M3","shape":[16],"data_offsets":[0,16]})")),
              StatusCode::Unsupported, "tensor 't' has dtype F8_E4M3");
    CHECK_ERR(parseSt(oneTensorSt(R"({"dtype":"Q9","shape":[16],"data_offsets":[0,16]})")), StatusCode::DataLoss,
              "tensor 't' has unknown dtype 'Q9'");
    CHECK_ERR(parseSt(oneTensorSt(R"({"dtype":"F32","shape":[4],"data_offsets":[0,32]})")), StatusCode::DataLoss,
              "truncated: tensor 't' data_offsets [0, 32) extend past the 16-byte data section");
    CHECK_ERR(parseSt(oneTensorSt(R"({"dtype":"F32","shape":[3],"data_offsets":[0,16]})")), StatusCode::DataLoss,
              "tensor 't' has 16 bytes of data, but dtype F32 and its shape need 12");
    CHECK_ERR(parseSt(oneTensorSt(R"({"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,16]})")),
              StatusCode::DataLoss, "tensor 't' shape overflows");
    CHECK_ERR(parseSt(oneTensorSt(R"({"dtype":"F32","shape":[-4],"data_offsets":[0,16]})")), StatusCode::DataLoss,
              "not a non-negative integer");
    CHECK_ERR(parseSt(oneTensorSt(R"({"dtype":"F32","shape":[4],"data_offsets":[16,0]})")), StatusCode::DataLoss,
              "data_offsets that are not an ordered pair");
    CHECK_ERR(parseSt(oneTensorSt(R"({"dtype":"F32","shape":[4]})")), StatusCode::DataLoss, "no data_offsets pair");
    CHECK_ERR(parseSt(oneTensorSt(R"({"shape":[4],"data_offsets":[0,16]})")), StatusCode::DataLoss, "no dtype");
    CHECK_ERR(parseSt(oneTensorSt("7")), StatusCode::DataLoss, "tensor 't' is not a JSON object");
    CHECK_ERR(parseSt(safetensors(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                                  R"("b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
                                  16)),
              StatusCode::DataLoss, "tensors 'a' and 'b' overlap");
    CHECK_ERR(parseSt(safetensors(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                                  R"("a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})",
                                  16)),
              StatusCode::DataLoss, "duplicate tensor name 'a'");
    CHECK_ERR(parseSt(safetensors(R"({"__metadata__":{"format":3}})", 0)), StatusCode::DataLoss,
              "__metadata__ entry 'format' is not a string");
    // Nested objects may reuse a top-level key without being duplicates.
    CHECK_OK(parseSt(safetensors(R"({"__metadata__":{"t":"x"},"t":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 16)));
    // Empty tensors never overlap; unpadded headers are accepted.
    CHECK_OK(parseSt(safetensors(R"({"e":{"dtype":"F16","shape":[0],"data_offsets":[0,0]},)"
                                 R"("a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})",
                                 16, false)));
}

// ---- config.json -------------------------------------------------------------------------

std::string validConfig() {
    nlohmann::json j = {{"architectures", {"LlamaForCausalLM"}}, {"hidden_size", 64}, {"rms_norm_eps", 1e-5},
                        {"rope_scaling", nullptr}, {"tie_word_embeddings", true}, {"model_type", "llama"}};
    return j.dump(); // no trailing whitespace: every proper prefix is invalid JSON
}

void testConfigJson() {
    const std::string valid = validConfig();
    CHECK_OK(parseJson(valid, "config.json"));
    for (size_t n = 0; n < valid.size(); ++n) {
        auto r = parseJson(valid.substr(0, n), "config.json");
        CHECK_MSG(!r.isOk(), "truncation at " << n << " was accepted");
        if (r.isOk()) continue;
        CHECK_MSG(r.status().code() == StatusCode::DataLoss, r.status().message());
        CHECK_MSG(r.status().message().rfind("config.json: invalid JSON at byte ", 0) == 0, r.status().message());
    }
    CHECK_ERR(parseJson(std::string(100000, '['), "config.json"), StatusCode::DataLoss, "config.json: invalid JSON");
}

// ---- random mutations --------------------------------------------------------------------

template <typename Parse>
void mutate(const std::string& valid, const std::string& name, Parse parse) {
    std::mt19937 rng(kMutationSeed);
    int accepted = 0;
    for (int i = 0; i < kMutations; ++i) {
        std::string bytes = valid;
        int flips = 1 + static_cast<int>(rng() % 4);
        for (int f = 0; f < flips; ++f) {
            size_t at = rng() % bytes.size();
            switch (rng() % 3) {
            case 0: bytes[at] = static_cast<char>(bytes[at] ^ (1u << (rng() % 8))); break;
            case 1: bytes[at] = static_cast<char>(rng()); break;
            default: bytes[at] = static_cast<char>((rng() % 2) ? 0xFF : 0x00); break;
            }
        }
        if (rng() % 8 == 0) bytes.resize(rng() % bytes.size());
        auto r = parse(bytes);
        if (r.isOk()) {
            ++accepted;
            continue;
        }
        checkAnyOutcome(r.status(), name, "mutation", static_cast<size_t>(i));
    }
    std::printf("%s: %d of %d mutations parsed\n", name.c_str(), accepted, kMutations);
}

void testMutations() {
    mutate(validGguf(), "model.gguf", [](const std::string& b) { return parseGguf(b); });
    mutate(validSafetensors(), "model.safetensors", [](const std::string& b) { return parseSt(b); });
    mutate(validConfig(), "config.json", [](const std::string& b) { return parseJson(b, "config.json"); });
}

// Any allocation driven by an unchecked count would hit this ceiling and end the test.
// ASan reserves huge address ranges, so the limit is left off under it.
void limitAddressSpace() {
    if (__asan_init != nullptr) return;
    rlimit limit{4ull << 30, 4ull << 30};
    setrlimit(RLIMIT_AS, &limit);
}

} // namespace

int main() {
    hearth::test::announce("malformed_files", "cpu");
    limitAddressSpace();
    testGgufTruncations();
    testGgufNamedCases();
    testSafetensors();
    testConfigJson();
    testMutations();
    return hearth::test::finish();
}
