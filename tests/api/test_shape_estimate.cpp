// estimateMemoryForShape through the public headers: a shape's estimate equals the estimate of a
// file of that shape and preset (attention-only and hybrid Gated DeltaNet), a described GPU is
// judged by its own figures (none need be present), Qwen3.5-27B's KV cache and recurrent state are
// what its sizes make, and malformed shapes are refused with the field named.
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
    ModelShape s;
    s.architecture = "qwen3";
    s.vocabSize = 151936;
    s.hidden = 4096;
    s.layers = 36;
    s.heads = 32;
    s.kvHeads = 8;
    s.headDim = 128;
    s.ffn = 12288;
    s.contextLength = 40960;
    return s;
}

// synthShapes()' "tiny-qwen35": tiny-qwen3's sizes, a quarter of each head rotated, and Gated
// DeltaNet layers of 2 key and 4 value heads of 64 (conv 4, every 4th layer attention).
ModelShape tinyQwen35() {
    ModelShape s = tinyQwen3();
    s.architecture = "qwen35";
    s.ropeDims = 16;
    s.linearKeyHeads = 2;
    s.linearValueHeads = 4;
    s.linearKeyDim = 64;
    s.linearValueDim = 64;
    return s;
}

// Qwen3.5-27B's text config (../shared/reference/engines.md §4a).
ModelShape qwen35_27b() {
    ModelShape s;
    s.architecture = "qwen35";
    s.vocabSize = 248320;
    s.hidden = 5120;
    s.layers = 64;
    s.heads = 24;
    s.kvHeads = 4;
    s.headDim = 256;
    s.ffn = 17408;
    s.contextLength = 262144;
    s.ropeDims = 64;
    s.linearKeyHeads = 16;
    s.linearValueHeads = 48;
    s.linearKeyDim = 128;
    s.linearValueDim = 128;
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
void checkMatchesFile(const std::string& synthShape, const ModelShape& shape, const std::string& preset) {
    SynthModelParams p;
    p.shape = synthShape;
    p.preset = preset;
    p.threads = 2;
    p.outputPath = (g_dir / (synthShape + "-" + preset + ".gguf")).string();
    CHECK_OK(synthesizeModel(p));
    auto file = estimateMemory({.path = p.outputPath, .contextLength = 1024, .device = DeviceKind::Cpu});
    CHECK_OK(file);
    if (!file.isOk()) return;
    auto estimate = estimateMemoryForShape(shape, {.contextLength = 1024, .quant = preset}, file->device);
    CHECK_OK(estimate);
    if (!estimate.isOk()) return;
    const MemoryEstimate* e = &*estimate;
    CHECK_EQ(e->weightsBytes, file->weightsBytes);
    CHECK_EQ(e->kvCacheBytes, file->kvCacheBytes);
    CHECK_EQ(e->recurrentStateBytes, file->recurrentStateBytes);
    CHECK_EQ(e->workspaceBytes, file->workspaceBytes);
    CHECK_EQ(e->decode.weights, file->decode.weights);
    CHECK_EQ(e->decode.kvPerPosition, file->decode.kvPerPosition);
    CHECK_EQ(e->decode.recurrentState, file->decode.recurrentState);
    CHECK_EQ(e->totalBytes(), file->totalBytes());
    CHECK_EQ(e->largestContext, file->largestContext);
    CHECK_EQ(e->device.name, file->device.name);
    // A hybrid model keeps a recurrent state, an attention-only one none.
    CHECK_EQ(e->recurrentStateBytes > 0, shape.linearKeyHeads > 0);
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

// Qwen3.5-27B by its own arithmetic: the KV cache of the 16 attention layers only, the recurrent
// and conv state of the 48 DeltaNet layers; the layer kinds follow fullAttentionInterval.
void checkHybridShape() {
    const ModelShape s = qwen35_27b();
    auto cpu = estimateMemoryForShape(s, {.contextLength = 32768, .quant = "Q4_K_M"},
                                      {.kind = DeviceKind::Cpu, .name = "described CPU", .totalBytes = 64ull << 30,
                                       .freeBytes = 60ull << 30});
    CHECK_OK(cpu);
    if (!cpu.isOk()) return;
    CHECK_EQ(cpu->decode.kvPerPosition, uint64_t(16) * 2 * 4 * 256 * 2); // f16 K and V
    CHECK_EQ(cpu->kvCacheBytes, cpu->decode.kvPerPosition * 32768);
    // Per layer: a 128 x 128 fp32 state per value head, and 3 inputs of the q|k|v conv channels.
    const uint64_t perLayer = (uint64_t(48) * 128 * 128 + 3 * (2 * 16 * 128 + 48 * 128)) * 4;
    CHECK_EQ(cpu->decode.recurrentState, 48 * perLayer);
    // The session holds the live state and whole copies of it (the CPU's checkpoints).
    CHECK(cpu->recurrentStateBytes >= 48 * perLayer && cpu->recurrentStateBytes % (48 * perLayer) == 0);
    CHECK(cpu->weightsBytes > (14ull << 30) && cpu->weightsBytes < (18ull << 30)); // ~16 GB at Q4_K_M
    auto card = estimateMemoryForShape(s, {.contextLength = 32768, .quant = "Q4_K_M"}, gpu(24, 23.5));
    CHECK_OK(card);
    if (card.isOk()) {
        CHECK(card->fits);
        CHECK(card->recurrentStateBytes >= 48 * perLayer);
        CHECK(card->largestContext > 32768 && card->largestContext < s.contextLength);
    }
    // Every second layer attention: twice the KV cache, two thirds of the recurrent state.
    ModelShape denser = tinyQwen35();
    auto quarter = estimateMemoryForShape(denser, {.contextLength = 1024, .quant = "Q8_0"}, gpu(24, 20));
    denser.fullAttentionInterval = 2;
    auto half = estimateMemoryForShape(denser, {.contextLength = 1024, .quant = "Q8_0"}, gpu(24, 20));
    CHECK_OK(quarter);
    CHECK_OK(half);
    if (quarter.isOk() && half.isOk()) {
        CHECK_EQ(half->decode.kvPerPosition, 2 * quarter->decode.kvPerPosition);
        CHECK_EQ(3 * half->decode.recurrentState, 2 * quarter->decode.recurrentState);
    }
}

void checkRefusals() {
    const DeviceInfo device = gpu(24, 20);
    // A hybrid architecture needs each DeltaNet size: the message names the one missing.
    ModelShape s = tinyQwen3();
    s.architecture = "qwen35";
    CHECK_ERR(estimateMemoryForShape(s, {.quant = "Q8_0"}, device), StatusCode::InvalidArgument, "linearKeyHeads");
    s = tinyQwen35();
    s.linearValueDim = 0;
    CHECK_ERR(estimateMemoryForShape(s, {.quant = "Q8_0"}, device), StatusCode::InvalidArgument, "linearValueDim");
    s = tinyQwen35();
    s.linearConvKernel = 0;
    CHECK_ERR(estimateMemoryForShape(s, {.quant = "Q8_0"}, device), StatusCode::InvalidArgument, "linearConvKernel");
    s = tinyQwen35();
    s.linearValueHeads = 5;
    CHECK_ERR(estimateMemoryForShape(s, {.quant = "Q8_0"}, device), StatusCode::InvalidArgument, "multiple");
    s = tinyQwen35();
    s.fullAttentionInterval = 0;
    CHECK_ERR(estimateMemoryForShape(s, {.quant = "Q8_0"}, device), StatusCode::InvalidArgument, "fullAttentionInterval");
    s.fullAttentionInterval = 5; // more than the 4 layers: no attention layer at all
    CHECK_ERR(estimateMemoryForShape(s, {.quant = "Q8_0"}, device), StatusCode::InvalidArgument, "fullAttentionInterval");
    s = tinyQwen35();
    s.ropeDims = 15;
    CHECK_ERR(estimateMemoryForShape(s, {.quant = "Q8_0"}, device), StatusCode::InvalidArgument, "ropeDims");
    // An attention-only architecture does not use them.
    s = tinyQwen3();
    s.fullAttentionInterval = 0;
    s.linearConvKernel = 0;
    CHECK_OK(estimateMemoryForShape(s, {.quant = "Q8_0"}, device));
    s = tinyQwen3();
    s.architecture = "mamba2";
    CHECK_ERR(estimateMemoryForShape(s, {.quant = "Q8_0"}, device), StatusCode::Unsupported, "mamba2");
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
    checkMatchesFile("tiny-qwen3", tinyQwen3(), "Q8_0");
    checkMatchesFile("tiny-qwen3", tinyQwen3(), "Q4_K_M");
    checkMatchesFile("tiny-qwen35", tinyQwen35(), "Q8_0");
    checkMatchesFile("tiny-qwen35", tinyQwen35(), "Q4_K_M");
    checkDescribedGpu();
    checkHybridShape();
    checkRefusals();
    return test::finish();
}
