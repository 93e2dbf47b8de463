// ModelHeader (one read of a model's header) against the free calls that read the file each time:
// for synthesized GGUF files (16-bit and already quantized) and a Hugging Face folder, its
// description, every preset's plan and memory estimates at several contexts, KV types and
// presets are exactly describeModelFile's, planQuantPreset's and estimateMemory's, errors
// included; and it answers after its file is gone, so it does not read the file again.
#include <filesystem>
#include <string>

#include "check.h"
#include "hearth/memory.h"
#include "hearth/model.h"
#include "hearth/quant.h"
#include "model_builder.h"
#include "synth/synth.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;

namespace {

template <typename T>
bool sameError(const Result<T>& a, const Result<T>& b) {
    return a.status().code() == b.status().code() && a.status().message() == b.status().message();
}

void samePlan(const Result<QuantPlan>& header, const Result<QuantPlan>& free, const std::string& what) {
    CHECK_MSG(header.isOk() == free.isOk(), what << ": " << header.status().message() << " / " << free.status().message());
    if (!header.isOk() || !free.isOk()) {
        CHECK_MSG(sameError(header, free), what << ": " << header.status().message() << " / " << free.status().message());
        return;
    }
    CHECK_EQ(header->preset, free->preset);
    CHECK_MSG(header->weightsBytes == free->weightsBytes, what << ": " << header->weightsBytes << " vs " << free->weightsBytes);
    CHECK_MSG(header->tensorTypeCounts == free->tensorTypeCounts, what);
    CHECK_MSG(header->requantizes == free->requantizes, what);
}

// Every field but the device's free memory, which changes between two reads of it: the budget
// given pins what the estimate counts as available.
void sameEstimate(const Result<MemoryEstimate>& header, const Result<MemoryEstimate>& free, const std::string& what) {
    CHECK_MSG(header.isOk() == free.isOk(), what << ": " << header.status().message() << " / " << free.status().message());
    if (!header.isOk() || !free.isOk()) {
        CHECK_MSG(sameError(header, free), what << ": " << header.status().message() << " / " << free.status().message());
        return;
    }
    const MemoryEstimate& h = header.value();
    const MemoryEstimate& f = free.value();
    CHECK_MSG(h.weightsBytes == f.weightsBytes && h.kvCacheBytes == f.kvCacheBytes &&
                  h.kvBytesPer1024Tokens == f.kvBytesPer1024Tokens && h.recurrentStateBytes == f.recurrentStateBytes &&
                  h.workspaceBytes == f.workspaceBytes && h.deviceContextBytes == f.deviceContextBytes,
              what << ": " << h.totalBytes() << " vs " << f.totalBytes());
    CHECK_MSG(h.decode.weights == f.decode.weights && h.decode.kvPerPosition == f.decode.kvPerPosition &&
                  h.decode.recurrentState == f.decode.recurrentState,
              what);
    CHECK_MSG(h.device.kind == f.device.kind && h.device.name == f.device.name && h.device.totalBytes == f.device.totalBytes,
              what);
    CHECK_MSG(h.availableBytes == f.availableBytes && h.fits == f.fits && h.largestContext == f.largestContext,
              what << ": largest context " << h.largestContext << " vs " << f.largestContext);
}

void checkModel(const fs::path& path) {
    const std::string p = path.string();
    auto header = ModelHeader::read(p);
    CHECK_OK(header);
    auto described = describeModelFile(p);
    CHECK_OK(described);
    if (!header.isOk() || !described.isOk()) return;
    const ModelHeader& h = *header.value();
    const ModelInfo& a = h.info();
    const ModelInfo& b = described.value();
    CHECK_EQ(a.path, b.path);
    CHECK_EQ(a.architecture, b.architecture);
    CHECK_EQ(a.name, b.name);
    CHECK_EQ(a.layers, b.layers);
    CHECK_EQ(a.vocabSize, b.vocabSize);
    CHECK_EQ(a.contextLength, b.contextLength);
    CHECK_EQ(a.parameterCount, b.parameterCount);
    CHECK(a.tensorTypeCounts == b.tensorTypeCounts);
    CHECK(a.notes == b.notes);

    std::vector<std::string> quants{""}; // as stored
    for (const QuantPresetInfo& preset : quantPresets()) {
        samePlan(h.planQuantPreset(preset.name), planQuantPreset(p, preset.name), p + " " + preset.name);
        quants.push_back(preset.name);
    }
    samePlan(h.planQuantPreset("q8_0"), planQuantPreset(p, "q8_0"), p + " q8_0"); // any case
    samePlan(h.planQuantPreset("Q3_nonsense"), planQuantPreset(p, "Q3_nonsense"), p + " Q3_nonsense");
    CHECK_ERR(h.planQuantPreset("Q3_nonsense"), StatusCode::InvalidArgument, "Q4_K_M");

    for (const std::string& quant : quants) {
        // A budget halfway between the shortest and the longest context: the largest context
        // that fits lies between them, and is the budget's, not the machine's.
        auto shortest = h.estimateMemory({.contextLength = 1, .quant = quant});
        auto longest = h.estimateMemory({.quant = quant});
        CHECK_OK(shortest);
        CHECK_OK(longest);
        if (!shortest.isOk() || !longest.isOk()) continue;
        const uint64_t budget = (shortest->totalBytes() + longest->totalBytes()) / 2;
        for (KvType kv : {KvType::F16, KvType::F32})
            for (int32_t context : {0, 1, 100}) {
                const MemoryEstimateParams params{
                    .path = p, .contextLength = context, .kvType = kv, .quant = quant, .budgetBytes = budget};
                const auto fromHeader = h.estimateMemory(MemoryEstimateParams{
                    .path = "not read", .contextLength = context, .kvType = kv, .quant = quant, .budgetBytes = budget});
                const std::string what = p + " '" + quant + "' " + kvTypeName(kv) + " ctx " + std::to_string(context);
                sameEstimate(fromHeader, estimateMemory(params), what);
                if (fromHeader.isOk() && kv == KvType::F16)
                    CHECK_MSG(fromHeader->availableBytes == budget && fromHeader->largestContext > 1 &&
                                  fromHeader->largestContext < a.contextLength,
                              what << ": largest context " << fromHeader->largestContext);
            }
    }
    // Refusals, in the free call's order and words.
    for (const MemoryEstimateParams& bad :
         {MemoryEstimateParams{.path = p, .contextLength = -1}, MemoryEstimateParams{.path = p, .gpu = -1},
          MemoryEstimateParams{.path = p, .contextLength = -1, .gpu = -1}, MemoryEstimateParams{.path = p, .quant = "Q3_X"},
          MemoryEstimateParams{.path = p, .device = DeviceKind::Cuda, .gpu = 99}}) {
        const auto fromHeader = h.estimateMemory(bad);
        CHECK(!fromHeader.isOk());
        sameEstimate(fromHeader, estimateMemory(bad), p + " refused");
    }
}

// The header answers from what it read: with the file gone, the free calls fail and the
// header's answers are still the ones the free calls gave before.
void checkReadOnce(const fs::path& model, const fs::path& dir) {
    const fs::path copy = dir / ("gone-" + model.filename().string());
    fs::remove_all(copy);
    fs::copy(model, copy, fs::copy_options::recursive);
    const std::string p = copy.string();
    std::vector<Result<QuantPlan>> before;
    for (const QuantPresetInfo& preset : quantPresets()) before.push_back(planQuantPreset(p, preset.name));
    // A budget below the machine's free memory, so that it, not the free memory, is what is available.
    const MemoryEstimateParams params{.path = p, .contextLength = 100, .quant = "Q8_0", .budgetBytes = 256ull << 20};
    const auto estimate = estimateMemory(params);
    CHECK_OK(estimate);
    auto header = ModelHeader::read(p);
    CHECK_OK(header);
    fs::remove_all(copy);
    CHECK_ERR(planQuantPreset(p, "Q8_0"), StatusCode::NotFound, copy.filename().string());
    CHECK_ERR(ModelHeader::read(p), StatusCode::NotFound, copy.filename().string());
    if (!header.isOk()) return;
    const ModelHeader& h = *header.value();
    for (size_t i = 0; i < before.size(); ++i) {
        CHECK_OK(before[i]);
        samePlan(h.planQuantPreset(quantPresets()[i].name), before[i], p + " after removal");
    }
    sameEstimate(h.estimateMemory(params), estimate, p + " after removal");
    CHECK_EQ(h.info().path, p);
}

} // namespace

