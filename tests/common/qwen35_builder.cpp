#include "qwen35_builder.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "model_builder.h"

namespace hearth::test {
namespace {
namespace fs = std::filesystem;
using Vec = std::vector<double>;

std::vector<std::string> layerTypesOf(const Qwen35Spec& s) {
    if (!s.layerTypes.empty()) return s.layerTypes;
    std::vector<std::string> types;
    for (int i = 0; i < s.layers; ++i) types.push_back((i + 1) % 4 == 0 ? "full_attention" : "linear_attention");
    return types;
}

std::string configText(const Qwen35Spec& s) {
    const int half = s.ropeDims / 2; // mrope sections cover the rotated pairs
    nlohmann::json text = {
        {"model_type", "qwen3_5_text"}, {"vocab_size", s.vocab}, {"hidden_size", s.hidden},
        {"intermediate_size", s.ffn}, {"num_hidden_layers", s.layers}, {"num_attention_heads", s.heads},
        {"num_key_value_heads", s.kvHeads}, {"head_dim", s.headDim}, {"max_position_embeddings", 256},
        {"rms_norm_eps", s.rmsEps}, {"tie_word_embeddings", s.tied}, {"hidden_act", "silu"},
        {"attention_bias", false}, {"attn_output_gate", true}, {"linear_num_key_heads", s.keyHeads},
        {"linear_num_value_heads", s.valueHeads}, {"linear_key_head_dim", s.keyDim},
        {"linear_value_head_dim", s.valueDim}, {"linear_conv_kernel_dim", s.convKernel},
        {"layer_types", layerTypesOf(s)}, {"full_attention_interval", 4}, {"mtp_num_hidden_layers", 1},
        {"rope_parameters",
         {{"rope_type", "default"}, {"rope_theta", s.ropeTheta}, {"partial_rotary_factor", double(s.ropeDims) / s.headDim},
          {"mrope_section", {half - 2 * (half / 3), half / 3, half / 3}}, {"mrope_interleaved", true}}},
        {"bos_token_id", 1}, {"eos_token_id", 2},
    };
    if (!s.wrapper) return text.dump(2);
    return nlohmann::json({{"model_type", "qwen3_5"}, {"text_config", text}, {"vision_config", {{"depth", 1}}},
                           {"tie_word_embeddings", s.tied}})
        .dump(2);
}

void writeSafetensors(const fs::path& path, const std::vector<Qwen35Tensor>& tensors, bool wrapper) {
    nlohmann::json header = nlohmann::json::object();
    std::string data;
    for (const Qwen35Tensor& t : tensors) {
        std::string name = t.name;
        if (wrapper && name.rfind("model.", 0) == 0 && name.rfind("model.visual.", 0) != 0)
            name = "model.language_model." + name.substr(6);
        header[name] = {{"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {data.size(), data.size() + 4 * t.values.size()}}};
        data.append(reinterpret_cast<const char*>(t.values.data()), 4 * t.values.size());
    }
    header["__metadata__"] = {{"format", "pt"}};
    std::string headerText = header.dump();
    headerText.append((8 - headerText.size() % 8) % 8, ' ');
    const uint64_t headerLen = headerText.size();
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(&headerLen), 8);
    out << headerText << data;
}

// ---- the plain forward pass ---------------------------------------------------------------

struct Weights {
    const std::vector<Qwen35Tensor>& all;
    const Qwen35Tensor& get(const std::string& name) const { return *findTensor(all, name); }
};

Vec matvec(const Qwen35Tensor& w, const Vec& x) {
    const int64_t rows = w.shape[0], cols = w.shape[1];
    Vec y(size_t(rows), 0.0);
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) y[size_t(r)] += double(w.values[size_t(r * cols + c)]) * x[size_t(c)];
    return y;
}

// x / rms(x) * (offset + w) over [from, from + n).
void rmsNorm(Vec& x, size_t from, size_t n, const Qwen35Tensor& w, double offset, double eps) {
    double ss = 0;
    for (size_t i = 0; i < n; ++i) ss += x[from + i] * x[from + i];
    const double scale = 1.0 / std::sqrt(ss / double(n) + eps);
    for (size_t i = 0; i < n; ++i) x[from + i] *= scale * (offset + w.values[i]);
}

double silu(double x) { return x / (1.0 + std::exp(-x)); }
double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

struct LayerState {
    std::vector<Vec> convInputs;          // every token's qkv projection so far
    std::vector<Vec> s;                   // [value head][keyDim * valueDim]
    std::vector<Vec> keys, values;        // attention: per position [kvHeads * headDim]
};

Vec deltaNet(const Qwen35Spec& sp, const Weights& w, const std::string& p, const Vec& h, LayerState& st) {
    const size_t kw = size_t(sp.keyHeads * sp.keyDim), vw = size_t(sp.valueHeads * sp.valueDim);
    st.convInputs.push_back(matvec(w.get(p + "linear_attn.in_proj_qkv.weight"), h));
    const Vec z = matvec(w.get(p + "linear_attn.in_proj_z.weight"), h);
    const Vec b = matvec(w.get(p + "linear_attn.in_proj_b.weight"), h);
    const Vec a = matvec(w.get(p + "linear_attn.in_proj_a.weight"), h);
    const Qwen35Tensor& conv = w.get(p + "linear_attn.conv1d.weight"); // [channels, 1, kernel]
    const size_t channels = 2 * kw + vw, t = st.convInputs.size() - 1;
    Vec c(channels, 0.0);
    for (size_t ch = 0; ch < channels; ++ch) {
        for (int j = 0; j < sp.convKernel; ++j) { // tap j sees input t - (kernel - 1) + j
            const int64_t src = int64_t(t) - (sp.convKernel - 1) + j;
            if (src >= 0) c[ch] += conv.values[ch * size_t(sp.convKernel) + size_t(j)] * st.convInputs[size_t(src)][ch];
        }
        c[ch] = silu(c[ch]);
    }
    auto l2 = [&](size_t from, size_t n) {
        double ss = 0;
        for (size_t i = 0; i < n; ++i) ss += c[from + i] * c[from + i];
        for (size_t i = 0; i < n; ++i) c[from + i] /= std::sqrt(ss + 1e-6);
    };
    for (int k = 0; k < sp.keyHeads; ++k) {
        l2(size_t(k * sp.keyDim), size_t(sp.keyDim));
        l2(kw + size_t(k * sp.keyDim), size_t(sp.keyDim));
    }
    if (st.s.empty()) st.s.assign(size_t(sp.valueHeads), Vec(size_t(sp.keyDim * sp.valueDim), 0.0));
    const Qwen35Tensor& aLog = w.get(p + "linear_attn.A_log");
    const Qwen35Tensor& dt = w.get(p + "linear_attn.dt_bias");
    const Qwen35Tensor& norm = w.get(p + "linear_attn.norm.weight");
    Vec y(vw, 0.0);
    const int perKey = sp.valueHeads / sp.keyHeads;
    for (int vh = 0; vh < sp.valueHeads; ++vh) {
        const int kh = vh / perKey; // HF: a key head's value heads are neighbours
        const double* q = &c[size_t(kh * sp.keyDim)];
        const double* k = &c[kw + size_t(kh * sp.keyDim)];
        const double* v = &c[2 * kw + size_t(vh * sp.valueDim)];
        const double beta = sigmoid(b[size_t(vh)]);
        const double g = -std::exp(double(aLog.values[size_t(vh)])) * std::log1p(std::exp(a[size_t(vh)] + dt.values[size_t(vh)]));
        // Closed form: S = (I - beta k k^T) e^g S + beta k v^T; out = S^T q / sqrt(keyDim).
        Vec& S = st.s[size_t(vh)];
        const Vec old = S;
        for (int i = 0; i < sp.keyDim; ++i)
            for (int j = 0; j < sp.valueDim; ++j) {
                double projected = 0;
                for (int m = 0; m < sp.keyDim; ++m) projected += k[i] * k[m] * old[size_t(m * sp.valueDim + j)];
                S[size_t(i * sp.valueDim + j)] = std::exp(g) * (old[size_t(i * sp.valueDim + j)] - beta * projected) + beta * k[i] * v[j];
            }
        for (int j = 0; j < sp.valueDim; ++j) {
            double o = 0;
            for (int i = 0; i < sp.keyDim; ++i) o += S[size_t(i * sp.valueDim + j)] * q[i];
            y[size_t(vh * sp.valueDim + j)] = o / std::sqrt(double(sp.keyDim));
        }
        rmsNorm(y, size_t(vh * sp.valueDim), size_t(sp.valueDim), norm, 0.0, sp.rmsEps);
        for (int j = 0; j < sp.valueDim; ++j) y[size_t(vh * sp.valueDim + j)] *= silu(z[size_t(vh * sp.valueDim + j)]);
    }
    return matvec(w.get(p + "linear_attn.out_proj.weight"), y);
}

void rope(Vec& x, size_t from, const Qwen35Spec& sp, int pos) {
    const int half = sp.ropeDims / 2;
    for (int i = 0; i < half; ++i) {
        const double angle = pos * std::pow(sp.ropeTheta, -2.0 * i / sp.ropeDims);
        const double x0 = x[from + size_t(i)], x1 = x[from + size_t(i + half)];
        x[from + size_t(i)] = x0 * std::cos(angle) - x1 * std::sin(angle);
        x[from + size_t(i + half)] = x1 * std::cos(angle) + x0 * std::sin(angle);
    }
}

Vec attention(const Qwen35Spec& sp, const Weights& w, const std::string& p, const Vec& h, LayerState& st, int pos) {
    const size_t d = size_t(sp.headDim);
    const Vec qg = matvec(w.get(p + "self_attn.q_proj.weight"), h); // per head: query, then gate
    Vec q(size_t(sp.heads) * d), gate(size_t(sp.heads) * d);
    for (size_t hh = 0; hh < size_t(sp.heads); ++hh)
        for (size_t i = 0; i < d; ++i) q[hh * d + i] = qg[hh * 2 * d + i], gate[hh * d + i] = qg[hh * 2 * d + d + i];
    Vec k = matvec(w.get(p + "self_attn.k_proj.weight"), h);
    const Vec v = matvec(w.get(p + "self_attn.v_proj.weight"), h);
    for (size_t hh = 0; hh < size_t(sp.heads); ++hh) {
        rmsNorm(q, hh * d, d, w.get(p + "self_attn.q_norm.weight"), 1.0, sp.rmsEps);
        rope(q, hh * d, sp, pos);
    }
    for (size_t hh = 0; hh < size_t(sp.kvHeads); ++hh) {
        rmsNorm(k, hh * d, d, w.get(p + "self_attn.k_norm.weight"), 1.0, sp.rmsEps);
        rope(k, hh * d, sp, pos);
    }
    st.keys.push_back(k);
    st.values.push_back(v);
    Vec out(q.size(), 0.0);
    const size_t group = size_t(sp.heads / sp.kvHeads);
    for (size_t hh = 0; hh < size_t(sp.heads); ++hh) {
        const size_t kvh = hh / group;
        Vec scores;
        double top = -1e300;
        for (const Vec& key : st.keys) {
            double dot = 0;
            for (size_t i = 0; i < d; ++i) dot += q[hh * d + i] * key[kvh * d + i];
            scores.push_back(dot / std::sqrt(double(d)));
            top = std::max(top, scores.back());
        }
        double sum = 0;
        for (double& s : scores) sum += (s = std::exp(s - top));
        for (size_t t = 0; t < scores.size(); ++t)
            for (size_t i = 0; i < d; ++i) out[hh * d + i] += scores[t] / sum * st.values[t][kvh * d + i];
    }
    for (size_t i = 0; i < out.size(); ++i) out[i] *= sigmoid(gate[i]);
    return matvec(w.get(p + "self_attn.o_proj.weight"), out);
}

} // namespace

const Qwen35Tensor* findTensor(const std::vector<Qwen35Tensor>& tensors, const std::string& name) {
    for (const Qwen35Tensor& t : tensors)
        if (t.name == name) return &t;
    return nullptr;
}

std::vector<Qwen35Tensor> makeQwen35Tensors(const Qwen35Spec& s) {
    std::mt19937_64 rng(s.seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<Qwen35Tensor> t;
    auto add = [&](std::string name, std::vector<int64_t> shape, float mean, float stdDev) {
        int64_t n = 1;
        for (int64_t d : shape) n *= d;
        Qwen35Tensor x{std::move(name), std::move(shape), std::vector<float>(size_t(n))};
        for (float& v : x.values) v = mean + stdDev * normal(rng);
        t.push_back(std::move(x));
    };
    const int kw = s.keyHeads * s.keyDim, vw = s.valueHeads * s.valueDim, q = s.heads * s.headDim;
    const std::vector<std::string> types = layerTypesOf(s);
    add("model.embed_tokens.weight", {s.vocab, s.hidden}, 0.0f, 0.5f);
    for (int l = 0; l < s.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        add(p + "input_layernorm.weight", {s.hidden}, 0.0f, 0.1f); // zero-centred: the norm uses 1 + w
        if (types[size_t(l)] == "linear_attention") {
            add(p + "linear_attn.in_proj_qkv.weight", {2 * kw + vw, s.hidden}, 0.0f, 0.2f);
            add(p + "linear_attn.in_proj_z.weight", {vw, s.hidden}, 0.0f, 0.2f);
            add(p + "linear_attn.in_proj_b.weight", {s.valueHeads, s.hidden}, 0.0f, 0.2f);
            add(p + "linear_attn.in_proj_a.weight", {s.valueHeads, s.hidden}, 0.0f, 0.2f);
            add(p + "linear_attn.conv1d.weight", {2 * kw + vw, 1, s.convKernel}, 0.0f, 0.4f);
            add(p + "linear_attn.dt_bias", {s.valueHeads}, 1.0f, 0.3f);
            add(p + "linear_attn.A_log", {s.valueHeads}, -0.5f, 0.5f); // decays e^(-A softplus) well inside (0, 1)
            add(p + "linear_attn.norm.weight", {s.valueDim}, 1.0f, 0.1f); // a plain gain
            add(p + "linear_attn.out_proj.weight", {s.hidden, vw}, 0.0f, 0.2f);
        } else {
            add(p + "self_attn.q_proj.weight", {2 * q, s.hidden}, 0.0f, 0.2f);
            add(p + "self_attn.k_proj.weight", {s.kvHeads * s.headDim, s.hidden}, 0.0f, 0.2f);
            add(p + "self_attn.v_proj.weight", {s.kvHeads * s.headDim, s.hidden}, 0.0f, 0.2f);
            add(p + "self_attn.o_proj.weight", {s.hidden, q}, 0.0f, 0.2f);
            add(p + "self_attn.q_norm.weight", {s.headDim}, 0.0f, 0.1f);
            add(p + "self_attn.k_norm.weight", {s.headDim}, 0.0f, 0.1f);
        }
        add(p + "post_attention_layernorm.weight", {s.hidden}, 0.0f, 0.1f);
        add(p + "mlp.gate_proj.weight", {s.ffn, s.hidden}, 0.0f, 0.2f);
        add(p + "mlp.up_proj.weight", {s.ffn, s.hidden}, 0.0f, 0.2f);
        add(p + "mlp.down_proj.weight", {s.hidden, s.ffn}, 0.0f, 0.2f);
    }
    add("model.norm.weight", {s.hidden}, 0.0f, 0.1f);
    if (!s.tied) add("lm_head.weight", {s.vocab, s.hidden}, 0.0f, 0.2f);
    if (s.wrapper) {
        add("model.visual.blocks.0.attn.qkv.weight", {12, 4}, 0.0f, 0.1f);
        add("model.visual.merger.linear_fc1.weight", {4, 4}, 0.0f, 0.1f);
        add("mtp.fc.weight", {s.hidden, 2 * s.hidden}, 0.0f, 0.1f);
        add("mtp.norm.weight", {s.hidden}, 0.0f, 0.1f);
    }
    return t;
}

void writeQwen35HfFolder(const Qwen35Spec& s, const fs::path& folder, const Qwen35Edits& edits) {
    fs::create_directories(folder);
    std::vector<Qwen35Tensor> tensors = makeQwen35Tensors(s);
    if (edits.tensors) edits.tensors(tensors);
    std::string config = configText(s);
    if (edits.config) edits.config(config);
    std::ofstream(folder / "config.json") << config;
    std::ofstream(folder / "generation_config.json") << R"({"bos_token_id": 1, "eos_token_id": 2})";
    writeSafetensors(folder / "model.safetensors", tensors, s.wrapper);
    writeTinyTokenizerModel(folder, s.vocab);
}

std::vector<double> qwen35ReferenceLogits(const Qwen35Spec& sp, const std::vector<Qwen35Tensor>& tensors,
                                          const std::vector<int32_t>& ids) {
    const Weights w{tensors};
    const std::vector<std::string> types = layerTypesOf(sp);
    std::vector<LayerState> states(size_t(sp.layers));
    std::vector<double> logits;
    const Qwen35Tensor& embed = w.get("model.embed_tokens.weight");
    for (size_t pos = 0; pos < ids.size(); ++pos) {
        Vec x(embed.values.begin() + int64_t(ids[pos]) * sp.hidden, embed.values.begin() + int64_t(ids[pos] + 1) * sp.hidden);
        for (int l = 0; l < sp.layers; ++l) {
            const std::string p = "model.layers." + std::to_string(l) + ".";
            Vec h = x;
            rmsNorm(h, 0, h.size(), w.get(p + "input_layernorm.weight"), 1.0, sp.rmsEps);
            const Vec mixed = types[size_t(l)] == "linear_attention" ? deltaNet(sp, w, p, h, states[size_t(l)])
                                                                      : attention(sp, w, p, h, states[size_t(l)], int(pos));
            for (size_t i = 0; i < x.size(); ++i) x[i] += mixed[i];
            Vec n = x;
            rmsNorm(n, 0, n.size(), w.get(p + "post_attention_layernorm.weight"), 1.0, sp.rmsEps);
            Vec gate = matvec(w.get(p + "mlp.gate_proj.weight"), n);
            const Vec up = matvec(w.get(p + "mlp.up_proj.weight"), n);
            for (size_t i = 0; i < gate.size(); ++i) gate[i] = silu(gate[i]) * up[i];
            const Vec down = matvec(w.get(p + "mlp.down_proj.weight"), gate);
            for (size_t i = 0; i < x.size(); ++i) x[i] += down[i];
        }
        rmsNorm(x, 0, x.size(), w.get("model.norm.weight"), 1.0, sp.rmsEps);
        const Vec out = matvec(w.get(sp.tied ? "model.embed_tokens.weight" : "lm_head.weight"), x);
        logits.insert(logits.end(), out.begin(), out.end());
    }
    return logits;
}

} // namespace hearth::test
