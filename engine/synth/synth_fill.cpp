// Random tensor contents for synthetic models. Quantized tensors are written directly as random
// blocks (codes drawn from a discretised normal, scales set so values have ~0.02 std and zero
// mean) instead of generating floats and quantizing them: that is what makes a 19 GB Q4_K_M
// file a matter of seconds. Block layouts are GGUF's (engines.md §3b).
//
// Random streams are counter-based: each chunk seeds its own xoshiro256** from a hash of
// (seed, tensor index, chunk index), so chunks can be generated in any order on any thread.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "synth/synth_internal.h"
#include "quant/dequantize.h"
#include "sampling/rng.h"

namespace hearth::synth {
namespace {

constexpr float kWeightStd = 0.02f;
constexpr uint64_t kChunkBytes = uint64_t(4) << 20;

// A stateless 64-bit finaliser (splitmix64's output function).
uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t streamKey(uint64_t seed, uint64_t tensorIndex, uint64_t chunkIndex) {
    uint64_t k = mix64(seed + 0x9E3779B97F4A7C15ull);
    k = mix64(k ^ (tensorIndex * 0xD1B54A32D192ED03ull + 1));
    return mix64(k ^ (chunkIndex * 0x8CB92BA72F3D8DD7ull + 2));
}

// 16-bit uniforms, four per 64-bit draw.
class Uniform16 {
public:
    explicit Uniform16(uint64_t key) : m_rng(key) {}
    uint32_t next() {
        if (m_left == 0) {
            m_bits = m_rng.nextU64();
            m_left = 4;
        }
        const uint32_t v = uint32_t(m_bits & 0xFFFF);
        m_bits >>= 16;
        --m_left;
        return v;
    }
    // Approximately standard normal: the sum of four uniforms (Irwin-Hall), rescaled to unit
    // variance. Bounded at ±3.46, which random weights do not miss, and cheap.
    float normal() {
        const uint64_t b = m_rng.nextU64();
        const uint32_t sum = uint32_t(b & 0xFFFF) + uint32_t((b >> 16) & 0xFFFF) + uint32_t((b >> 32) & 0xFFFF) +
                             uint32_t(b >> 48);
        constexpr float kScale = 1.7320508f / 65536.0f; // sqrt(12/4) per unit of the sum
        return (float(sum) + 2.0f - 2.0f * 65536.0f) * kScale;
    }
    float unit() { return (float(next()) + 0.5f) / 65536.0f; } // (0, 1)

private:
    Xoshiro256 m_rng;
    uint64_t m_bits = 0;
    int m_left = 0;
};

// Maps a 16-bit uniform to floor(z * sigma + offset) clamped to [lo, hi] with z ~ N(0, 1):
// the quantized codes of normally distributed weights.
struct CodeTable {
    std::array<int8_t, 65536> code{};

