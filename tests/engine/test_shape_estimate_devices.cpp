// estimateMemoryForShape of a hybrid (Gated DeltaNet + attention) shape equals the estimate of the
// file synth writes in that shape, on the CPU and on a described CUDA device (no GPU needed: the
// file's estimate is asked for the same device through estimateMemoryOn): weights, KV cache of
// the attention layers only, recurrent state, workspace, CUDA context and the largest context.
#include <filesystem>
#include <string>

#include "check.h"
#include "hearth/memory.h"
#include "model/model_loader.h"
#include "runtime/model_info.h"
#include "synth/synth.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;

namespace {

fs::path g_dir;

DeviceInfo device(DeviceKind kind, double totalGiB, double freeGiB) {
    DeviceInfo d;
    d.kind = kind;
    d.name = kind == DeviceKind::Cuda ? "described GPU" : "described CPU";
    d.totalBytes = uint64_t(totalGiB * double(1ull << 30));
    d.freeBytes = uint64_t(freeGiB * double(1ull << 30));
    return d;
}

// The public shape of a synth shape's config, as a catalog would write it from config.json.
ModelShape shapeOf(const ModelConfig& c) {
    ModelShape s;
    s.architecture = architectureName(c.arch);
    s.vocabSize = c.vocabSize;
    s.hidden = c.hidden;
    s.layers = c.layers;
    s.heads = c.heads;
    s.kvHeads = c.kvHeads;
    s.headDim = c.headDim;
    s.ffn = c.ffn;
    s.contextLength = c.contextLength;
    s.tiedEmbeddings = c.tiedEmbeddings;
    s.ropeDims = c.rope.dims;
    s.linearKeyHeads = c.deltaNet.keyHeads;
    s.linearValueHeads = c.deltaNet.valueHeads;
    s.linearKeyDim = c.deltaNet.keyDim;
    s.linearValueDim = c.deltaNet.valueDim;
    s.linearConvKernel = c.deltaNet.convKernel;
    return s;
}

// `layers` > 0 keeps the shape's widths in fewer layers (its data left out: a sparse file).
void checkShapeMatchesFile(const std::string& shapeName, int32_t layers, const DeviceInfo& target, int32_t context) {
    const std::string label = shapeName + " on " + target.name;
    SynthParams p;
    p.shape = shapeName;
    p.layers = layers;
    p.preset = QuantPreset::Q4_K_M;
    p.skipTensorData = layers > 0;
    p.threads = 2;
    p.outputPath = (g_dir / (shapeName + ".gguf")).string();
    if (!fs::exists(p.outputPath)) CHECK_OK(writeSynthModel(p));
    auto d = describeModel(p.outputPath);
    CHECK_OK(d);
    if (!d.isOk()) return;
    CHECK_MSG(d->config.deltaNetLayerCount() > 0 && d->config.attentionLayerCount() > 0, label);
    const MemoryEstimateParams params{.contextLength = context};
    auto file = estimateMemoryOn(*d, params, target);
    MemoryEstimateParams asShape = params;
    asShape.quant = "Q4_K_M";
    auto shape = estimateMemoryForShape(shapeOf(d->config), asShape, target);
    CHECK_OK(file);
    CHECK_OK(shape);
    if (!file.isOk() || !shape.isOk()) return;
    const auto same = [&](const char* what, uint64_t fromShape, uint64_t fromFile) {
        CHECK_MSG(fromShape == fromFile, label << ": " << what << " " << fromShape << " from the shape, " << fromFile
                                               << " from the file");
    };
    CHECK_MSG(file->recurrentStateBytes > 0, label);
    same("weights", shape->weightsBytes, file->weightsBytes);
    same("KV cache", shape->kvCacheBytes, file->kvCacheBytes);
    same("recurrent state", shape->recurrentStateBytes, file->recurrentStateBytes);
    same("workspace", shape->workspaceBytes, file->workspaceBytes);
    same("device context", shape->deviceContextBytes, file->deviceContextBytes);
    same("KV per position", shape->decode.kvPerPosition, file->decode.kvPerPosition);
    same("decode weights", shape->decode.weights, file->decode.weights);
    same("largest context", uint64_t(shape->largestContext), uint64_t(file->largestContext));
    same("fits", shape->fits, file->fits);
    // The KV cache belongs to the attention layers alone.
    CHECK_MSG(file->decode.kvPerPosition == 2ull * uint64_t(d->config.attentionLayerCount()) * uint64_t(d->config.kvHeads) *
                                                uint64_t(d->config.headDim) * 2,
              label);
}

} // namespace

int main() {
    test::announce("shape_estimate_devices", "cpu");
    g_dir = test::scratchDir("shape_estimate_devices");
    for (const DeviceInfo& target : {device(DeviceKind::Cpu, 64, 48), device(DeviceKind::Cuda, 24, 23)}) {
        checkShapeMatchesFile("tiny-qwen35", 0, target, 1024);
        checkShapeMatchesFile("qwen3.5-27b", 4, target, 32768);
    }
    return test::finish();
}
