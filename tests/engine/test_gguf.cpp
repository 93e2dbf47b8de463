// GGUF writer/reader: every value type round trip, tensors of several types with a custom
// alignment, typed getters, the real stories260K file (read and rewrite bit for bit), atomic write.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "check.h"
#include "io/gguf.h"
#include "testdata.h"

using namespace hearth;
using namespace hearth::io;
namespace fs = std::filesystem;

namespace {

GgufValue make(GgufValueType type, std::variant<uint64_t, int64_t, double, bool, std::string, std::vector<GgufValue>> data) {
    GgufValue v;
    v.type = type;
    v.data = std::move(data);
    return v;
}

// Deep equality; doubles compared bit for bit (so -0.0 and NaN payloads count).
bool sameValue(const GgufValue& a, const GgufValue& b) {
    if (a.type != b.type) return false;
    if (a.type == GgufValueType::Array) {
        if (a.elementType != b.elementType) return false;
        const auto* x = a.asArray();
        const auto* y = b.asArray();
        if (!x || !y || x->size() != y->size()) return false;
        for (size_t i = 0; i < x->size(); ++i)
            if (!sameValue((*x)[i], (*y)[i])) return false;
        return true;
    }
    const double* da = std::get_if<double>(&a.data);
    const double* db = std::get_if<double>(&b.data);
    if (da && db) return std::memcmp(da, db, sizeof(double)) == 0;
    if (a.asString() || b.asString()) return a.asString() && b.asString() && *a.asString() == *b.asString();
    if (a.asBool() || b.asBool()) return a.asBool() == b.asBool();
    return a.data.index() == b.data.index() && a.asInt() == b.asInt() && a.asUInt() == b.asUInt();
}

// check.h's CHECK_OK/CHECK_ERR take a Result; wrap a plain Status.
Result<int> st(Status s) {
    if (s.isOk()) return 0;
    return s;
}

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 7);
    return v;
}

std::string readBytes(const fs::path& p) { return hearth::test::readTextFile(p); }

using Metadata = std::vector<std::pair<std::string, GgufValue>>;

Metadata everyTypeMetadata() {
    using T = GgufValueType;
    Metadata m;
    struct Adder {
        Metadata& m;
        void set(const std::string& k, GgufValue v) { m.emplace_back(k, std::move(v)); }
    } w{m};
    w.set("general.architecture", GgufValue::string("llama"));
    w.set("general.alignment", GgufValue::u32(64));
    w.set("t.u8", make(T::U8, uint64_t(255)));
    w.set("t.i8", make(T::I8, int64_t(-128)));
    w.set("t.u16", make(T::U16, uint64_t(65535)));
    w.set("t.i16", make(T::I16, int64_t(-32768)));
    w.set("t.u32", GgufValue::u32(4000000000u));
    w.set("t.i32", GgufValue::i32(-2000000000));
    w.set("t.u64", GgufValue::u64(std::numeric_limits<uint64_t>::max()));
    w.set("t.i64", make(T::I64, std::numeric_limits<int64_t>::min()));
    w.set("t.f32", GgufValue::f32(-1.5e-7f));
    w.set("t.f32_negzero", GgufValue::f32(-0.0f));
    w.set("t.f32_inf", GgufValue::f32(std::numeric_limits<float>::infinity()));
    w.set("t.f64", make(T::F64, 3.141592653589793));
    w.set("t.bool_true", GgufValue::boolean(true));
    w.set("t.bool_false", GgufValue::boolean(false));
    w.set("t.string", GgufValue::string("hello"));
    w.set("t.empty_string", GgufValue::string(""));
    w.set("t.unicode", GgufValue::string("h\xC3\xA9llo \xE4\xB8\x96\xE7\x95\x8C \xF0\x9F\xA6\x99"));
    w.set("t.arr_u8", GgufValue::array(T::U8, {make(T::U8, uint64_t(1)), make(T::U8, uint64_t(200))}));
    w.set("t.arr_i8", GgufValue::array(T::I8, {make(T::I8, int64_t(-1)), make(T::I8, int64_t(127))}));
    w.set("t.arr_u16", GgufValue::array(T::U16, {make(T::U16, uint64_t(7))}));
    w.set("t.arr_i16", GgufValue::array(T::I16, {make(T::I16, int64_t(-7)), make(T::I16, int64_t(8))}));
    w.set("t.arr_u32", GgufValue::array(T::U32, {GgufValue::u32(1), GgufValue::u32(2), GgufValue::u32(3)}));
    w.set("t.arr_i32", GgufValue::i32Array({-1, 0, 1, 2147483647}));
    w.set("t.arr_f32", GgufValue::f32Array({0.5f, -2.25f, 1e30f}));
    w.set("t.arr_bool", GgufValue::array(T::Bool, {GgufValue::boolean(true), GgufValue::boolean(false)}));
    w.set("t.arr_string", GgufValue::stringArray({"a", "", "\xE2\x96\x81the", "<0x0A>"}));
    w.set("t.arr_u64", GgufValue::array(T::U64, {GgufValue::u64(1ull << 40)}));
    w.set("t.arr_i64", GgufValue::array(T::I64, {make(T::I64, int64_t(-5))}));
    w.set("t.arr_f64", GgufValue::array(T::F64, {make(T::F64, 1e-300), make(T::F64, -0.0)}));
    w.set("t.arr_empty", GgufValue::array(T::U32, {}));
    w.set("t.arr_empty_string", GgufValue::array(T::String, {}));
    w.set("t.arr_nested",
          GgufValue::array(T::Array, {GgufValue::array(T::U32, {GgufValue::u32(1), GgufValue::u32(2)}),
                                      GgufValue::array(T::U32, {}),
                                      GgufValue::array(T::String, {GgufValue::string("x")})}));
    w.set("t.arr_nested3",
          GgufValue::array(T::Array, {GgufValue::array(T::Array, {GgufValue::i32Array({-3})})}));
    w.set("t.replaced", GgufValue::string("second"));
    return m;
}

