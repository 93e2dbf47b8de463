// Quant presets applied on the GPU at load. A 16-bit (or F32) source loaded on CUDA with a preset
// is quantized by the CUDA module; the same preset applied by the CPU (quantizeModel, then the
// GGUF loaded as it is) must give the very same blocks. Equal blocks run through the same kernels
// give bit-identical logits, which is what this checks, for every preset, for F32, F16 and BF16
// sources, through prefill and decode. Also: the load reports the "quantizing on the GPU" phase
// and not the CPU's conversion; a NaN in a weight is refused naming the tensor and row.
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "check.h"
#include "hearth/engine.h"
#include "hearth/synth.h"
#include "model_builder.h"
#include "test_helpers.h"
#include "testdata.h"

using namespace hearth;

namespace {

struct Loaded {
    std::unique_ptr<Model> model;
    std::vector<LoadPhase> phases; // in order, each once per change
    double seconds = 0;
};

Loaded load(const std::string& path, const std::string& quant) {
    Loaded out;
    ModelParams p{.path = path, .device = DeviceKind::Cuda, .quant = quant};
    p.onProgress = [&](double, LoadPhase phase) {
        if (out.phases.empty() || out.phases.back() != phase) out.phases.push_back(phase);
    };
    const auto start = std::chrono::steady_clock::now();
    auto model = Model::load(p);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK_OK(model);
    if (model.isOk()) out.model = std::move(model).value();
    return out;
}

bool has(const std::vector<LoadPhase>& phases, LoadPhase phase) {
    return std::find(phases.begin(), phases.end(), phase) != phases.end();
}

// Teacher-forced logits of `ids` (prefill dequantizes every weight block it uses).
std::vector<float> logits(const Model& model, const std::vector<int32_t>& ids) {
    auto session = Session::create(model, {.contextLength = 256, .kvType = KvType::F32});
    CHECK_OK(session);
    if (!session.isOk()) return {};
    auto all = session.value()->evaluate(ids);
    CHECK_OK(all);
    return all.isOk() ? all.value() : std::vector<float>{};
}

void samePresetBothWays(const std::string& source, const std::string& sourceType, const std::vector<int32_t>& ids,
                        const std::filesystem::path& scratch) {
    for (const char* preset : {"Q8_0", "Q4_0", "Q5_0", "Q4_K", "Q5_K", "Q6_K", "Q4_K_M", "Q5_K_M", "F16", "BF16"}) {
        const std::string what = sourceType + " -> " + preset;
        if (sourceType == preset) continue;
        Loaded gpu = load(source, preset);
        const std::string cpuFile = (scratch / (sourceType + "-" + preset + ".gguf")).string();
        auto written = quantizeModel({.inputPath = source, .outputPath = cpuFile, .preset = preset});
        CHECK_OK(written);
        if (!gpu.model || !written.isOk()) continue;
        Loaded cpu = load(cpuFile, "");
        if (!cpu.model) continue;
        CHECK_MSG(has(gpu.phases, LoadPhase::QuantizingOnGpu) && !has(gpu.phases, LoadPhase::Converting),
                  what << ": the preset was not applied on the GPU");
        CHECK_MSG(has(cpu.phases, LoadPhase::Uploading), what << ": a plain upload reports no upload phase");
        CHECK_MSG(gpu.model->info().tensorTypeCounts == cpu.model->info().tensorTypeCounts,
                  what << ": the two ways give different tensor types");
        const std::vector<float> a = logits(*gpu.model, ids);
        const std::vector<float> b = logits(*cpu.model, ids);
        CHECK_MSG(a.size() == b.size() && !a.empty(), what << ": no logits");
        size_t differing = 0;
        for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
            differing += std::memcmp(&a[i], &b[i], sizeof(float)) != 0;
        CHECK_MSG(differing == 0, what << ": " << differing << " of " << a.size()
                                       << " logits differ: the GPU's blocks are not the CPU's");
        std::printf("%-14s GPU-quantized load %.2f s, CPU-quantized file load %.2f s, logits %s\n", what.c_str(),
                    gpu.seconds, cpu.seconds, differing == 0 ? "identical" : "DIFFER");
    }
}

void nanIsRefused(const std::filesystem::path& scratch) {
    test::TinyModelSpec spec;
    spec.arch = "qwen3";
    spec.type = DType::BF16;
    const auto path = scratch / "nan.gguf";
    test::writeTinyGguf(spec, path, [](std::vector<test::TinyTensor>& tensors) {
        for (test::TinyTensor& t : tensors)
            if (t.ggufName == "blk.1.ffn_up.weight") t.values[5 * t.shape[1] + 3] = std::numeric_limits<float>::quiet_NaN();
    });
    ModelParams p{.path = path.string(), .device = DeviceKind::Cuda, .quant = "Q4_K_M"};
    CHECK_ERR(Model::load(p), StatusCode::DataLoss, "layer 1 ffn_up: row 5 holds a NaN");
    // The device is still usable after the refusal.
    p.path = (scratch / "BF16.gguf").string();
    CHECK_OK(Model::load(p));
}

} // namespace

int main() {
    test::announce("cuda_quantize", "cuda");
    test::requireCudaDevice();
    const auto scratch = test::scratchDir("cuda_quantize");
    std::mt19937 rng(3);
    for (const char* sourceType : {"BF16", "F16", "F32"}) {
        const std::string path = (scratch / (std::string(sourceType) + ".gguf")).string();
        // tiny-qwen3: rows of 256 and 768, so the K types apply; 4 layers give Q4_K_M its mixed plan.
        auto synth = synthesizeModel({.shape = "tiny-qwen3", .preset = sourceType, .seed = 5, .outputPath = path});
        CHECK_OK(synth);
        if (!synth.isOk()) continue;
        std::vector<int32_t> ids(96);
        for (int32_t& id : ids) id = int32_t(rng() % uint32_t(synth->vocabSize));
        samePresetBothWays(path, sourceType, ids, scratch);
    }
    nanIsRefused(scratch);
    return test::finish();
}
