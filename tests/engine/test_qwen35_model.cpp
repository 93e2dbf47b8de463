// Qwen3.5 as files: the config read from GGUF (llama.cpp's qwen35 keys) and from Hugging Face
// (qwen3_5 wrapper and qwen3_5_text), and the GGUF `quantize` writes from an HF folder, checked
// tensor by tensor against llama.cpp's converter rules computed here from the HF tensors:
// norms stored as 1 + w except ssm_norm, ssm_a = -exp(A_log), conv squeezed to F32 [K, C], and
// value heads moved from grouped (k*r + v) to tiled (v*K + k) in the V rows of attn_qkv, the rows
// of attn_gate / ssm_beta / ssm_alpha, dt and A, the conv's V channels and ssm_out's columns.
// Q4_K_M counts attn_qkv with attn_v; synth makes the 27B and 9B shapes.
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "check.h"
#include "hearth/engine.h"
#include "io/gguf.h"
#include "model/model_loader.h"
#include "qwen35_builder.h"
#include "quant/dequantize.h"
#include "quant/presets.h"
#include "runtime/model_info.h"
#include "synth/synth.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;

namespace {

std::vector<float> tensorValues(const io::GgufFile& f, const std::string& name) {
    const io::GgufTensorInfo* t = f.findTensor(name);
    CHECK_MSG(t, "missing " << name);
    if (!t) return {};
    std::vector<float> out(size_t(t->elements()));
    dequantizeRow(t->type, t->data, out.data(), int64_t(out.size()));
    return out;
}

void checkConfigs(const fs::path& dir, const test::Qwen35Spec& spec) {
    auto hf = describeModel((dir / "hf").string());
    CHECK_OK(hf);
    if (!hf.isOk()) return;
    const ModelConfig& c = hf->config;
    CHECK(c.arch == Architecture::Qwen35);
    CHECK_EQ(c.layers, spec.layers);
    CHECK_EQ(c.rope.dims, spec.ropeDims);
    CHECK_NEAR(c.rope.theta, spec.ropeTheta, 1.0);
    CHECK(c.attnOutputGate && c.qkNorm && c.unitOffsetNorms);
    CHECK(c.deltaNet.order == ValueHeadOrder::Grouped);
    CHECK_EQ(c.deltaNet.valueHeads, spec.valueHeads);
    CHECK_EQ(c.deltaNetLayerCount(), 3);
    CHECK(c.layerKinds[3].mixer == Mixer::Attention);
    // The wrapper's vision tower and MTP block are left out, each with a note naming them.
    CHECK_EQ(c.notes.size(), size_t(2));
    for (const std::string& note : c.notes) std::printf("  note: %s\n", note.c_str());
    CHECK(!c.notes.empty() && c.notes[0].find("model.visual.*") != std::string::npos);
    CHECK(c.notes.size() > 1 && c.notes[1].find("mtp.*") != std::string::npos);
    CHECK(hf->tensors.find("model.layers.0.linear_attn.A_log") != nullptr);

    auto gguf = describeModel((dir / "model.gguf").string());
    CHECK_OK(gguf);
    if (!gguf.isOk()) return;
    const ModelConfig& g = gguf->config;
    CHECK(g.deltaNet.order == ValueHeadOrder::Tiled && !g.unitOffsetNorms);
    CHECK_EQ(g.deltaNet.keyDim, spec.keyDim);
    CHECK_EQ(g.deltaNet.valueDim, spec.valueDim);
    CHECK_EQ(g.deltaNet.convKernel, spec.convKernel);
    CHECK_EQ(g.rope.dims, spec.ropeDims);
    CHECK(g.layerKinds.size() == c.layerKinds.size());
    for (size_t i = 0; i < g.layerKinds.size() && i < c.layerKinds.size(); ++i)
        CHECK(g.layerKinds[i].mixer == c.layerKinds[i].mixer);
}

// Every written tensor against the converter's rule applied to the HF tensor.
void checkConverterRules(const fs::path& dir, const test::Qwen35Spec& s) {
    auto file = io::GgufFile::open((dir / "model.gguf").string());
    CHECK_OK(file);
    if (!file.isOk()) return;
    const io::GgufFile& f = file.value();
    const std::vector<test::Qwen35Tensor> hf = test::makeQwen35Tensors(s);
    auto hfValues = [&](const std::string& name) { return test::findTensor(hf, name)->values; };
    auto key = [&](const std::string& name) {
        auto v = f.getUInt(name);
        CHECK_OK(v);
        return v.isOk() ? v.value() : 0;
    };
    CHECK_EQ(key("qwen35.ssm.group_count"), uint64_t(s.keyHeads));
    CHECK_EQ(key("qwen35.ssm.time_step_rank"), uint64_t(s.valueHeads));
    CHECK_EQ(key("qwen35.ssm.state_size"), uint64_t(s.keyDim));
    CHECK_EQ(key("qwen35.ssm.inner_size"), uint64_t(s.valueHeads * s.valueDim));
    CHECK_EQ(key("qwen35.ssm.conv_kernel"), uint64_t(s.convKernel));
    CHECK_EQ(key("qwen35.full_attention_interval"), uint64_t(4));
    CHECK_EQ(key("qwen35.rope.dimension_count"), uint64_t(s.ropeDims));
    CHECK(f.find("qwen35.rope.dimension_sections") && f.find("qwen35.rope.dimension_sections")->asArray()->size() == 4);

    const int r = s.valueHeads / s.keyHeads, kw = s.keyHeads * s.keyDim, vd = s.valueDim;
    auto grouped = [&](int tiled) { return (tiled % s.keyHeads) * r + tiled / s.keyHeads; }; // tiled v*K+k <- k*r+v
    const std::string g = "blk.0.", h = "model.layers.0.";
    double worst = 0;
    auto expect = [&](double got, double want) { worst = std::max(worst, std::fabs(got - want)); };
    const std::vector<float> qkv = tensorValues(f, g + "attn_qkv.weight"), hq = hfValues(h + "linear_attn.in_proj_qkv.weight");
    for (int row = 0; row < 2 * kw + s.valueHeads * vd; ++row) {
        const int from = row < 2 * kw ? row : 2 * kw + grouped((row - 2 * kw) / vd) * vd + (row - 2 * kw) % vd;
        for (int c = 0; c < s.hidden; ++c) expect(qkv[size_t(row * s.hidden + c)], hq[size_t(from * s.hidden + c)]);
    }
    const std::vector<float> out = tensorValues(f, g + "ssm_out.weight"), ho = hfValues(h + "linear_attn.out_proj.weight");
    const int vw = s.valueHeads * vd;
    for (int row = 0; row < s.hidden; ++row)
        for (int col = 0; col < vw; ++col)
            expect(out[size_t(row * vw + col)], ho[size_t(row * vw + grouped(col / vd) * vd + col % vd)]);
    const std::vector<float> a = tensorValues(f, g + "ssm_a"), aLog = hfValues(h + "linear_attn.A_log");
    const std::vector<float> beta = tensorValues(f, g + "ssm_beta.weight"), hb = hfValues(h + "linear_attn.in_proj_b.weight");
    for (int t = 0; t < s.valueHeads; ++t) {
        expect(a[size_t(t)], -std::exp(double(aLog[size_t(grouped(t))])));
        for (int c = 0; c < s.hidden; ++c) expect(beta[size_t(t * s.hidden + c)], hb[size_t(grouped(t) * s.hidden + c)]);
    }
    const io::GgufTensorInfo* conv = f.findTensor(g + "ssm_conv1d.weight");
    CHECK(conv && conv->type == DType::F32 && conv->ne == (std::vector<uint64_t>{uint64_t(s.convKernel), uint64_t(2 * kw + vw)}));
    const std::vector<float> cv = tensorValues(f, g + "ssm_conv1d.weight"), hc = hfValues(h + "linear_attn.conv1d.weight");
    for (int ch = 0; ch < 2 * kw + vw; ++ch) {
        const int from = ch < 2 * kw ? ch : 2 * kw + grouped((ch - 2 * kw) / vd) * vd + (ch - 2 * kw) % vd;
        for (int j = 0; j < s.convKernel; ++j) expect(cv[size_t(ch * s.convKernel + j)], hc[size_t(from * s.convKernel + j)]);
    }
    const std::vector<float> ssmNorm = tensorValues(f, g + "ssm_norm.weight"), hn = hfValues(h + "linear_attn.norm.weight");
    for (int i = 0; i < vd; ++i) expect(ssmNorm[size_t(i)], hn[size_t(i)]); // a plain gain: no 1 + w
    for (const auto& [ggufName, hfName] : {std::pair{"blk.0.attn_norm.weight", "model.layers.0.input_layernorm.weight"},
                                           {"blk.0.post_attention_norm.weight", "model.layers.0.post_attention_layernorm.weight"},
                                           {"blk.3.attn_q_norm.weight", "model.layers.3.self_attn.q_norm.weight"},
                                           {"output_norm.weight", "model.norm.weight"}}) {
        const std::vector<float> got = tensorValues(f, ggufName), w = hfValues(hfName);
        for (size_t i = 0; i < w.size() && i < got.size(); ++i) expect(got[i], 1.0 + w[i]);
    }
    const io::GgufTensorInfo* q = f.findTensor("blk.3.attn_q.weight");
    CHECK(q && q->ne[1] == uint64_t(2 * s.heads * s.headDim)); // query and gate rows, as HF interleaves them
    std::printf("converter rules: max difference %.2e\n", worst);
    CHECK_MSG(worst < 1e-6, "the written tensors differ from the converter's rules by " << worst);
}

// Q4_K_M: attn_qkv and attn_v share llama.cpp's attn_v counter; the conv kernel stays F32.
void checkQuantTypes(const fs::path& dir) {
    PresetPlanner planner(QuantPreset::Q4_K_M, 8, false);
    const char* names[] = {"blk.0.attn_qkv.weight", "blk.1.attn_qkv.weight", "blk.2.attn_qkv.weight", "blk.3.attn_v.weight",
                           "blk.4.attn_qkv.weight", "blk.5.attn_qkv.weight", "blk.6.attn_qkv.weight", "blk.7.attn_v.weight"};
    std::string types;
    for (const char* name : names) types += std::string(dtypeName(planner.typeFor(name, 2, 256))) + " ";
    std::printf("Q4_K_M over 8 layers: %s\n", types.c_str());
    // use_more_bits(i, 8): i < 1, i >= 7, (i - 1) % 3 == 2.
    CHECK_EQ(types, std::string("Q6_K Q4_K Q4_K Q6_K Q4_K Q4_K Q6_K Q6_K "));
    CHECK(planner.typeFor("blk.0.ssm_conv1d.weight", 2, 4) == DType::F32);
    auto quantized = quantizeModel({.inputPath = (dir / "hf").string(), .outputPath = (dir / "q4.gguf").string(),
                                    .preset = "Q4_K_M", .threads = 2});
    CHECK_OK(quantized);
    auto file = io::GgufFile::open((dir / "q4.gguf").string());
    CHECK_OK(file);
    if (file.isOk()) {
        const io::GgufTensorInfo* conv = file->findTensor("blk.1.ssm_conv1d.weight");
        CHECK(conv && conv->type == DType::F32);
    }
}

void checkShapes(const fs::path& dir) {
    const struct {
        const char* shape;
        double billions, q4kmGB;
        int32_t layers, attention;
    } shapes[] = {{"qwen3.5-27b", 26.90, 16.54, 64, 16}, {"qwen3.5-9b", 8.95, 5.7, 32, 8}}; // 27B: 16.54 GB, peer-h200.md
    for (const auto& s : shapes) {
        SynthParams p;
        p.shape = s.shape;
        p.preset = QuantPreset::Q4_K_M;
        auto plan = planSynthModel(p);
        CHECK_OK(plan);
        if (!plan.isOk()) continue;
        const double billions = plan->parameterCount / 1e9, gb = plan->dataBytes / 1e9;
        std::printf("%-12s %6.3f B parameters, Q4_K_M %5.2f GB, %d attention layers, recurrent state %.1f MiB\n", s.shape,
                    billions, gb, plan->config.attentionLayerCount(), plan->config.recurrentStateBytes() / 1048576.0);
        CHECK_MSG(std::fabs(billions - s.billions) < 0.01 * s.billions, s.shape << ": " << billions << " B");
        CHECK_MSG(std::fabs(gb - s.q4kmGB) < 0.06 * s.q4kmGB, s.shape << ": " << gb << " GB");
        CHECK_EQ(plan->config.layers, s.layers);
        CHECK_EQ(plan->config.attentionLayerCount(), s.attention);
    }
    // The 27B's widths in 4 layers, written without data and read back.
    SynthParams p;
    p.shape = "qwen3.5-27b";
    p.layers = 4;
    p.preset = QuantPreset::Q4_K_M;
    p.skipTensorData = true;
    p.outputPath = (dir / "27b.gguf").string();
    CHECK_OK(writeSynthModel(p));
    auto d = describeModel(p.outputPath);
    CHECK_OK(d);
    if (!d.isOk()) return;
    const ModelConfig& c = d->config;
    CHECK_EQ(c.hidden, 5120);
    CHECK_EQ(c.vocabSize, 248320);
    CHECK_EQ(c.deltaNet.valueHeads, 48);
    CHECK_EQ(c.deltaNet.keyHeads, 16);
    CHECK_EQ(c.rope.dims, 64);
    CHECK_EQ(c.heads, 24);
    CHECK_EQ(c.kvHeads, 4);
    CHECK_EQ(c.attentionLayerCount(), 1);
    // 48 heads of 128 x 128 fp32 and 3 x 10240 conv inputs per Gated DeltaNet layer.
    CHECK_EQ(c.deltaNet.stateBytes(), uint64_t(48 * 128 * 128 * 4 + 3 * 10240 * 4));
    CHECK_OK(bindWeights(c, d->tensors, ModelFormat::Gguf, ScaleCheck::Skip));
}

// The 27B at Q4_K_M on a GPU by the engine's estimate: KV for the 16 attention layers only, the
// recurrent state as its own category, and the contexts that fit 22.5 and 24 GiB.
void checkEstimate27b() {
    SynthParams p;
    p.shape = "qwen3.5-27b";
    p.preset = QuantPreset::Q4_K_M;
    auto plan = planSynthModel(p);
    CHECK_OK(plan);
    if (!plan.isOk()) return;
    TensorSource source; // the plan as a tensor table: vectors read zeros, matrices are not read
    source.fileName = "qwen3.5-27b";
    auto zeros = std::make_shared<std::vector<uint8_t>>(1 << 20, uint8_t(0));
    auto addresses = std::make_shared<std::vector<uint8_t>>(plan->tensors.size(), uint8_t(0));
    for (size_t i = 0; i < plan->tensors.size(); ++i) {
        const SynthTensor& t = plan->tensors[i];
        SourceTensor s{t.name, t.type, t.rows(), t.rowLength(), "", int(t.ne.size()), nullptr, t.bytes};
        s.data = t.ne.size() == 1 ? zeros->data() : addresses->data() + i;
        source.tensors.emplace(t.name, s);
    }
    source.storage = {zeros, addresses};
    auto weights = bindWeights(plan->config, source, ModelFormat::Gguf, ScaleCheck::Skip);
    CHECK_OK(weights);
    if (!weights.isOk()) return;
    const ModelConfig& c = plan->config;
    const Footprint f = footprintOf(c, weights.value(), 32768, KvType::F16, DeviceKind::Cuda);
    const uint64_t gib = 1ull << 30;
    const int32_t fits225 = largestFittingContext(c, weights.value(), KvType::F16, DeviceKind::Cuda, gib * 45 / 2, c.contextLength);
    const int32_t fits24 = largestFittingContext(c, weights.value(), KvType::F16, DeviceKind::Cuda, gib * 24, c.contextLength);
    std::printf("27B Q4_K_M on CUDA at 32k: weights %.2f GiB, KV %.2f GiB, recurrent %.1f MiB, total %.2f GiB; "
                "longest context in 22.5 GiB %d, in 24 GiB %d\n",
                double(f.weights) / gib, double(f.kvCache) / gib, f.recurrentState / 1048576.0, double(f.total()) / gib,
                fits225, fits24);
    CHECK_EQ(f.kvCache, 2 * gib);                                   // 16 layers x 2 x 4 x 256 x 2 bytes x 32768
    CHECK_EQ(f.recurrentState, uint64_t(48) * (48 * 128 * 128 + 3 * 10240) * 4); // 149.6 MiB
    CHECK(f.total() < gib * 45 / 2);
    CHECK(fits225 >= 32768 && fits24 > fits225);
}

} // namespace

int main() {
    test::announce("qwen35_model", "cpu");
    const fs::path dir = test::scratchDir("qwen35_model");
    test::Qwen35Spec spec;
    spec.wrapper = true;
    test::writeQwen35HfFolder(spec, dir / "hf");
    auto written = quantizeModel({.inputPath = (dir / "hf").string(), .outputPath = (dir / "model.gguf").string(),
                                  .preset = "F32", .threads = 2});
    CHECK_OK(written);
    checkConfigs(dir, spec);
    checkConverterRules(dir, spec);
    checkQuantTypes(dir);
    checkShapes(dir);
    checkEstimate27b();
    return test::finish();
}