GgufWriter everyTypeWriter() {
    GgufWriter w;
    for (const auto& [k, v] : everyTypeMetadata()) {
        if (k == "t.replaced") w.set(k, GgufValue::u32(1)); // replaced below, keeping its position
        else w.set(k, v);
    }
    w.set("t.replaced", GgufValue::string("second"));
    w.addTensor("f32.weight", DType::F32, {3, 2}, pattern(24, 1));
    w.addTensor("f16.weight", DType::F16, {5}, pattern(10, 2));
    w.addTensor("q4k.weight", DType::Q4_K, {256, 2}, pattern(288, 3));
    w.addTensor("q8.weight", DType::Q8_0, {32, 3, 1, 2}, pattern(34 * 6, 4));
    return w;
}

void testEveryTypeRoundTrip(const fs::path& scratch) {
    GgufWriter w = everyTypeWriter();
    auto bytes = w.serialize();
    CHECK_OK(bytes);
    if (!bytes.isOk()) return;
    auto parsed = GgufFile::parse(MappedFile::fromBuffer("roundtrip.gguf", *bytes));
    CHECK_OK(parsed);
    if (!parsed.isOk()) return;
    const GgufFile& f = *parsed;
    CHECK_EQ(f.version(), 3u);
    CHECK_EQ(f.alignment(), 64u);
    CHECK_EQ(f.dataOffset() % 64, 0u);
    CHECK_EQ(f.path(), std::string("roundtrip.gguf"));

    // Every value equals its source, type and bits included, in the same order.
    const Metadata source = everyTypeMetadata();
    CHECK_EQ(f.metadata().size(), source.size());
    for (size_t i = 0; i < source.size() && i < f.metadata().size(); ++i) {
        CHECK_EQ(f.metadata()[i].first, source[i].first);
        CHECK_MSG(sameValue(f.metadata()[i].second, source[i].second), source[i].first);
    }
    CHECK_EQ(f.metadata().size(), 36u);
    CHECK_EQ(f.metadata()[2].first, std::string("t.u8"));
    CHECK_EQ(*f.getUInt("t.u8"), 255u);
    CHECK_EQ(f.find("t.i8")->asInt().value(), -128);
    CHECK_EQ(*f.getUInt("t.u16"), 65535u);
    CHECK_EQ(f.find("t.i16")->asInt().value(), -32768);
    CHECK_EQ(*f.getUInt("t.u32"), 4000000000u);
    CHECK_EQ(f.find("t.i32")->asInt().value(), -2000000000);
    CHECK_EQ(*f.getUInt("t.u64"), std::numeric_limits<uint64_t>::max());
    CHECK_EQ(f.find("t.i64")->asInt().value(), std::numeric_limits<int64_t>::min());
    CHECK_EQ(*f.getFloat("t.f32"), double(-1.5e-7f));
    CHECK(std::signbit(*f.getFloat("t.f32_negzero")));
    CHECK(std::isinf(*f.getFloat("t.f32_inf")));
    CHECK_EQ(*f.getFloat("t.f64"), 3.141592653589793);
    CHECK_EQ(*f.getBool("t.bool_true"), true);
    CHECK_EQ(*f.getBool("t.bool_false"), false);
    CHECK_EQ(*f.getString("t.string"), std::string("hello"));
    CHECK_EQ(*f.getString("t.empty_string"), std::string(""));
    CHECK_EQ(*f.getString("t.unicode"), std::string("h\xC3\xA9llo \xE4\xB8\x96\xE7\x95\x8C \xF0\x9F\xA6\x99"));
    CHECK_EQ(*f.getString("t.replaced"), std::string("second"));
    CHECK_EQ(f.metadata().back().first, std::string("t.replaced"));
    const GgufValue* strings = f.find("t.arr_string");
    CHECK(strings && strings->elementType == GgufValueType::String && strings->asArray()->size() == 4);
    if (strings) CHECK_EQ(*(*strings->asArray())[2].asString(), std::string("\xE2\x96\x81the"));
    const GgufValue* nested = f.find("t.arr_nested");
    CHECK(nested && nested->elementType == GgufValueType::Array && nested->asArray()->size() == 3);
    if (nested) {
        CHECK((*nested->asArray())[1].asArray()->empty());
        CHECK((*nested->asArray())[2].elementType == GgufValueType::String);
    }
    CHECK(f.find("t.arr_empty") && f.find("t.arr_empty")->asArray()->empty());
    const GgufValue* deep = f.find("t.arr_nested3");
    CHECK(deep && (*(*deep->asArray())[0].asArray())[0].asArray()->at(0).asInt() == -3);

    // Tensors: types, shapes, offsets aligned, data intact.
    CHECK_EQ(f.tensors().size(), 4u);
    struct Want { const char* name; DType type; std::vector<uint64_t> ne; size_t bytes; uint8_t seed; };
    const Want wants[] = {{"f32.weight", DType::F32, {3, 2}, 24, 1},
                          {"f16.weight", DType::F16, {5}, 10, 2},
                          {"q4k.weight", DType::Q4_K, {256, 2}, 288, 3},
                          {"q8.weight", DType::Q8_0, {32, 3, 1, 2}, 204, 4}};
    for (const Want& want : wants) {
        const GgufTensorInfo* t = f.findTensor(want.name);
        CHECK_MSG(t != nullptr, want.name);
        if (!t) continue;
        CHECK(t->type == want.type);
        CHECK(t->ne == want.ne);
        CHECK_EQ(t->bytes, want.bytes);
        CHECK_EQ(t->offset % 64, 0u);
        CHECK(std::memcmp(t->data, pattern(want.bytes, want.seed).data(), want.bytes) == 0);
    }
    CHECK_EQ(f.findTensor("q8.weight")->elements(), 192u);
    CHECK(f.findTensor("missing") == nullptr);

    // Rewriting everything that was read gives the same bytes.
    GgufWriter again;
    for (const auto& [k, v] : f.metadata()) again.set(k, v);
    for (const auto& t : f.tensors()) again.addTensorView(t.name, t.type, t.ne, t.data, t.bytes);
    auto rewritten = again.serialize();
    CHECK_OK(rewritten);
    CHECK(rewritten.isOk() && *rewritten == *bytes);

    // write() produces the same bytes on disk, with no .part left behind.
    fs::path out = scratch / "every.gguf";
    CHECK_OK(st(w.write(out.string())));
    CHECK(readBytes(out) == *bytes);
    CHECK(!fs::exists(out.string() + ".part"));
    auto opened = GgufFile::open(out.string());
    CHECK_OK(opened);
    if (opened.isOk()) CHECK_EQ(opened->path(), out.string());
}

