// The CUDA memory estimate (estimateMemory for a CUDA device: engine-side arithmetic, the module
// not asked) against what the module really allocates: the weights' arena, the KV cache and
// Qwen3.5's recurrent state to the byte, the session workspace to within the sort scratch the
// estimate can only bound, for every KV type, several contexts and repacked quant types; and the
// device's free memory drops by the arenas plus no more than the context allowance. Skipped (77) without a CUDA device.
#include <cinttypes>

#include "backend/cuda_memory_plan.h"
#include "check.h"
#include "hearth/engine.h"
#include "hearth/synth.h"
#include "test_helpers.h"
#include "testdata.h"

using namespace hearth;

namespace {

void checkModel(const std::string& path, const std::string& what, const std::vector<int32_t>& contexts) {
    auto model = Model::load({.path = path, .device = DeviceKind::Cuda});
    CHECK_OK(model);
    if (!model.isOk()) return;
    const int32_t vocab = model.value()->info().vocabSize;
    for (KvType type : {KvType::F32, KvType::F16, KvType::BF16})
        for (int32_t context : contexts) {
            const std::string name = what + " " + kvTypeName(type) + " ctx " + std::to_string(context);
            auto e = estimateMemory({.path = path, .contextLength = context, .kvType = type, .device = DeviceKind::Cuda});
            CHECK_OK(e);
            auto session = Session::create(*model.value(), {.contextLength = context, .kvType = type});
            CHECK_OK(session);
            if (!e.isOk() || !session.isOk()) continue;
            const MemoryReport r = session.value()->memoryReport();
            CHECK(e->device.kind == DeviceKind::Cuda);
            CHECK_MSG(e->weightsBytes == r.weightsBytes, name << ": weights " << e->weightsBytes << " vs " << r.weightsBytes);
            CHECK_MSG(e->kvCacheBytes == r.kvCacheBytes, name << ": KV " << e->kvCacheBytes << " vs " << r.kvCacheBytes);
            CHECK_MSG(e->recurrentStateBytes == r.recurrentStateBytes,
                      name << ": recurrent state " << e->recurrentStateBytes << " vs " << r.recurrentStateBytes);
            // The sort's CUB scratch is the one part the estimate bounds rather than knows.
            const uint64_t slack = cudaSortScratchEstimate(vocab);
            CHECK_MSG(e->workspaceBytes >= r.workspaceBytes && e->workspaceBytes - r.workspaceBytes <= slack,
                      name << ": workspace " << e->workspaceBytes << " vs " << r.workspaceBytes);
            CHECK_MSG(r.deviceContextBytes <= e->deviceContextBytes,
                      name << ": device context " << r.deviceContextBytes << " over the allowance");
            std::printf("%s: estimate %" PRIu64 " MiB (workspace %" PRIu64 " KiB), session %" PRIu64
                        " MiB (workspace %" PRIu64 " KiB, libraries %" PRIu64 " KiB)\n",
                        name.c_str(), e->totalBytes() >> 20, e->workspaceBytes >> 10, r.totalBytes() >> 20,
                        r.workspaceBytes >> 10, r.deviceContextBytes >> 10);
        }
}

// The device's own account: loading the model and making a session take the arenas the report
// names, and whatever else (cuBLAS, graphs) fits in the allowance.
void checkDeviceFreeMemory(const std::string& path) {
    auto baseline = Model::load({.path = path, .device = DeviceKind::Cuda});
    CHECK_OK(baseline);
    if (!baseline.isOk()) return;
    auto first = Session::create(*baseline.value(), {.contextLength = 256});
    CHECK_OK(first);
    if (!first.isOk()) return;
    const uint64_t before = first.value()->memoryReport().device.freeBytes;
    auto model = Model::load({.path = path, .device = DeviceKind::Cuda});
    CHECK_OK(model);
    if (!model.isOk()) return;
    auto session = Session::create(*model.value(), {.contextLength = 4096, .kvType = KvType::F16});
    CHECK_OK(session);
    if (!session.isOk()) return;
    const MemoryReport r = session.value()->memoryReport();
    const uint64_t taken = before - r.device.freeBytes;
    const uint64_t arenas = r.weightsBytes + r.kvCacheBytes + r.recurrentStateBytes + r.workspaceBytes;
    std::printf("device free memory: %" PRIu64 " KiB taken for arenas of %" PRIu64 " KiB\n", taken >> 10, arenas >> 10);
    CHECK_MSG(taken >= arenas && taken <= arenas + kCudaDeviceContextAllowance,
              "taken " << taken << " for arenas of " << arenas);
}

// --vram-budget (ModelParams::vramBudgetBytes): a load whose weights + context + session would
// pass the budget is refused before anything is allocated, naming the longest context that fits;
// a load planned for that context succeeds; a later, longer session is refused the same way.
void checkBudget(const std::string& path) {
    auto small = estimateMemory({.path = path, .contextLength = 512, .kvType = KvType::F16, .device = DeviceKind::Cuda});
    auto large = estimateMemory({.path = path, .contextLength = 2048, .kvType = KvType::F16, .device = DeviceKind::Cuda});
    CHECK_OK(small);
    CHECK_OK(large);
    if (!small.isOk() || !large.isOk()) return;
    const uint64_t budget = (small->totalBytes() + large->totalBytes()) / 2;
    auto withBudget = estimateMemory({.path = path, .contextLength = 2048, .kvType = KvType::F16,
                                      .device = DeviceKind::Cuda, .budgetBytes = budget});
    CHECK_OK(withBudget);
    if (!withBudget.isOk()) return;
    CHECK(!withBudget->fits);
    const int32_t longest = withBudget->largestContext;
    CHECK_MSG(longest >= 512 && longest < 2048, "largest context " << longest);
    ModelParams p{.path = path, .device = DeviceKind::Cuda};
    p.vramBudgetBytes = budget;
    p.budgetContextLength = 2048;
    auto refused = Model::load(p);
    CHECK(!refused.isOk() && refused.status().code() == StatusCode::OutOfMemory);
    if (!refused.isOk()) {
        std::printf("budget refusal: %s\n", refused.status().message().c_str());
        CHECK(refused.status().message().find("longest context that fits is " + std::to_string(longest)) != std::string::npos);
    }
    p.budgetContextLength = longest;
    auto loaded = Model::load(p);
    CHECK_OK(loaded);
    if (!loaded.isOk()) return;
    auto fits = Session::create(*loaded.value(), {.contextLength = longest});
    CHECK_OK(fits);
    auto tooLong = Session::create(*loaded.value(), {.contextLength = 2048});
    CHECK(!tooLong.isOk() && tooLong.status().code() == StatusCode::OutOfMemory);
}

} // namespace