    CodeTable(double sigma, double offset, int lo, int hi) {
        int k = lo;
        for (int u = 0; u < 65536; ++u) {
            const double p = (u + 0.5) / 65536.0;
            // Advance while the upper edge of bin k lies below p.
            while (k < hi && 0.5 * std::erfc(-((k + 1 - offset) / sigma) / std::sqrt(2.0)) < p) ++k;
            code[u] = int8_t(k);
        }
    }
};

// Codes per type: sigma in code steps, chosen so that step * sigma = 0.02.
const CodeTable& q8Codes() { static const CodeTable t(40.0, 0.5, -127, 127); return t; }
const CodeTable& q4Codes() { static const CodeTable t(2.5, 8.5, 0, 15); return t; }  // zero at 8
const CodeTable& q5Codes() { static const CodeTable t(5.0, 16.5, 0, 31); return t; } // zero at 16
const CodeTable& q4kCodes() { static const CodeTable t(2.5, 8.0, 0, 15); return t; } // zero at 7.5
const CodeTable& q5kCodes() { static const CodeTable t(5.0, 16.0, 0, 31); return t; } // zero at 15.5
const CodeTable& q6kCodes() { static const CodeTable t(10.0, 32.5, 0, 63); return t; } // zero at 32

void drawCodes(Uniform16& rng, const CodeTable& table, int n, int* out) {
    for (int i = 0; i < n; ++i) out[i] = table.code[rng.next()];
}

void putHalf(uint8_t* dst, float v) {
    const uint16_t h = floatToHalf(v);
    std::memcpy(dst, &h, 2);
}

// A per-block scale jitter in [0.85, 1.15): blocks of real weights differ in magnitude.
float jitter(Uniform16& rng) { return 0.85f + 0.3f * rng.unit(); }

void blockQ8_0(Uniform16& rng, uint8_t* b) {
    int c[32];
    drawCodes(rng, q8Codes(), 32, c);
    putHalf(b, kWeightStd / 40.0f * jitter(rng));
    for (int i = 0; i < 32; ++i) b[2 + i] = uint8_t(int8_t(c[i]));
}

void blockQ4_0(Uniform16& rng, uint8_t* b) {
    int c[32];
    drawCodes(rng, q4Codes(), 32, c);
    putHalf(b, kWeightStd / 2.5f * jitter(rng));
    for (int j = 0; j < 16; ++j) b[2 + j] = uint8_t(c[j] | (c[j + 16] << 4));
}

void blockQ5_0(Uniform16& rng, uint8_t* b) {
    int c[32];
    drawCodes(rng, q5Codes(), 32, c);
    putHalf(b, kWeightStd / 5.0f * jitter(rng));
    uint32_t qh = 0;
    for (int j = 0; j < 16; ++j) {
        b[6 + j] = uint8_t((c[j] & 15) | ((c[j + 16] & 15) << 4));
        qh |= uint32_t(c[j] >> 4) << j;
        qh |= uint32_t(c[j + 16] >> 4) << (j + 16);
    }
    std::memcpy(b + 2, &qh, 4);
}

// Q4_K/Q5_K header: d, dmin and eight 6-bit (scale, min) pairs. Every sub-block gets
// min = scale and dmin = d * zero, so that code `zero` means 0: sub-blocks are zero-mean.
void kHeader(Uniform16& rng, uint8_t* b, float step, float zero) {
    uint8_t sc[8];
    for (uint8_t& s : sc) s = uint8_t(40 + rng.next() % 24); // 40..63, mean 51.5
    const float d = step / 51.5f * jitter(rng);
    const uint16_t dh = floatToHalf(d);
    std::memcpy(b, &dh, 2);
    putHalf(b + 2, halfToFloat(dh) * zero);
    uint8_t* s = b + 4;
    for (int j = 0; j < 4; ++j) {
        s[j] = uint8_t((sc[j] & 63) | ((sc[j + 4] >> 4) << 6));     // scale j, top bits of scale j+4
        s[j + 4] = uint8_t((sc[j] & 63) | ((sc[j + 4] >> 4) << 6)); // min j (= scale j), top bits of min j+4
        s[j + 8] = uint8_t((sc[j + 4] & 15) | ((sc[j + 4] & 15) << 4)); // low bits of scale/min j+4
    }
}

void blockQ4_K(Uniform16& rng, uint8_t* b) {
    kHeader(rng, b, kWeightStd / 2.5f, 7.5f);
    int c[256];
    drawCodes(rng, q4kCodes(), 256, c);
    uint8_t* qs = b + 16;
    for (int chunk = 0; chunk < 4; ++chunk)
        for (int l = 0; l < 32; ++l)
            qs[32 * chunk + l] = uint8_t(c[64 * chunk + l] | (c[64 * chunk + 32 + l] << 4));
}

void blockQ5_K(Uniform16& rng, uint8_t* b) {
    kHeader(rng, b, kWeightStd / 5.0f, 15.5f);
    int c[256];
    drawCodes(rng, q5kCodes(), 256, c);
    uint8_t* qh = b + 16;
    uint8_t* qs = b + 48;
    std::memset(qh, 0, 32);
    for (int chunk = 0; chunk < 4; ++chunk)
        for (int l = 0; l < 32; ++l) {
            const int lo = c[64 * chunk + l], hi = c[64 * chunk + 32 + l];
            qs[32 * chunk + l] = uint8_t((lo & 15) | ((hi & 15) << 4));
            qh[l] |= uint8_t(((lo >> 4) << (2 * chunk)) | ((hi >> 4) << (2 * chunk + 1)));
        }
}

void blockQ6_K(Uniform16& rng, uint8_t* b) {
    int c[256];
    drawCodes(rng, q6kCodes(), 256, c);
    uint8_t* ql = b;
    uint8_t* qh = b + 128;
    int8_t scales[16];
    for (int8_t& s : scales) s = int8_t(8 + rng.next() % 17); // 8..24, mean 16
    std::memcpy(b + 192, scales, 16);
    putHalf(b + 208, kWeightStd / 10.0f / 16.0f * jitter(rng));
    for (int half = 0; half < 2; ++half) {
        const int* e = c + 128 * half;
        for (int l = 0; l < 32; ++l) {
            ql[64 * half + l] = uint8_t((e[l] & 15) | ((e[l + 64] & 15) << 4));
            ql[64 * half + l + 32] = uint8_t((e[l + 32] & 15) | ((e[l + 96] & 15) << 4));
            qh[32 * half + l] = uint8_t((e[l] >> 4) | ((e[l + 32] >> 4) << 2) | ((e[l + 64] >> 4) << 4) |
                                        ((e[l + 96] >> 4) << 6));
        }
    }
}

void fillFloats(Uniform16& rng, SynthFill fill, DType type, int64_t n, uint8_t* dst) {
    const float mean = fill == SynthFill::Norm ? 1.0f : 0.0f;
    for (int64_t i = 0; i < n; ++i) {
        const float v = mean + kWeightStd * rng.normal();
        if (type == DType::F32) {
            std::memcpy(dst + 4 * i, &v, 4);
        } else {
            const uint16_t h = type == DType::F16 ? floatToHalf(v) : floatToBf16(v);
            std::memcpy(dst + 2 * i, &h, 2);
        }
    }
}

using BlockFn = void (*)(Uniform16&, uint8_t*);

BlockFn blockFunction(DType type) {
    switch (type) {
    case DType::Q8_0: return blockQ8_0;
    case DType::Q4_0: return blockQ4_0;
    case DType::Q5_0: return blockQ5_0;
    case DType::Q4_K: return blockQ4_K;
    case DType::Q5_K: return blockQ5_K;
    case DType::Q6_K: return blockQ6_K;
    default: return nullptr;
    }
}

} // namespace

int64_t rowsPerChunk(const SynthTensor& tensor) {
    const uint64_t rowBytes = tensor.bytes / uint64_t(tensor.rows());
    return std::clamp<int64_t>(int64_t(kChunkBytes / std::max<uint64_t>(rowBytes, 1)), 1, tensor.rows());
}

void fillChunk(const SynthTensor& tensor, uint64_t seed, uint64_t tensorIndex, uint64_t chunkIndex,
               int64_t firstRow, int64_t rows, uint8_t* dst) {
    const int64_t n = rows * tensor.rowLength();
    if (tensor.fill == SynthFill::Fixed) { // F32 by construction
        std::memcpy(dst, tensor.fixedValues.data() + firstRow * tensor.rowLength(), size_t(n) * sizeof(float));
        return;
    }
    Uniform16 rng(streamKey(seed, tensorIndex, chunkIndex));
    if (BlockFn block = blockFunction(tensor.type)) {
        const auto traits = *dtypeTraits(uint32_t(tensor.type));
        const int64_t blocks = n / traits.blockElements;
        for (int64_t i = 0; i < blocks; ++i) block(rng, dst + i * traits.blockBytes);
        return;
    }
    fillFloats(rng, tensor.fill, tensor.type, n, dst);
}

} // namespace hearth::synth