void testGetters() {
    GgufWriter w = everyTypeWriter();
    auto f = GgufFile::parse(MappedFile::fromBuffer("model.gguf", *w.serialize()));
    CHECK_OK(f);
    if (!f.isOk()) return;
    CHECK_ERR(f->getUInt("llama.block_count"), StatusCode::NotFound, "model.gguf: key llama.block_count");
    CHECK_ERR(f->getUInt("t.string"), StatusCode::DataLoss,
              "model.gguf: key t.string: expected an unsigned integer, got string");
    CHECK_ERR(f->getUInt("t.i32"), StatusCode::DataLoss, "got i32 -2000000000");
    CHECK_ERR(f->getUInt("t.f32"), StatusCode::DataLoss, "got f32");
    CHECK_ERR(f->getUInt("t.bool_true"), StatusCode::DataLoss, "got bool");
    CHECK_ERR(f->getFloat("t.string"), StatusCode::DataLoss, "expected a number");
    CHECK_ERR(f->getString("t.u32"), StatusCode::DataLoss, "key t.u32: expected a string, got u32");
    CHECK_ERR(f->getBool("t.u8"), StatusCode::DataLoss, "expected a bool, got u8");
    CHECK_ERR(f->getString("t.arr_string"), StatusCode::DataLoss, "got array of string");
    CHECK_ERR(f->getBool("nope"), StatusCode::NotFound, "nope");
    CHECK_EQ(*f->getFloat("t.u32"), 4000000000.0); // integers convert to float
    CHECK_ERR(f->getUInt("t.arr_u8"), StatusCode::DataLoss, "got array of u8");
}

