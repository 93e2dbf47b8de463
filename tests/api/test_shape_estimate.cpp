// estimateMemoryForShape through the public headers: a shape's estimate equals the estimate of a
// file of that shape and preset, a described GPU is judged by its own figures (none need be
// present), and malformed shapes are refused with the field named.
#include <filesystem>

#include "check.h"
#include "hearth/memory.h"
#include "hearth/synth.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;

namespace {

fs::path g_dir;

// synthShapes()' "tiny-qwen3", as its config.json would say.
ModelShape tinyQwen3() {
    ModelShape s;
    s.architecture = "qwen3";
    s.vocabSize = 4096;
    s.hidden = 256;
    s.layers = 4;
    s.heads = 4;
    s.kvHeads = 2;
    s.headDim = 64;
    s.ffn = 768;
    s.contextLength = 2048;
    return s;
}

// Qwen3-8B's config.json.
ModelShape qwen3_8b() {
    ModelShape s{"qwen3", 151936, 4096, 36, 32, 8, 128, 12288, 40960, false};
    return s;
}

DeviceInfo gpu(double totalGiB, double freeGiB) {
    DeviceInfo d;
    d.kind = DeviceKind::Cuda;
    d.name = "described GPU";
    d.totalBytes = uint64_t(totalGiB * double(1ull << 30));
    d.freeBytes = uint64_t(freeGiB * double(1ull << 30));
    return d;
}

// The same numbers as for the file synth writes in that shape and preset.
void checkMatchesFile(const std::string& preset) {
    SynthModelParams p;
    p.shape = "tiny-qwen3";
    p.preset = preset;
    p.threads = 2;
    p.outputPath = (g_dir / (preset + ".gguf")).string();
    CHECK_OK(synthesizeModel(p));
    auto file = estimateMemory({.path = p.outputPath, .contextLength = 1024, .device = DeviceKind::Cpu});
    CHECK_OK(file);
    if (!file.isOk()) return;
    auto shape = estimateMemoryForShape(tinyQwen3(), {.contextLength = 1024, .quant = preset}, file->device);
    CHECK_OK(shape);
    if (!shape.isOk()) return;
    CHECK_EQ(shape->weightsBytes, file->weightsBytes);
    CHECK_EQ(shape->kvCacheBytes, file->kvCacheBytes);
    CHECK_EQ(shape->workspaceBytes, file->workspaceBytes);
    CHECK_EQ(shape->decode.weights, file->decode.weights);
    CHECK_EQ(shape->totalBytes(), file->totalBytes());
    CHECK_EQ(shape->largestContext, file->largestContext);
    CHECK_EQ(shape->device.name, file->device.name);
}

void checkDescribedGpu() {
    const ModelShape s = qwen3_8b();
    auto roomy = estimateMemoryForShape(s, {.contextLength = 4096, .quant = "Q4_K_M"}, gpu(80, 79));
    CHECK_OK(roomy);
    if (!roomy.isOk()) return;
    CHECK_EQ(roomy->device.name, "described GPU");
    CHECK(roomy->deviceContextBytes > 0); // CUDA's own allowance
    CHECK(roomy->fits);
    CHECK_EQ(roomy->largestContext, 40960); // the whole trained context
    // The KV cache: 36 layers x 8 heads x 128 x 2 (K and V) x 2 bytes (f16) per position.
    CHECK_EQ(roomy->decode.kvPerPosition, uint64_t(36) * 8 * 128 * 2 * 2);
    // A smaller card holds less context; one with 2 GiB free holds none.
    auto tight = estimateMemoryForShape(s, {.contextLength = 4096, .quant = "Q4_K_M"}, gpu(8, 7));
    CHECK_OK(tight);
    if (tight.isOk()) {
        CHECK(tight->fits);
        CHECK(tight->largestContext > 4096 && tight->largestContext < 40960);
    }
    auto small = estimateMemoryForShape(s, {.contextLength = 4096, .quant = "Q4_K_M"}, gpu(4, 2));
    CHECK_OK(small);
    if (small.isOk()) {
        CHECK(!small->fits);
        CHECK_EQ(small->largestContext, 0);
    }
    // A budget below the free memory is what counts.
    auto budget = estimateMemoryForShape(s, {.contextLength = 4096, .quant = "Q4_K_M", .budgetBytes = 2ull << 30},
                                         gpu(80, 79));
    CHECK_OK(budget);
    if (budget.isOk()) CHECK(!budget->fits);
    // More bits, more bytes.
    uint64_t previous = 0;
    for (const char* preset : {"Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0", "BF16"}) {
        auto e = estimateMemoryForShape(s, {.contextLength = 4096, .quant = preset}, gpu(80, 79));
        CHECK_OK(e);
        if (!e.isOk()) continue;
        CHECK_MSG(e->weightsBytes > previous, preset);
        previous = e->weightsBytes;
    }
}

void checkRefusals() {
    const DeviceInfo device = gpu(24, 20);
    ModelShape s = tinyQwen3();
    s.architecture = "qwen35";
    CHECK_ERR(estimateMemoryForShape(s, {.quant = "Q8_0"}, device), StatusCode::Unsupported, "qwen35");
    s = tinyQwen3();
    s.hidden = 0;
    CHECK_ERR(estimateMemoryForShape(s, {.quant = "Q8_0"}, device), StatusCode::InvalidArgument, "hidden");
    s = tinyQwen3();
    s.heads = 5;
    CHECK_ERR(estimateMemoryForShape(s, {.quant = "Q8_0"}, device), StatusCode::InvalidArgument, "heads");
    CHECK_ERR(estimateMemoryForShape(tinyQwen3(), {}, device), StatusCode::InvalidArgument, "preset");
    CHECK_ERR(estimateMemoryForShape(tinyQwen3(), {.quant = "Q9_X"}, device), StatusCode::InvalidArgument, "Q9_X");
    CHECK_ERR(estimateMemoryForShape(tinyQwen3(), {.contextLength = -1, .quant = "Q8_0"}, device),
              StatusCode::InvalidArgument, "context");
}

} // namespace

int main() {
    test::announce("shape_estimate", "cpu");
    g_dir = test::scratchDir("api_shape_estimate");
    checkMatchesFile("Q8_0");
    checkMatchesFile("Q4_K_M");
    checkDescribedGpu();
    checkRefusals();
    return test::finish();
}
