// The CPU memory estimate against what the files really hold (weights = the tensor bytes of the
// file, KV = 2 x layers x kvHeads x headDim x context x element size) and against what real
// sessions of each KV type allocate, and the refusal of a session whose KV cache cannot fit:
// OutOfMemory with the estimate's numbers, never a crash.
#include <climits>
#include <fstream>

#include "check.h"
#include "hearth/chat.h"
#include "hearth/engine.h"
#include "io/gguf.h"
#include "synth/synth.h"
#include "model_builder.h"
#include "testdata.h"

using namespace hearth;
namespace fs = std::filesystem;

namespace {

fs::path g_dir;

MemoryEstimate estimate(const fs::path& path, int32_t context, KvType type) {
    auto e = estimateMemory(path.string(), context, type, DeviceKind::Cpu);
    CHECK_MSG(e.isOk(), path << ": " << e.status().message());
    return e.isOk() ? e.value() : MemoryEstimate{};
}

// KV for every context and element size asked, the sum, and the fit against the CPU's free memory.
void checkKv(const fs::path& path, const ModelInfo& info) {
    for (KvType type : {KvType::F32, KvType::F16, KvType::BF16}) {
        const uint64_t bytes = type == KvType::F32 ? 4 : 2;
        const uint64_t perToken = 2ull * info.layers * info.kvHeads * info.headDim * bytes;
        for (int32_t context : {0, 100, 4096}) {
            const MemoryEstimate e = estimate(path, context, type);
            const uint64_t tokens = context > 0 ? uint64_t(context) : uint64_t(info.contextLength);
            CHECK_MSG(e.kvCacheBytes == perToken * tokens, kvTypeName(type) << " ctx " << context << ": " << e.kvCacheBytes);
            CHECK_EQ(e.kvBytesPer1024Tokens, perToken * 1024);
            CHECK_EQ(e.recurrentStateBytes, 0u);
            CHECK_EQ(e.decode.kvPerPosition, perToken);
            CHECK_EQ(e.deviceContextBytes, 0u);
            CHECK_EQ(e.totalBytes(), e.weightsBytes + e.kvCacheBytes + e.workspaceBytes);
            CHECK_EQ(int(e.device.kind), int(DeviceKind::Cpu));
            CHECK_EQ(e.fits, e.totalBytes() <= e.device.freeBytes);
        }
    }
}

uint64_t expectedWeightBytes(const test::TinyModelSpec& spec) {
    uint64_t total = 0;
    for (const test::TinyTensor& t : test::makeTinyTensors(spec))
        total += t.values.size() * (t.shape.size() == 2 ? 2u : 4u); // F16 matrices, F32 vectors
    return total;
}

void checkTinyModels() {
    test::TinyModelSpec spec;
    spec.type = DType::F16;
    test::writeTinyGguf(spec, g_dir / "tiny.gguf");
    test::writeTinyHfFolder(spec, g_dir / "tiny-hf");
    const uint64_t expected = expectedWeightBytes(spec);

    // safetensors: 8 bytes of header length, the header, then the tensors back to back.
    const fs::path st = g_dir / "tiny-hf/model.safetensors";
    uint64_t headerLen = 0;
    std::ifstream(st, std::ios::binary).read(reinterpret_cast<char*>(&headerLen), 8);
    CHECK_EQ(fs::file_size(st) - 8 - headerLen, expected);
    CHECK_EQ(estimate(g_dir / "tiny-hf", 0, KvType::F32).weightsBytes, expected);
    CHECK_EQ(estimate(g_dir / "tiny.gguf", 0, KvType::F32).weightsBytes, expected);

    auto model = Model::load({.path = (g_dir / "tiny.gguf").string(), .threads = 1});
    CHECK_OK(model);
    if (model.isOk()) checkKv(g_dir / "tiny.gguf", model.value()->info());
}

// A quantized file of mixed types: the weights are the tensor data blob less its alignment padding.
void checkQuantizedFile() {
    SynthParams p;
    p.shape = "tiny-qwen3";
    p.preset = QuantPreset::Q4_K_M;
    p.seed = 1;
    p.threads = 1;
    p.skipTensorData = true; // a sparse file: the layout is all that is measured
    p.outputPath = (g_dir / "q4km.gguf").string();
    CHECK_OK(writeSynthModel(p));
    auto file = io::GgufFile::open(p.outputPath);
    CHECK_OK(file);
    if (!file.isOk()) return;
    const uint64_t blob = fs::file_size(p.outputPath) - file.value().dataOffset();
    const uint64_t padding = file.value().alignment() * file.value().tensors().size();
    const MemoryEstimate e = estimate(p.outputPath, 0, KvType::F16);
    CHECK_MSG(e.weightsBytes <= blob && e.weightsBytes + padding > blob, e.weightsBytes << " vs a blob of " << blob);
}

void checkOutOfMemory(const fs::path& stories) {
    auto model = Model::load({.path = stories.string(), .threads = 1});
    CHECK_OK(model);
    if (!model.isOk()) return;
    // stories260K: 1280 bytes of F32 KV a token, 2.7 TB for the largest context.
    const MemoryEstimate huge = estimate(stories, INT32_MAX, KvType::F32);
    CHECK(!huge.fits);
    CHECK(huge.device.freeBytes > 0 && huge.kvCacheBytes > huge.device.freeBytes);
    const std::string needs = "the KV cache for " + std::to_string(INT32_MAX) + " tokens needs " +
                              std::to_string(huge.kvCacheBytes >> 20) + " MiB";
    CHECK_ERR(Session::create(*model.value(), {.contextLength = INT32_MAX, .kvType = KvType::F32}),
              StatusCode::OutOfMemory, needs);
    CHECK_ERR(ChatSession::create(*model.value(), {.contextLength = INT32_MAX, .kvType = KvType::F32}, {}),
              StatusCode::OutOfMemory, needs);
    // Nothing was left half-made: a context that fits works on the same model.
    const MemoryEstimate fits = estimate(stories, 512, KvType::F32);
    CHECK(fits.fits);
    auto session = Session::create(*model.value(), {.contextLength = 512, .kvType = KvType::F32});
    CHECK_OK(session);
    if (session.isOk()) CHECK_OK(session.value()->generate(model.value()->encode("Once", true), {.maxTokens = 4}));
    checkKv(stories, model.value()->info());
    CHECK_EQ(fits.weightsBytes, model.value()->info().parameterCount * 4); // every tensor F32
}

// The estimate is what a real session holds: the same weights, KV cache and workspace, for every
// KV type, context and preset; and the decode bytes are the weights a step reads.
void checkAgainstSessions(const fs::path& stories) {
    for (const std::string quant : {"", "Q8_0"}) {
        auto model = Model::load({.path = stories.string(), .threads = 1, .quant = quant});
        CHECK_OK(model);
        if (!model.isOk()) return;
        for (KvType type : {KvType::F32, KvType::F16, KvType::BF16})
            for (int32_t context : {1, 100, 512}) {
                auto e = estimateMemory(
                    {.path = stories.string(), .contextLength = context, .kvType = type, .quant = quant});
                auto session = Session::create(*model.value(), {.contextLength = context, .kvType = type});
                CHECK_OK(e);
                CHECK_OK(session);
                if (!e.isOk() || !session.isOk()) continue;
                const MemoryReport r = session.value()->memoryReport();
                const std::string what = "'" + quant + "' " + kvTypeName(type) + " ctx " + std::to_string(context);
                CHECK_MSG(e->weightsBytes == r.weightsBytes, what << ": " << e->weightsBytes << " vs " << r.weightsBytes);
                CHECK_MSG(e->kvCacheBytes == r.kvCacheBytes, what << ": " << e->kvCacheBytes << " vs " << r.kvCacheBytes);
                CHECK_MSG(e->workspaceBytes == r.workspaceBytes,
                          what << ": " << e->workspaceBytes << " vs " << r.workspaceBytes);
                const DecodeBytes d = session.value()->decodeBytes();
                CHECK_EQ(d.weights, e->decode.weights);
                CHECK_EQ(d.kvPerPosition, e->decode.kvPerPosition);
                CHECK_EQ(d.at(context), d.weights + uint64_t(context) * d.kvPerPosition);
                // stories260K ties its embeddings: the LM head is the embedding, read once, so
                // a step reads every weight the model holds.
                CHECK_EQ(d.weights, r.weightsBytes);
            }
    }
    // An unknown preset is refused by name; Auto without a GPU is the CPU.
    CHECK_ERR(estimateMemory({.path = stories.string(), .quant = "Q3_X"}), StatusCode::InvalidArgument, "Q3_X");
    auto cuda = estimateMemory({.path = stories.string(), .device = DeviceKind::Cuda, .gpu = 99});
    CHECK_ERR(cuda, StatusCode::NotFound, "cuda device");
    auto autoDevice = estimateMemory({.path = stories.string(), .device = DeviceKind::Auto, .gpu = 99});
    CHECK_OK(autoDevice);
    if (autoDevice.isOk()) CHECK(autoDevice->device.kind == DeviceKind::Cpu);
}

// An untied model: the step reads the LM head but not the embedding table (only its row).
void checkUntiedDecodeBytes() {
    test::TinyModelSpec spec;
    spec.type = DType::F16;
    spec.tied = false;
    test::writeTinyGguf(spec, g_dir / "untied.gguf");
    auto e = estimateMemory({.path = (g_dir / "untied.gguf").string(), .kvType = KvType::F32});
    CHECK_OK(e);
    if (!e.isOk()) return;
    const uint64_t embedding = uint64_t(spec.vocab) * uint64_t(spec.hidden) * 2;
    CHECK_EQ(e->decode.weights, e->weightsBytes - embedding);
}

} // namespace

int main() {
    test::announce("memory", "cpu");
    const fs::path stories = test::requireTestData("models/stories260K/stories260K-f32.gguf");
    g_dir = test::scratchDir("memory");
    checkTinyModels();
    checkQuantizedFile();
    checkOutOfMemory(stories);
    checkAgainstSessions(stories);
    checkUntiedDecodeBytes();
    CHECK_ERR(estimateMemory((g_dir / "none.gguf").string(), 0, KvType::F32, DeviceKind::Cpu), StatusCode::NotFound,
              "none.gguf");
    CHECK_ERR(estimateMemory((g_dir / "tiny.gguf").string(), -1, KvType::F32, DeviceKind::Cpu),
              StatusCode::InvalidArgument, "context length");
    return test::finish();
}