void testRealFile(const fs::path& scratch) {
    fs::path path = hearth::test::requireTestData("models/stories260K/stories260K-f32.gguf");
    auto opened = GgufFile::open(path.string());
    CHECK_OK(opened);
    if (!opened.isOk()) return;
    const GgufFile& f = *opened;
    CHECK_EQ(f.version(), 3u);
    CHECK_EQ(f.metadata().size(), 25u);
    CHECK_EQ(f.tensors().size(), 47u);
    CHECK_EQ(f.alignment(), 32u);
    CHECK_EQ(*f.getString("general.architecture"), std::string("llama"));
    CHECK_EQ(*f.getUInt("llama.block_count"), 5u);
    CHECK_EQ(f.find("tokenizer.ggml.tokens")->asArray()->size(), 512u);
    const GgufTensorInfo* emb = f.findTensor("token_embd.weight");
    CHECK(emb != nullptr);
    if (emb) {
        CHECK(emb->type == DType::F32);
        CHECK((emb->ne == std::vector<uint64_t>{64, 512}));
        CHECK_EQ(emb->bytes, 64u * 512u * 4u);
    }

    GgufWriter w;
    for (const auto& [k, v] : f.metadata()) w.set(k, v);
    for (const auto& t : f.tensors()) w.addTensorView(t.name, t.type, t.ne, t.data, t.bytes);
    auto bytes = w.serialize();
    CHECK_OK(bytes);
    const std::string original(reinterpret_cast<const char*>(f.mapping()->data()), f.mapping()->size());
    CHECK_MSG(bytes.isOk() && *bytes == original, "rewrite of stories260K is not bit-identical");
    fs::path out = scratch / "stories-rewrite.gguf";
    CHECK_OK(st(w.write(out.string())));
    CHECK_MSG(readBytes(out) == original, "written stories260K differs");
}

