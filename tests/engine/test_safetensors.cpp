// safetensors: single files and sharded folders built here with a tiny writer, F32/F16/BF16
// shapes and data, folder fallbacks and errors, the real stories260K export, and JSON files.
#include <cstring>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "check.h"
#include "io/json_file.h"
#include "io/safetensors.h"
#include "testdata.h"

using namespace hearth;
using namespace hearth::io;
namespace fs = std::filesystem;

namespace {

struct Entry {
    std::string name;
    std::string dtype;
    std::vector<uint64_t> shape;
    std::vector<uint8_t> bytes;
};

// The format: u64 LE header length, JSON header padded with spaces to a multiple of 8, data.
std::string buildSafetensors(const std::vector<Entry>& entries, const nlohmann::json& metadata = nullptr) {
    nlohmann::json header = nlohmann::json::object();
    if (!metadata.is_null()) header["__metadata__"] = metadata;
    std::string data;
    for (const Entry& e : entries) {
        header[e.name] = {{"dtype", e.dtype}, {"shape", e.shape}, {"data_offsets", {data.size(), data.size() + e.bytes.size()}}};
        data.append(reinterpret_cast<const char*>(e.bytes.data()), e.bytes.size());
    }
    std::string text = header.dump();
    while (text.size() % 8) text += ' ';
    std::string out(8, '\0');
    uint64_t n = text.size();
    std::memcpy(out.data(), &n, 8);
    return out + text + data;
}

void writeFile(const fs::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

template <typename T>
std::vector<uint8_t> bytesOf(const std::vector<T>& values) {
    std::vector<uint8_t> out(values.size() * sizeof(T));
    std::memcpy(out.data(), values.data(), out.size());
    return out;
}

const std::vector<float> kF32 = {1.f, -2.f, 3.5f, 0.f, 1e-3f, 42.f};
const std::vector<uint16_t> kF16 = {0x3C00, 0xC000, 0x0000, 0x7BFF};   // 1, -2, 0, 65504
const std::vector<uint16_t> kBF16 = {0x3F80, 0x4000, 0xBF80, 0x0000}; // 1, 2, -1, 0

std::vector<Entry> sampleEntries() {
    return {{"a.weight", "F32", {2, 3}, bytesOf(kF32)},
            {"b.weight", "F16", {4}, bytesOf(kF16)},
            {"c.weight", "BF16", {2, 2}, bytesOf(kBF16)},
            {"scalar", "F32", {}, bytesOf(std::vector<float>{7.f})},
            {"empty", "F32", {0, 4}, {}}};
}

void checkSample(const SafetensorsModel& m, bool withScalarAndEmpty) {
    const SafetensorsTensor* a = m.find("a.weight");
    CHECK(a != nullptr);
    if (a) {
        CHECK(a->type == DType::F32);
        CHECK((a->shape == std::vector<uint64_t>{2, 3}));
        CHECK_EQ(a->bytes, 24u);
        CHECK(std::memcmp(a->data, kF32.data(), 24) == 0);
    }
    const SafetensorsTensor* b = m.find("b.weight");
    CHECK(b && b->type == DType::F16 && b->shape == std::vector<uint64_t>{4} && b->bytes == 8);
    if (b) CHECK(std::memcmp(b->data, kF16.data(), 8) == 0);
    const SafetensorsTensor* c = m.find("c.weight");
    CHECK(c && c->type == DType::BF16 && (c->shape == std::vector<uint64_t>{2, 2}) && c->bytes == 8);
    if (c) CHECK(std::memcmp(c->data, kBF16.data(), 8) == 0);
    if (withScalarAndEmpty) {
        const SafetensorsTensor* s = m.find("scalar");
        CHECK(s && s->shape.empty() && s->bytes == 4);
        if (s) CHECK(std::memcmp(s->data, "\0\0\xE0\x40", 4) == 0); // 7.0f
        const SafetensorsTensor* e = m.find("empty");
        CHECK(e && e->bytes == 0 && (e->shape == std::vector<uint64_t>{0, 4}));
    }
    CHECK(m.find("nope") == nullptr);
}

void testSingleFile(const fs::path& dir) {
    fs::path path = dir / "single.safetensors";
    writeFile(path, buildSafetensors(sampleEntries(), {{"format", "pt"}, {"note", "x"}}));
    auto m = SafetensorsModel::openFile(path.string());
    CHECK_OK(m);
    if (!m.isOk()) return;
    CHECK_EQ(m->tensors().size(), 5u);
    checkSample(*m, true);
    CHECK_EQ(m->find("a.weight")->file, path.string());
    CHECK_EQ(m->metadata().size(), 2u);
    CHECK_EQ(m->metadata().at("format"), std::string("pt"));

    // The same bytes through parse().
    auto parsed = SafetensorsModel::parse(MappedFile::fromBuffer("buf.safetensors", buildSafetensors(sampleEntries())));
    CHECK_OK(parsed);
    if (parsed.isOk()) {
        checkSample(*parsed, true);
        CHECK(parsed->metadata().empty());
    }
    CHECK_ERR(SafetensorsModel::openFile((dir / "missing.safetensors").string()), StatusCode::NotFound,
              "missing.safetensors");
}

void testFolders(const fs::path& dir) {
    // Sharded: two shards, an index; a tensor that no index entry names is ignored.
    fs::path sharded = dir / "sharded";
    fs::create_directories(sharded);
    auto entries = sampleEntries();
    writeFile(sharded / "model-00001-of-00002.safetensors",
              buildSafetensors({entries[0], entries[1]}, {{"format", "pt"}}));
    writeFile(sharded / "model-00002-of-00002.safetensors",
              buildSafetensors({entries[2], {"stray", "F32", {1}, bytesOf(std::vector<float>{1.f})}}));
    nlohmann::json index = {{"metadata", {{"total_size", 40}}},
                            {"weight_map",
                             {{"a.weight", "model-00001-of-00002.safetensors"},
                              {"b.weight", "model-00001-of-00002.safetensors"},
                              {"c.weight", "model-00002-of-00002.safetensors"}}}};
    writeFile(sharded / "model.safetensors.index.json", index.dump(2));
    auto m = SafetensorsModel::openFolder(sharded.string());
    CHECK_OK(m);
    if (m.isOk()) {
        CHECK_EQ(m->tensors().size(), 3u);
        checkSample(*m, false);
        CHECK_EQ(m->find("c.weight")->file, (sharded / "model-00002-of-00002.safetensors").string());
        CHECK_EQ(m->find("a.weight")->file, (sharded / "model-00001-of-00002.safetensors").string());
        CHECK_EQ(m->metadata().at("format"), std::string("pt"));
    }

    // A tensor mapped to a shard that lacks it.
    index["weight_map"]["d.weight"] = "model-00002-of-00002.safetensors";
    writeFile(sharded / "model.safetensors.index.json", index.dump());
    CHECK_ERR(SafetensorsModel::openFolder(sharded.string()), StatusCode::DataLoss,
              "tensor 'd.weight' is mapped to shard 'model-00002-of-00002.safetensors', which does not contain it");
    // A missing shard.
    index["weight_map"].erase("d.weight");
    index["weight_map"]["e.weight"] = "model-00003-of-00003.safetensors";
    writeFile(sharded / "model.safetensors.index.json", index.dump());
    CHECK_ERR(SafetensorsModel::openFolder(sharded.string()), StatusCode::DataLoss,
              "shard 'model-00003-of-00003.safetensors' (holding tensor 'e.weight') is missing");
    // A shard name reaching outside the folder.
    index["weight_map"]["e.weight"] = "../single.safetensors";
    writeFile(sharded / "model.safetensors.index.json", index.dump());
    CHECK_ERR(SafetensorsModel::openFolder(sharded.string()), StatusCode::DataLoss, "not a file name in the folder");
    // An index that is not JSON names the index file and the byte.
    writeFile(sharded / "model.safetensors.index.json", "{\"weight_map\": {");
    CHECK_ERR(SafetensorsModel::openFolder(sharded.string()), StatusCode::DataLoss,
              "model.safetensors.index.json: invalid JSON at byte");
    writeFile(sharded / "model.safetensors.index.json", "{\"weight_map\": 3}");
    CHECK_ERR(SafetensorsModel::openFolder(sharded.string()), StatusCode::DataLoss, "no weight_map object");

    // Fallback to model.safetensors.
    fs::path single = dir / "single-folder";
    fs::create_directories(single);
    writeFile(single / "model.safetensors", buildSafetensors(sampleEntries()));
    auto s = SafetensorsModel::openFolder(single.string());
    CHECK_OK(s);
    if (s.isOk()) checkSample(*s, true);

    fs::path empty = dir / "empty-folder";
    fs::create_directories(empty);
    CHECK_ERR(SafetensorsModel::openFolder(empty.string()), StatusCode::NotFound, "empty-folder");
    CHECK_ERR(SafetensorsModel::openFolder((dir / "nowhere").string()), StatusCode::NotFound, "nowhere");
    CHECK_ERR(SafetensorsModel::openFolder((single / "model.safetensors").string()), StatusCode::InvalidArgument,
              "not a folder");
}

void testJson(const fs::path& dir) {
    auto ok = parseJson("{\"a\": [1, 2]}", "x.json");
    CHECK_OK(ok);
    if (ok.isOk()) CHECK_EQ((*ok)["a"][1].get<int>(), 2);
    CHECK_ERR(parseJson("{\"a\": }", "config.json"), StatusCode::DataLoss, "config.json: invalid JSON at byte 7");
    CHECK_ERR(parseJson("", "config.json"), StatusCode::DataLoss, "config.json: invalid JSON");
    CHECK_ERR(readJsonFile((dir / "missing.json").string()), StatusCode::NotFound, "missing.json");
    CHECK_ERR(readJsonFile(dir.string()), StatusCode::InvalidArgument, "directory");
    writeFile(dir / "empty.json", "");
    CHECK_ERR(readJsonFile((dir / "empty.json").string()), StatusCode::DataLoss, "empty.json: invalid JSON");
    writeFile(dir / "good.json", "{\"model_type\": \"llama\"}");
    auto good = readJsonFile((dir / "good.json").string());
    CHECK_OK(good);
    if (good.isOk()) CHECK_EQ((*good)["model_type"].get<std::string>(), std::string("llama"));
}

void testRealFile() {
    fs::path path = hearth::test::requireTestData("models/stories260K/hf/model.safetensors");
    auto m = SafetensorsModel::openFile(path.string());
    CHECK_OK(m);
    if (!m.isOk()) return;
    CHECK_EQ(m->tensors().size(), 47u);
    const SafetensorsTensor* emb = m->find("model.embed_tokens.weight");
    CHECK(emb != nullptr);
    if (emb) {
        CHECK(emb->type == DType::F32);
        CHECK((emb->shape == std::vector<uint64_t>{512, 64}));
        CHECK_EQ(emb->bytes, 512u * 64u * 4u);
    }
    auto folder = SafetensorsModel::openFolder(path.parent_path().string());
    CHECK_OK(folder);
    if (folder.isOk()) CHECK_EQ(folder->tensors().size(), 47u);
    auto config = readJsonFile((path.parent_path() / "config.json").string());
    CHECK_OK(config);
    if (config.isOk()) CHECK_EQ((*config)["hidden_size"].get<int>(), 64);
}

} // namespace

int main() {
    hearth::test::announce("safetensors", "cpu");
    fs::path dir = hearth::test::scratchDir("safetensors");
    testSingleFile(dir);
    testFolders(dir);
    testJson(dir);
    testRealFile(); // last: exits 77 when the test data is missing
    return hearth::test::finish();
}