int main() {
    test::announce("preset_planning", "cpu");
    const fs::path dir = test::scratchDir("preset_planning");

    // A 16-bit hybrid (every preset applies) and an already quantized file (most re-quantize).
    SynthParams bf16;
    bf16.shape = "tiny-qwen35";
    bf16.preset = QuantPreset::BF16;
    bf16.seed = 3;
    bf16.threads = 1;
    bf16.skipTensorData = true; // planning reads no tensor data
    bf16.outputPath = (dir / "qwen35-bf16.gguf").string();
    CHECK_OK(writeSynthModel(bf16));
    SynthParams q4 = bf16;
    q4.shape = "tiny-qwen3";
    q4.preset = QuantPreset::Q4_K_M;
    q4.outputPath = (dir / "qwen3-q4km.gguf").string();
    CHECK_OK(writeSynthModel(q4));
    test::TinyModelSpec spec;
    spec.type = DType::F16;
    test::writeTinyHfFolder(spec, dir / "tiny-hf");

    for (const fs::path& model : {fs::path(bf16.outputPath), fs::path(q4.outputPath), dir / "tiny-hf"})
        checkModel(model);
    checkReadOnce(bf16.outputPath, dir);
    checkReadOnce(dir / "tiny-hf", dir);
    return test::finish();
}