int main() {
    test::announce("cuda_memory", "cuda");
    test::requireCudaDevice();
    const auto stories = test::requireTestData("models/stories260K/stories260K-f32.gguf").string();
    checkModel(stories, "stories260K", {1, 64, 1000, 4096});
    const auto scratch = test::scratchDir("cuda_memory");
    for (const auto& [shape, preset] : {std::pair<std::string, std::string>{"tiny-qwen3", "Q4_K_M"},
                                        {"tiny-llama", "Q8_0"}, {"tiny-qwen2", "BF16"},
                                        {"tiny-qwen35", "Q4_K_M"}, {"tiny-qwen35", "F16"}}) {
        const std::string path = (scratch / (shape + "-" + preset + ".gguf")).string();
        auto written = synthesizeModel({.shape = shape, .preset = preset, .seed = 5, .outputPath = path});
        CHECK_OK(written);
        if (written.isOk()) checkModel(path, shape + " " + preset, {600, 2048});
    }
    checkDeviceFreeMemory(stories);
    const std::string budgeted = (scratch / "budget-tiny-qwen3.gguf").string();
    auto budgetModel = synthesizeModel({.shape = "tiny-qwen3", .preset = "Q8_0", .seed = 6, .outputPath = budgeted});
    CHECK_OK(budgetModel);
    if (budgetModel.isOk()) checkBudget(budgeted);
    return test::finish();
}
