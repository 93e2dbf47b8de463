// Architectures as data: the per-architecture conventions, the layer kinds every loader fills,
// the tensor-name table, and partial rotary embeddings (the first rope.dims dimensions of each
// head rotate, the rest pass through) read from GGUF and from config.json.
#include <cmath>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "backend/cpu/cpu_ops.h"
#include "check.h"
#include "hearth/engine.h"
#include "model/arch/arch.h"
#include "model/model_loader.h"
#include "model/tensor_names.h"
#include "model_builder.h"
#include "test_helpers.h"
#include "testdata.h"
#include "runtime/model_internal.h"

using namespace hearth;
namespace fs = std::filesystem;

namespace {

std::vector<float> randomVector(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist;
    std::vector<float> v(n);
    for (float& x : v) x = dist(rng);
    return v;
}

// Partial rotary on a 16-wide head with 8 rotated dimensions equals full rotary on an 8-wide
// head for those dimensions, and leaves the other 8 alone — in both pairings.
void checkPartialRope() {
    for (RopePairing pairing : {RopePairing::RotateHalf, RopePairing::Adjacent}) {
        RopeParams partial;
        partial.theta = 10000.0f;
        partial.dims = 8;
        partial.pairing = pairing;
        const RopeTable table = computeRopeTable(partial);
        CHECK_EQ(table.inverseFrequencies.size(), size_t(4));
        const std::vector<float> start = randomVector(2 * 16, 3);
        std::vector<float> rotated = start;
        cpu::applyRope(rotated.data(), 2, 16, 37, partial, table);
        for (int h = 0; h < 2; ++h) {
            std::vector<float> narrow(start.begin() + h * 16, start.begin() + h * 16 + 8);
            cpu::applyRope(narrow.data(), 1, 8, 37, partial, table);
            for (int i = 0; i < 8; ++i) CHECK_NEAR(rotated[size_t(h * 16 + i)], narrow[size_t(i)], 1e-6);
            for (int i = 8; i < 16; ++i) CHECK_EQ(rotated[size_t(h * 16 + i)], start[size_t(h * 16 + i)]);
        }
        bool moved = false;
        for (int i = 0; i < 8; ++i) moved |= rotated[size_t(i)] != start[size_t(i)];
        CHECK(moved);
    }
}

void checkArchTable() {
    CHECK(findArchByGgufName("qwen3") && findArchByGgufName("qwen3")->arch == Architecture::Qwen3);
    CHECK(findArchByHfType("qwen2") && findArchByHfType("qwen2")->arch == Architecture::Qwen2);
    CHECK(findArchByGgufName("mamba") == nullptr);
    CHECK_EQ(supportedArchitectures(), std::string("llama, qwen2, qwen3, qwen35"));
    CHECK(findArchByHfType("qwen3_5") && findArchByHfType("qwen3_5_text") &&
          findArchByHfType("qwen3_5_text")->arch == Architecture::Qwen35);
    CHECK_EQ(std::string(architectureName(Architecture::Llama)), std::string("llama"));
    CHECK_EQ(tensorName(TensorRole::Q, ModelFormat::Gguf, 3), std::string("blk.3.attn_q.weight"));
    CHECK_EQ(tensorName(TensorRole::Q, ModelFormat::HuggingFace, 3), std::string("model.layers.3.self_attn.q_proj.weight"));
    CHECK_EQ(tensorName(TensorRole::FfnNorm, ModelFormat::HuggingFace, 0),
             std::string("model.layers.0.post_attention_layernorm.weight"));
    CHECK_EQ(tensorName(TensorRole::Output, ModelFormat::Gguf), std::string("output.weight"));
    CHECK(tensorName(TensorRole::RopeFreqs, ModelFormat::HuggingFace).empty());
}

// Every architecture's loader fills one layer kind per layer, with the flags it implies.
void checkLayerKinds(const fs::path& dir) {
    for (const char* arch : {"llama", "qwen2", "qwen3"}) {
        test::TinyModelSpec spec;
        spec.arch = arch;
        spec.layers = 3;
        const fs::path gguf = dir / (std::string(arch) + ".gguf");
        test::writeTinyGguf(spec, gguf);
        auto d = describeModel(gguf.string());
        CHECK_OK(d);
        if (!d.isOk()) continue;
        const ModelConfig& c = d->config;
        CHECK_EQ(c.layerKinds.size(), size_t(3));
        CHECK_EQ(c.attentionLayerCount(), 3);
        CHECK_EQ(c.attnBias, std::string(arch) == "qwen2");
        CHECK_EQ(c.qkNorm, std::string(arch) == "qwen3");
        CHECK(c.rope.pairing == (std::string(arch) == "llama" ? RopePairing::Adjacent : RopePairing::RotateHalf));
    }
}

// rope.dimension_count below the head dimension loads (refused before), changes the logits, and
// a value that is odd or wider than the head is refused naming the key.
void checkPartialRotaryGguf(const fs::path& dir) {
    test::TinyModelSpec spec;
    spec.arch = "qwen3";
    const fs::path full = dir / "full.gguf", partial = dir / "partial.gguf";
    test::writeTinyGguf(spec, full);
    spec.extraUIntKeys["qwen3.rope.dimension_count"] = 8; // of headDim 16
    test::writeTinyGguf(spec, partial);
    auto d = describeModel(partial.string());
    CHECK_OK(d);
    if (d.isOk()) CHECK_EQ(d->config.rope.dims, 8);
    const std::vector<int32_t> ids = {1, 17, 42, 99, 5, 250};
    const std::vector<float> a = test::teacherForcedLogits(full.string(), ids);
    const std::vector<float> b = test::teacherForcedLogits(partial.string(), ids);
    CHECK(!a.empty() && a.size() == b.size());
    CHECK_MSG(test::relativeError(b, a) > 1e-3, "partial rotary made no difference");

    for (uint32_t bad : {7u, 18u}) {
        spec.extraUIntKeys["qwen3.rope.dimension_count"] = bad;
        const fs::path path = dir / ("bad" + std::to_string(bad) + ".gguf");
        test::writeTinyGguf(spec, path);
        CHECK_ERR(describeModel(path.string()), StatusCode::DataLoss, "rope.dimension_count");
    }
}

// config.json's partial_rotary_factor sets the rotated dimensions of an HF folder.
void checkPartialRotaryHf(const fs::path& dir) {
    test::TinyModelSpec spec;
    spec.arch = "qwen3";
    const fs::path folder = dir / "hf";
    test::writeTinyHfFolder(spec, folder);
    nlohmann::json config = nlohmann::json::parse(test::readTextFile(folder / "config.json"));
    config["partial_rotary_factor"] = 0.25;
    std::ofstream(folder / "config.json") << config.dump();
    auto d = describeModel(folder.string());
    CHECK_OK(d);
    if (d.isOk()) CHECK_EQ(d->config.rope.dims, 4);
    config["partial_rotary_factor"] = 0.3; // 4.8 dimensions
    std::ofstream(folder / "config.json") << config.dump();
    CHECK_ERR(describeModel(folder.string()), StatusCode::DataLoss, "partial_rotary_factor");
}

// The memory report: KV bytes of the attention layers at the session's context, the weights as
// the model holds them, the device read fresh.
void checkMemoryReport(const fs::path& dir) {
    test::TinyModelSpec spec;
    spec.layers = 3;
    const fs::path gguf = dir / "report.gguf";
    test::writeTinyGguf(spec, gguf);
    auto model = Model::load({.path = gguf.string(), .threads = 1});
    CHECK_OK(model);
    if (!model.isOk()) return;
    auto session = Session::create(**model, {.contextLength = 64, .kvType = KvType::F32});
    CHECK_OK(session);
    if (!session.isOk()) return;
    const MemoryReport r = (*session)->memoryReport();
    CHECK_EQ(r.kvCacheBytes, uint64_t(2 * 3 * 64 * spec.kvHeads * spec.headDim * sizeof(float)));
    CHECK_EQ(r.weightsBytes, loadedModel(**model).weights.totalBytes());
    CHECK(r.workspaceBytes > 0);
    CHECK_EQ(r.recurrentStateBytes, uint64_t(0));
    CHECK(r.device.kind == DeviceKind::Cpu && r.device.totalBytes > 0 && r.device.freeBytes > 0);
}

} // namespace

int main() {
    test::announce("arch", "cpu");
    const fs::path dir = test::scratchDir("arch");
    checkPartialRope();
    checkArchTable();
    checkLayerKinds(dir);
    checkPartialRotaryGguf(dir);
    checkPartialRotaryHf(dir);
    checkMemoryReport(dir);
    return test::finish();
}