void testAtomicWriteAndErrors(const fs::path& scratch) {
    GgufWriter w = everyTypeWriter();
    fs::path missingDir = scratch / "no-such-dir" / "x.gguf";
    // The message names the path asked for and the missing folder, not the .part beside it.
    CHECK_ERR(st(w.write(missingDir.string())), StatusCode::InvalidArgument,
              missingDir.string() + ": cannot create: the folder " + missingDir.parent_path().string() + " does not exist");
    CHECK(!fs::exists(missingDir));
    CHECK(!fs::exists(missingDir.string() + ".part"));

    // An inconsistent tensor is refused before anything is created.
    GgufWriter bad;
    bad.addTensor("w", DType::F32, {4}, std::vector<uint8_t>(15));
    fs::path badPath = scratch / "bad.gguf";
    CHECK_ERR(st(bad.write(badPath.string())), StatusCode::InvalidArgument, "tensor w has 15 bytes");
    CHECK(!fs::exists(badPath));
    CHECK(!fs::exists(badPath.string() + ".part"));

    // Writing into a path whose final rename cannot happen (a folder in the way).
    fs::path folderTarget = scratch / "folder.gguf";
    fs::create_directories(folderTarget / "inside");
    CHECK_ERR(st(w.write(folderTarget.string())), StatusCode::Internal, "rename");
    CHECK(!fs::exists(folderTarget.string() + ".part"));

    GgufWriter q;
    q.addTensor("q", DType::Q4_K, {100}, std::vector<uint8_t>(144));
    CHECK_ERR(q.serialize(), StatusCode::InvalidArgument, "not a multiple of the Q4_K block size 256");
    GgufWriter mixed;
    mixed.set("k", GgufValue::array(GgufValueType::U32, {GgufValue::string("no")}));
    CHECK_ERR(mixed.serialize(), StatusCode::InvalidArgument, "array element 0 is string");
    GgufWriter range;
    range.set("k", make(GgufValueType::U8, uint64_t(300)));
    CHECK_ERR(range.serialize(), StatusCode::InvalidArgument, "GGUF key k");
    GgufWriter align;
    align.set("general.alignment", GgufValue::u32(12));
    CHECK_ERR(align.serialize(), StatusCode::InvalidArgument, "general.alignment");
    GgufWriter dup;
    dup.addTensor("a", DType::F32, {1}, std::vector<uint8_t>(4));
    dup.addTensor("a", DType::F32, {1}, std::vector<uint8_t>(4));
    CHECK_ERR(dup.serialize(), StatusCode::InvalidArgument, "tensor a is added twice");

    // Files that are not there, folders, empty files.
    CHECK_ERR(GgufFile::open((scratch / "missing.gguf").string()), StatusCode::NotFound, "missing.gguf");
    CHECK_ERR(GgufFile::open(scratch.string()), StatusCode::InvalidArgument, "is a directory");
    fs::path empty = scratch / "empty.gguf";
    std::ofstream(empty).close();
    auto mapped = MappedFile::open(empty.string());
    CHECK_OK(mapped);
    if (mapped.isOk()) {
        CHECK_EQ((*mapped)->size(), 0u);
        CHECK((*mapped)->data() == nullptr);
    }
    CHECK_ERR(GgufFile::open(empty.string()), StatusCode::DataLoss, "empty.gguf: not a GGUF file");

    // A file with no tensors and no metadata is valid.
    GgufWriter none;
    auto noneBytes = none.serialize();
    CHECK_OK(noneBytes);
    CHECK_OK(GgufFile::parse(MappedFile::fromBuffer("none.gguf", *noneBytes)));
}

// general.alignment must be a power of two from 8 to 64 KiB. A fuzzed file carried 0xF6FF0020,
// which the reader took (a multiple of 8) and the writer then padded with 4 GB of zeros.
void testAlignmentBounds() {
    const auto withAlignment = [](uint32_t alignment) {
        GgufWriter w;
        w.set("general.alignment", GgufValue::u32(alignment));
        w.addTensor("w", DType::F32, {3}, pattern(12, 5));
        return w;
    };
    for (uint32_t good : {8u, 4096u, 65536u}) {
        auto bytes = withAlignment(good).serialize();
        CHECK_OK(bytes);
        if (!bytes.isOk()) continue;
        CHECK_EQ(bytes->size() % good, 0u);
        auto f = GgufFile::parse(MappedFile::fromBuffer("good.gguf", *bytes));
        CHECK_OK(f);
        if (f.isOk()) CHECK_EQ(f->alignment(), uint64_t(good));
    }
    auto valid = withAlignment(32).serialize();
    CHECK_OK(valid);
    if (!valid.isOk()) return;
    const std::string key = "general.alignment";
    const size_t keyAt = valid->find(key);
    CHECK(keyAt != std::string::npos);
    if (keyAt == std::string::npos) return;
    for (uint32_t bad : {24u, 131072u, 0xF6FF0020u}) {
        CHECK_ERR(withAlignment(bad).serialize(), StatusCode::InvalidArgument,
                  "general.alignment must be a u32, a power of two from 8 to 65536");
        // The reader sees the same value patched into a valid file (key, u32 type id, value).
        std::string patched = *valid;
        std::memcpy(patched.data() + keyAt + key.size() + 4, &bad, 4);
        CHECK_ERR(GgufFile::parse(MappedFile::fromBuffer("bad.gguf", patched)), StatusCode::DataLoss,
                  "bad.gguf: general.alignment " + std::to_string(bad) + " is not a power of two from 8 to 65536");
    }
}

} // namespace

int main() {
    hearth::test::announce("gguf", "cpu");
    fs::path scratch = hearth::test::scratchDir("gguf");
    testEveryTypeRoundTrip(scratch);
    testGetters();
    testAtomicWriteAndErrors(scratch);
    testAlignmentBounds();
    testRealFile(scratch); // last: exits 77 when the test data is missing
    return hearth::test::finish();
}
