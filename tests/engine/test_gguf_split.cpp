// Models split into several GGUF files as llama.cpp's gguf-split writes them: a tiny model written
// whole and split into three parts loads to the same weights and the same logits; a later part,
// a missing part, a part with the wrong number, a tensor in two parts and a wrong tensor count
// each fail with a message naming the file.
#include <filesystem>

#include "check.h"
#include "hearth/engine.h"
#include "io/gguf.h"
#include "io/gguf_keys.h"
#include "model_builder.h"
#include "test_helpers.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;

namespace {

struct SplitOptions {
    int partNumberShift = 0;     // part 2 says it is part 2 + shift
    bool duplicateTensor = false; // part 3 repeats part 2's first tensor
    int tensorCountDelta = 0;    // split.tensors.count off by this
};

// Writes `source`'s metadata and tensors as PREFIX-0000k-of-00003.gguf, tensors dealt round robin.
void writeSplit(const io::GgufFile& source, const std::string& prefix, const SplitOptions& o = {}) {
    constexpr int kParts = 3;
    std::vector<io::GgufWriter> parts(kParts);
    for (const auto& [key, value] : source.metadata()) parts[0].set(key, value);
    const auto& tensors = source.tensors();
    for (int p = 0; p < kParts; ++p) {
        parts[size_t(p)].set(gguf_key::kSplitNo, io::GgufValue::u32(uint32_t(p == 1 ? 1 + o.partNumberShift : p)));
        parts[size_t(p)].set(gguf_key::kSplitCount, io::GgufValue::u32(kParts));
        parts[size_t(p)].set(gguf_key::kSplitTensorsCount,
                             io::GgufValue::i32(int32_t(tensors.size()) + o.tensorCountDelta));
    }
    int firstOfPart2 = -1;
    for (size_t i = 0; i < tensors.size(); ++i) {
        const int p = int(i % kParts);
        if (p == 1 && firstOfPart2 < 0) firstOfPart2 = int(i);
        parts[size_t(p)].addTensorView(tensors[i].name, tensors[i].type, tensors[i].ne, tensors[i].data, tensors[i].bytes);
    }
    if (o.duplicateTensor) {
        const io::GgufTensorInfo& t = tensors[size_t(firstOfPart2)];
        parts[2].addTensorView(t.name, t.type, t.ne, t.data, t.bytes);
    }
    for (int p = 0; p < kParts; ++p) {
        char name[64];
        std::snprintf(name, sizeof name, "-%05d-of-%05d.gguf", p + 1, kParts);
        CHECK_OK(parts[size_t(p)].write(prefix + name));
    }
}

} // namespace

int main() {
    test::announce("gguf_split", "cpu");
    const fs::path dir = test::scratchDir("gguf_split");
    test::TinyModelSpec spec;
    spec.arch = "qwen3";
    const fs::path whole = dir / "whole.gguf";
    test::writeTinyGguf(spec, whole);
    auto source = io::GgufFile::open(whole.string());
    CHECK_OK(source);
    if (!source.isOk()) return test::finish();

    const std::string prefix = (dir / "model").string();
    writeSplit(source.value(), prefix);
    const std::string first = prefix + "-00001-of-00003.gguf";
    auto joined = io::GgufFile::openModel(first);
    CHECK_OK(joined);
    if (joined.isOk()) {
        CHECK_EQ(joined.value().splitCount(), 3);
        CHECK_EQ(joined.value().tensors().size(), source.value().tensors().size());
    }
    // Same logits as the whole file, to the bit.
    std::vector<int32_t> ids{1, 5, 9, 33, 70, 2, 8};
    const auto a = test::teacherForcedLogits(whole.string(), ids);
    const auto b = test::teacherForcedLogits(first, ids);
    CHECK_MSG(!a.empty() && a == b, "the split model's logits differ from the whole file's");
    auto info = describeModelFile(first);
    CHECK_OK(info);
    if (info.isOk()) CHECK(info.value().parameterCount > 0);

    // A later part names the first; a missing part is named.
    CHECK_ERR(io::GgufFile::openModel(prefix + "-00002-of-00003.gguf"), StatusCode::InvalidArgument,
              "open the first part, " + first);
    fs::remove(prefix + "-00003-of-00003.gguf");
    CHECK_ERR(Model::load({.path = first}), StatusCode::NotFound, "part 3 of 3 of this split model is missing");

    const std::string bad = (dir / "bad").string();
    writeSplit(source.value(), bad, {.partNumberShift = 1});
    CHECK_ERR(io::GgufFile::openModel(bad + "-00001-of-00003.gguf"), StatusCode::DataLoss,
              "says it is part 3 of 3, expected part 2 of 3");
    writeSplit(source.value(), bad, {.duplicateTensor = true});
    CHECK_ERR(io::GgufFile::openModel(bad + "-00001-of-00003.gguf"), StatusCode::DataLoss,
              "is also in another part of the split model");
    writeSplit(source.value(), bad, {.tensorCountDelta = 1});
    CHECK_ERR(io::GgufFile::openModel(bad + "-00001-of-00003.gguf"), StatusCode::DataLoss, "split.tensors.count says");
    // A split file renamed so that its parts cannot be found.
    fs::copy_file(bad + "-00001-of-00003.gguf", dir / "renamed.gguf");
    CHECK_ERR(io::GgufFile::openModel((dir / "renamed.gguf").string()), StatusCode::DataLoss, "is not named PREFIX-");
    return test::finish();
}
