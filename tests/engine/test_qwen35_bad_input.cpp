// Broken or partial Qwen3.5 files: each is refused with a message naming the tensor or key (or,
// for an MTP block, loaded with a note), never a crash. The GGUFs are a good qwen35 file rewritten
// with one thing changed; the HF folders are the test builder's with one edit.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "check.h"
#include "hearth/engine.h"
#include "io/gguf.h"
#include "model/model_loader.h"
#include "qwen35_builder.h"
#include "test_helpers.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;

namespace {

fs::path g_dir;

// `source` rewritten: metadata through `keys` (which may change or drop entries), tensors through
// `keep`, plus `extra` tensors copied from the source under new names (old name, new name).
fs::path rewrite(const fs::path& source, const std::string& name,
                 const std::function<void(std::vector<std::pair<std::string, io::GgufValue>>&)>& keys,
                 const std::function<bool(const std::string&)>& keep = {},
                 const std::vector<std::pair<std::string, std::string>>& extra = {}) {
    auto file = io::GgufFile::open(source.string());
    CHECK_OK(file);
    const fs::path out = g_dir / name;
    if (!file.isOk()) return out;
    std::vector<std::pair<std::string, io::GgufValue>> metadata = file->metadata();
    if (keys) keys(metadata);
    io::GgufWriter w;
    for (auto& [key, value] : metadata) w.set(key, value);
    for (const io::GgufTensorInfo& t : file->tensors())
        if (!keep || keep(t.name)) w.addTensorView(t.name, t.type, t.ne, t.data, t.bytes);
    for (const auto& [from, to] : extra) {
        const io::GgufTensorInfo* t = file->findTensor(from);
        if (t) w.addTensorView(to, t->type, t->ne, t->data, t->bytes);
    }
    CHECK_OK(w.write(out.string()));
    return out;
}

void setKey(std::vector<std::pair<std::string, io::GgufValue>>& m, const std::string& key, io::GgufValue value) {
    for (auto& [k, v] : m)
        if (k == key) {
            v = std::move(value);
            return;
        }
    m.emplace_back(key, std::move(value));
}

void checkGguf(const fs::path& good) {
    // A missing SSM tensor.
    const fs::path noA = rewrite(good, "no_ssm_a.gguf", {}, [](const std::string& n) { return n != "blk.1.ssm_a"; });
    CHECK_ERR(Model::load({.path = noA.string()}), StatusCode::NotFound, "missing tensor blk.1.ssm_a");
    const fs::path noConv = rewrite(good, "no_conv.gguf", {}, [](const std::string& n) { return n != "blk.0.ssm_conv1d.weight"; });
    CHECK_ERR(Model::load({.path = noConv.string()}), StatusCode::NotFound, "missing tensor blk.0.ssm_conv1d.weight");

    // State sizes that disagree with the head counts or the tensors.
    const fs::path inner = rewrite(good, "inner.gguf", [](auto& m) { setKey(m, "qwen35.ssm.inner_size", io::GgufValue::u32(62)); });
    CHECK_ERR(Model::load({.path = inner.string()}), StatusCode::DataLoss, "qwen35.ssm.inner_size (62) is not a multiple");
    const fs::path state = rewrite(good, "state.gguf", [](auto& m) { setKey(m, "qwen35.ssm.state_size", io::GgufValue::u32(8)); });
    CHECK_ERR(Model::load({.path = state.string()}), StatusCode::DataLoss, "tensor blk.0.attn_qkv.weight has shape");
    const fs::path groups = rewrite(good, "groups.gguf", [](auto& m) { setKey(m, "qwen35.ssm.group_count", io::GgufValue::u32(3)); });
    CHECK_ERR(Model::load({.path = groups.string()}), StatusCode::DataLoss, "value heads are not a multiple of 3 key heads");
    const fs::path noKey = rewrite(good, "no_key.gguf", [](auto& m) {
        std::erase_if(m, [](const auto& kv) { return kv.first == "qwen35.ssm.conv_kernel"; });
    });
    CHECK_ERR(Model::load({.path = noKey.string()}), StatusCode::NotFound, "qwen35.ssm.conv_kernel");

    // An MTP block after the layers: ignored with a note, the model runs as without it.
    std::vector<std::pair<std::string, std::string>> mtp;
    for (const char* t : {"attn_norm.weight", "attn_q.weight", "attn_k.weight", "attn_v.weight", "attn_output.weight"})
        mtp.emplace_back(std::string("blk.3.") + t, std::string("blk.4.") + t);
    mtp.emplace_back("blk.3.ffn_up.weight", "blk.4.nextn.eh_proj.weight");
    const fs::path withMtp = rewrite(good, "mtp.gguf", [](auto& m) {
        setKey(m, "qwen35.block_count", io::GgufValue::u32(5));
        setKey(m, "qwen35.nextn_predict_layers", io::GgufValue::u32(1));
    }, {}, mtp);
    auto info = describeModelFile(withMtp.string());
    CHECK_OK(info);
    if (info.isOk()) {
        CHECK_EQ(info->layers, 4);
        CHECK(info->notes.size() == 1 && info->notes[0].find("blk.4.*") != std::string::npos);
        if (!info->notes.empty()) std::printf("MTP note: %s\n", info->notes[0].c_str());
    }
    const std::vector<int32_t> ids = {1, 50, 60, 70, 80};
    const std::vector<float> plain = test::teacherForcedLogits(good.string(), ids, 1);
    CHECK(test::relativeError(test::teacherForcedLogits(withMtp.string(), ids, 1), plain) == 0.0);
    const fs::path allMtp = rewrite(good, "all_mtp.gguf", [](auto& m) { setKey(m, "qwen35.nextn_predict_layers", io::GgufValue::u32(4)); });
    CHECK_ERR(Model::load({.path = allMtp.string()}), StatusCode::DataLoss, "qwen35.nextn_predict_layers (4) leaves no layers");

    // A vision encoder (llama.cpp's mmproj file) instead of the model.
    const fs::path clip = rewrite(good, "mmproj.gguf", [](auto& m) { setKey(m, "general.architecture", io::GgufValue::string("clip")); },
                                  [](const std::string& n) { return n.rfind("blk.", 0) != 0; });
    CHECK_ERR(Model::load({.path = clip.string()}), StatusCode::Unsupported, "only a vision encoder");
}

void checkHf() {
    auto folder = [](const std::string& name, const test::Qwen35Spec& spec, const test::Qwen35Edits& edits) {
        const fs::path dir = g_dir / name;
        test::writeQwen35HfFolder(spec, dir, edits);
        return dir.string();
    };
    test::Qwen35Spec wrapped;
    wrapped.wrapper = true;
    // layer_types with fewer entries than layers.
    const std::string types = folder("types", {}, {.config = [](std::string& c) {
        c.replace(c.find("\"linear_attention\","), std::string("\"linear_attention\",").size(), "");
    }});
    CHECK_ERR(Model::load({.path = types}), StatusCode::DataLoss, "key layer_types has 3 entries but num_hidden_layers is 4");
    // A missing SSM tensor, named as the wrapper's file spells it.
    const std::string noDt = folder("no_dt", wrapped, {.tensors = [](auto& t) {
        std::erase_if(t, [](const test::Qwen35Tensor& x) { return x.name == "model.layers.2.linear_attn.dt_bias"; });
    }});
    CHECK_ERR(Model::load({.path = noDt}), StatusCode::NotFound, "missing tensor model.language_model.layers.2.linear_attn.dt_bias");
    // A conv kernel of the wrong width.
    const std::string conv = folder("conv", {}, {.tensors = [](auto& t) {
        for (test::Qwen35Tensor& x : t)
            if (x.name == "model.layers.0.linear_attn.conv1d.weight") x.shape = {x.shape[0] * 2, 1, x.shape[2] / 2};
    }});
    CHECK_ERR(Model::load({.path = conv}), StatusCode::DataLoss, "tensor model.layers.0.linear_attn.conv1d.weight has shape");
    // Value heads that do not divide among the key heads.
    const std::string heads = folder("heads", {}, {.config = [](std::string& c) {
        c.replace(c.find("\"linear_num_value_heads\": 4"), std::string("\"linear_num_value_heads\": 4").size(),
                  "\"linear_num_value_heads\": 5");
    }});
    CHECK_ERR(Model::load({.path = heads}), StatusCode::DataLoss, "5 linear-attention value heads are not a multiple of 2");
    // Only the vision tower.
    const std::string vision = folder("vision", wrapped, {.tensors = [](auto& t) {
        std::erase_if(t, [](const test::Qwen35Tensor& x) { return x.name.rfind("model.visual.", 0) != 0; });
    }});
    CHECK_ERR(Model::load({.path = vision}), StatusCode::NotFound, "holds only vision-tower tensors");
    CHECK_ERR(describeModelFile(vision), StatusCode::NotFound, "no model.language_model.embed_tokens.weight");
}

} // namespace

int main() {
    test::announce("qwen35_bad_input", "cpu");
    g_dir = test::scratchDir("qwen35_bad_input");
    test::writeQwen35HfFolder({}, g_dir / "hf");
    const fs::path good = g_dir / "good.gguf";
    CHECK_OK(quantizeModel({.inputPath = (g_dir / "hf").string(), .outputPath = good.string(), .preset = "F32", .threads = 1}));
    checkGguf(good);
    checkHf();
    return test::finish();
}
