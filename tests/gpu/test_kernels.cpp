// The forward pass's kernels other than the tuned GEMVs (kernels/dequantize.cu, gemv_generic.cu,
// rmsnorm.cu, qkv_cache.cu, attention.cu, elementwise.cu) against the CPU reference on fresh
// random inputs: outputs poisoned with NaN first, sizes that are not multiples of the tiles.
#include "gpu_test.h"
HEARTH_GPU_TEST_NEEDS_KERNELS("kernels")
#ifdef HEARTH_HAVE_KERNELS

#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/cpu_ops.h"
#include "hearth_kernels/gemv.h"
#include "hearth_kernels/ops.h"
#include "quant/dequantize.h"
#include "quant/quantize.h"
#include "quant/types.h"
#include "sampling/sampler.h"

using namespace hearth;
using namespace hearth::kernels;

namespace {

std::mt19937 g_rng(20261201);

std::vector<float> randomVector(size_t n, float scale = 1.0f) { return test::randomNormal(g_rng, n, scale); }

using test::Buffer;
using test::maxAbs;
using test::worstError;

struct TypeCase {
    DType dtype;
    GemvType gemv;
};
const TypeCase kTypes[] = {{DType::F32, GemvType::F32},   {DType::F16, GemvType::F16},   {DType::BF16, GemvType::BF16},
                           {DType::Q8_0, GemvType::Q8_0}, {DType::Q4_0, GemvType::Q4_0}, {DType::Q5_0, GemvType::Q5_0},
                           {DType::Q4_K, GemvType::Q4_K}, {DType::Q5_K, GemvType::Q5_K}, {DType::Q6_K, GemvType::Q6_K}};

// A matrix quantized by the engine, on the device in the kernels' layout, and dequantized on the CPU.
struct Matrix {
    int n, k;
    std::vector<uint8_t> gguf;
    std::vector<float> dequantized; // [n][k]
    Buffer device;
    Matrix(const TypeCase& t, int rows, int cols)
        : n(rows), k(cols), gguf(size_t(*rowBytes(t.dtype, uint64_t(cols))) * rows), dequantized(size_t(rows) * cols),
          device(gguf.size()) {
        const size_t rb = gguf.size() / size_t(rows);
        for (int r = 0; r < rows; ++r) {
            const std::vector<float> row = randomVector(size_t(cols));
            if (t.dtype == DType::F32)
                std::memcpy(gguf.data() + r * rb, row.data(), rb);
            else
                quantizeRow(t.dtype, row.data(), gguf.data() + r * rb, cols);
            dequantizeRow(t.dtype, gguf.data() + r * rb, dequantized.data() + size_t(r) * cols, cols);
        }
        if (gemvNeedsRepack(t.gemv)) {
            Buffer raw(gguf.size());
            raw.upload(gguf.data());
            CHECK(launchGemvRepack(t.gemv, raw.p, device.p, rows, cols, nullptr) == cudaSuccess);
            cudaDeviceSynchronize();
        } else {
            device.upload(gguf.data());
        }
    }
};

void dequantizeAndEmbed() {
    // k = 512 takes the eight-a-thread kernel for every type; k = 172 (F32/F16 only) the scalar one.
    for (const TypeCase& t : kTypes)
        for (const int k : {512, 172}) {
            if (k % 8 && t.gemv != GemvType::F32 && t.gemv != GemvType::F16) continue;
            const int n = 37;
            Matrix m(t, n, k);
            const int row0 = 3, rows = 30;
            Buffer out(size_t(rows) * k * sizeof(float));
            CHECK(launchDequantizeRows(t.gemv, m.device.p, n, k, row0, rows, out.as<float>(), nullptr) == cudaSuccess);
            const std::vector<float> got = out.download<float>(size_t(rows) * k);
            const std::vector<float> want(m.dequantized.begin() + size_t(row0) * k, m.dequantized.begin() + size_t(row0 + rows) * k);
            const double err = worstError(got, want);
            CHECK_MSG(err <= 1e-6, dtypeName(t.dtype) << " k " << k << " dequantize: worst error " << err);
            // fp16 output: the same values rounded once.
            Buffer half(size_t(rows) * k * 2);
            CHECK(launchDequantizeRows(t.gemv, m.device.p, n, k, row0, rows, half.as<__half>(), nullptr) == cudaSuccess);
            const std::vector<uint16_t> h = half.download<uint16_t>(size_t(rows) * k);
            std::vector<float> hf(h.size());
            for (size_t i = 0; i < h.size(); ++i) hf[i] = halfToFloat(h[i]);
            CHECK_MSG(worstError(hf, want) <= 1e-3, dtypeName(t.dtype) << " dequantize to fp16");
            // The embedding lookup: rows by id, 0 for an id outside the table.
            const std::vector<int> ids = {5, 0, 36, -1, 37, 5};
            Buffer dIds(ids.size() * sizeof(int));
            dIds.upload(ids.data());
            Buffer emb(ids.size() * k * sizeof(float));
            CHECK(launchEmbed(t.gemv, m.device.p, n, k, dIds.as<int>(), int(ids.size()), emb.as<float>(), nullptr) == cudaSuccess);
            const std::vector<float> e = emb.download<float>(ids.size() * k);
            for (size_t i = 0; i < ids.size(); ++i)
                for (int c = 0; c < k; ++c) {
                    const float want1 = ids[i] >= 0 && ids[i] < n ? m.dequantized[size_t(ids[i]) * k + c] : 0.0f;
                    if (std::fabs(e[i * k + c] - want1) > 1e-6f * std::max(1.0f, std::fabs(want1))) {
                        CHECK_MSG(false, dtypeName(t.dtype) << " embed id " << ids[i] << " col " << c);
                        break;
                    }
                }
        }
}

void genericGemv() {
    for (const TypeCase& t : kTypes) {
        if (t.gemv != GemvType::F32 && t.gemv != GemvType::F16 && t.gemv != GemvType::Q5_0) continue;
        for (const int k : {t.gemv == GemvType::Q5_0 ? 96 : 172, 4096}) {
            const int n = 75;
            Matrix m(t, n, k);
            const std::vector<float> x = randomVector(size_t(k));
            Buffer dx(x.size() * 4), y(size_t(n) * 4), glu(size_t(n) * 4);
            dx.upload(x.data());
            CHECK(launchGemv(t.gemv, m.device.p, dx.p, y.as<float>(), n, k, nullptr) == cudaSuccess);
            CHECK(launchGemvGateUp(t.gemv, m.device.p, m.device.p, dx.p, glu.as<float>(), n, k, nullptr) == cudaSuccess);
            std::vector<float> want(static_cast<size_t>(n)), wantGlu(static_cast<size_t>(n));
            for (int r = 0; r < n; ++r) {
                double s = 0;
                for (int c = 0; c < k; ++c) s += double(m.dequantized[size_t(r) * k + c]) * x[size_t(c)];
                want[size_t(r)] = float(s);
                wantGlu[size_t(r)] = float(s / (1.0 + std::exp(-s)) * s);
            }
            const double err = worstError(y.download<float>(size_t(n)), want);
            CHECK_MSG(err <= 1e-5, dtypeName(t.dtype) << " generic GEMV k=" << k << ": " << err);
            CHECK_MSG(worstError(glu.download<float>(size_t(n)), wantGlu) <= 1e-4, dtypeName(t.dtype) << " gate+up");
        }
    }
}

void rmsNorm() {
    const int n = 1024, rows = 3;
    const float eps = 1e-6f;
    std::vector<float> x = randomVector(size_t(n) * rows, 3.0f), delta = randomVector(x.size()), w = randomVector(size_t(n));
    Buffer dx(x.size() * 4), dd(x.size() * 4), dw(w.size() * 4), f32(x.size() * 4), f16(x.size() * 2),
        x8(gemvX8Bytes(n) * rows);
    dx.upload(x.data());
    dd.upload(delta.data());
    dw.upload(w.data());
    CHECK(launchRmsNorm(dx.as<float>(), dd.as<float>(), dw.as<float>(), n, rows, eps,
                        {f32.as<float>(), f16.as<__half>(), x8.p}, nullptr) == cudaSuccess);
    std::vector<float> want(x.size()), sum(x.size());
    for (size_t i = 0; i < x.size(); ++i) sum[i] = x[i] + delta[i];
    for (int r = 0; r < rows; ++r) cpu::rmsnorm(&want[size_t(r) * n], &sum[size_t(r) * n], w.data(), n, eps);
    CHECK_MSG(worstError(dx.download<float>(x.size()), sum) == 0, "the residual sum");
    const double err = worstError(f32.download<float>(x.size()), want);
    CHECK_MSG(err <= 1e-5, "rmsnorm fp32: " << err);
    const std::vector<uint16_t> h = f16.download<uint16_t>(x.size());
    std::vector<float> hf(h.size());
    for (size_t i = 0; i < h.size(); ++i) hf[i] = halfToFloat(h[i]);
    CHECK_MSG(worstError(hf, want) <= 1e-3, "rmsnorm fp16");
    // X8: each value within half a quantization step of its group's scale.
    const std::vector<int8_t> q = x8.download<int8_t>(gemvX8Bytes(n) * rows);
    int bad = 0;
    for (int r = 0; r < rows; ++r) {
        const int8_t* base = q.data() + size_t(r) * gemvX8Bytes(n);
        for (int i = 0; i < n; ++i) {
            float d;
            std::memcpy(&d, base + gemvX8RecordOffset(n, i / 32), 4);
            const float v = float(base[gemvX8ValueOffset(n, i)]) * d;
            bad += std::fabs(v - want[size_t(r) * n + i]) > 0.5f * d * 1.001f + 1e-6f;
        }
    }
    CHECK_MSG(bad == 0, bad << " X8 values off by more than half a step");
}

float fromKv(const std::vector<uint16_t>& raw16, const std::vector<float>& raw32, KvType type, size_t i) {
    if (type == KvType::F32) return raw32[i];
    return type == KvType::F16 ? halfToFloat(raw16[i]) : bf16ToFloat(raw16[i]);
}

void qkvToCache() {
    for (const bool adjacent : {false, true})
        for (const KvType kv : {KvType::F32, KvType::F16, KvType::BF16}) {
            const int heads = 6, kvHeads = 2, hd = 80, ropeDims = 64, tokens = 3, pos0 = 17, ctx = 32;
            RopeParams rope;
            rope.theta = 10000.0f;
            rope.dims = ropeDims;
            rope.pairing = adjacent ? RopePairing::Adjacent : RopePairing::RotateHalf;
            const RopeTable table = computeRopeTable(rope);
            std::vector<float> q = randomVector(size_t(tokens) * heads * hd), k = randomVector(size_t(tokens) * kvHeads * hd),
                               v = randomVector(k.size()), qb = randomVector(size_t(heads) * hd),
                               kb = randomVector(size_t(kvHeads) * hd), vb = randomVector(kb.size()),
                               qn = randomVector(size_t(hd)), kn = randomVector(size_t(hd));
            Buffer dq(q.size() * 4), dk(k.size() * 4), dv(v.size() * 4), dqb(qb.size() * 4), dkb(kb.size() * 4),
                dvb(vb.size() * 4), dqn(qn.size() * 4), dkn(kn.size() * 4), freq(table.inverseFrequencies.size() * 4);
            const size_t cacheElems = size_t(ctx) * kvHeads * hd;
            Buffer kc(cacheElems * kvTypeBytes(kv)), vc(cacheElems * kvTypeBytes(kv));
            for (auto [b, src] : {std::pair{&dq, &q}, {&dk, &k}, {&dv, &v}, {&dqb, &qb}, {&dkb, &kb}, {&dvb, &vb},
                                  {&dqn, &qn}, {&dkn, &kn}})
                b->upload(src->data());
            freq.upload(table.inverseFrequencies.data());
            const QkvShape shape{heads, kvHeads, hd, ropeDims, adjacent, freq.as<float>(), table.magnitude, 1e-6f};
            CHECK(launchQkvToCache(dq.as<float>(), dk.as<float>(), dv.as<float>(), dqb.as<float>(), dkb.as<float>(),
                                   dvb.as<float>(), dqn.as<float>(), dkn.as<float>(), shape, tokens, nullptr, pos0, kv,
                                   kc.p, vc.p, nullptr) == cudaSuccess);
            // The reference: bias, per-head RMSNorm, RoPE, as the CPU backend's attentionBlock.
            std::vector<float> wq = q, wk = k, wv = v;
            for (int t = 0; t < tokens; ++t) {
                float* qt = &wq[size_t(t) * heads * hd];
                float* kt = &wk[size_t(t) * kvHeads * hd];
                float* vt = &wv[size_t(t) * kvHeads * hd];
                for (int i = 0; i < heads * hd; ++i) qt[i] += qb[size_t(i)];
                for (int i = 0; i < kvHeads * hd; ++i) kt[i] += kb[size_t(i)], vt[i] += vb[size_t(i)];
                for (int h = 0; h < heads; ++h) cpu::rmsnorm(qt + h * hd, qt + h * hd, qn.data(), hd, 1e-6f);
                for (int h = 0; h < kvHeads; ++h) cpu::rmsnorm(kt + h * hd, kt + h * hd, kn.data(), hd, 1e-6f);
                cpu::applyRope(qt, heads, hd, pos0 + t, rope, table);
                cpu::applyRope(kt, kvHeads, hd, pos0 + t, rope, table);
            }
            const std::string what = std::string(adjacent ? "adjacent" : "rotate-half") + " kv " +
                                     (kv == KvType::F32 ? "f32" : kv == KvType::F16 ? "f16" : "bf16");
            CHECK_MSG(worstError(dq.download<float>(q.size()), wq) <= 1e-5, what << ": q");
            const std::vector<uint16_t> k16 = kv == KvType::F32 ? std::vector<uint16_t>() : kc.download<uint16_t>(cacheElems);
            const std::vector<float> k32 = kv == KvType::F32 ? kc.download<float>(cacheElems) : std::vector<float>();
            const std::vector<uint16_t> v16 = kv == KvType::F32 ? std::vector<uint16_t>() : vc.download<uint16_t>(cacheElems);
            const std::vector<float> v32 = kv == KvType::F32 ? vc.download<float>(cacheElems) : std::vector<float>();
            const double tol = kv == KvType::F32 ? 1e-5 : kv == KvType::F16 ? 1e-3 : 8e-3;
            std::vector<float> gk, gv;
            for (size_t i = 0; i < wk.size(); ++i) {
                const size_t at = size_t(pos0) * kvHeads * hd + i;
                gk.push_back(fromKv(k16, k32, kv, at));
                gv.push_back(fromKv(v16, v32, kv, at));
            }
            CHECK_MSG(worstError(gk, wk) <= tol, what << ": k in the cache");
            CHECK_MSG(worstError(gv, wv) <= tol, what << ": v in the cache");
        }
}

// A KV cache of ctx rows as the kernels read it, and the values it holds (after rounding).
struct KvCacheCopy {
    std::vector<float> kHeld, vHeld;
    Buffer k, v;
    KvCacheCopy(KvType kv, size_t elems) : kHeld(elems), vHeld(elems), k(elems * kvTypeBytes(kv)), v(elems * kvTypeBytes(kv)) {
        const std::vector<float> keys = randomVector(elems), values = randomVector(elems);
        std::vector<uint8_t> kRaw(elems * kvTypeBytes(kv)), vRaw(kRaw.size());
        for (size_t i = 0; i < elems; ++i) {
            if (kv == KvType::F32) {
                std::memcpy(&kRaw[i * 4], &keys[i], 4), std::memcpy(&vRaw[i * 4], &values[i], 4);
                kHeld[i] = keys[i], vHeld[i] = values[i];
                continue;
            }
            const uint16_t a = kv == KvType::F16 ? floatToHalf(keys[i]) : floatToBf16(keys[i]);
            const uint16_t b = kv == KvType::F16 ? floatToHalf(values[i]) : floatToBf16(values[i]);
            std::memcpy(&kRaw[i * 2], &a, 2), std::memcpy(&vRaw[i * 2], &b, 2);
            kHeld[i] = kv == KvType::F16 ? halfToFloat(a) : bf16ToFloat(a);
            vHeld[i] = kv == KvType::F16 ? halfToFloat(b) : bf16ToFloat(b);
        }
        k.upload(kRaw.data());
        v.upload(vRaw.data());
    }
};

// Causal attention in doubles: queries t at positions pos0 + t over cache rows 0..pos0 + t.
std::vector<float> referenceAttention(const std::vector<float>& q, const KvCacheCopy& cache, int tokens, int pos0,
                                      int heads, int kvHeads, int hd) {
    std::vector<float> want(q.size());
    for (int t = 0; t < tokens; ++t)
        for (int h = 0; h < heads; ++h) {
            const int p = pos0 + t, kvh = h / (heads / kvHeads);
            std::vector<double> s(size_t(p) + 1);
            double mx = -1e300;
            for (int j = 0; j <= p; ++j) {
                double dot = 0;
                for (int d = 0; d < hd; ++d)
                    dot += double(q[(size_t(t) * heads + h) * hd + d]) * cache.kHeld[(size_t(j) * kvHeads + kvh) * hd + d];
                s[size_t(j)] = dot / std::sqrt(double(hd));
                mx = std::max(mx, s[size_t(j)]);
            }
            double sum = 0;
            for (double& x : s) sum += (x = std::exp(x - mx));
            for (int d = 0; d < hd; ++d) {
                double o = 0;
                for (int j = 0; j <= p; ++j) o += s[size_t(j)] * cache.vHeld[(size_t(j) * kvHeads + kvh) * hd + d];
                want[(size_t(t) * heads + h) * hd + d] = float(o / sum);
            }
        }
    return want;
}

void attention() {
    const int heads = 8, kvHeads = 2, hd = 72, ctx = 300;
    for (const KvType kv : {KvType::F32, KvType::F16, KvType::BF16}) {
        const KvCacheCopy cache(kv, size_t(ctx) * kvHeads * hd);
        struct Case {
            int tokens, pos0, splits, splitKeys;
        };
        for (const Case c : {Case{1, 0, 5, 64}, Case{1, 150, 5, 64}, Case{1, 299, 5, 64}, Case{1, 299, 1, 300},
                             Case{1, 299, 16, 32}, Case{20, 100, 1, 120}, Case{7, 0, 3, 100}}) {
            const std::vector<float> q = randomVector(size_t(c.tokens) * heads * hd);
            Buffer dq(q.size() * 4), out(q.size() * 4), partial(attentionPartialBytes(c.tokens, heads, hd, c.splits)), pos(4);
            dq.upload(q.data());
            const bool fromDevice = c.tokens == 1;
            pos.upload(&c.pos0);
            const AttentionCall call{dq.as<float>(), cache.k.p, cache.v.p, out.as<float>(), heads, kvHeads, hd, c.tokens,
                                     fromDevice ? pos.as<int>() : nullptr, c.pos0, c.splits, c.splitKeys, kv, partial.p};
            CHECK(launchAttention(call, nullptr) == cudaSuccess);
            const std::vector<float> want = referenceAttention(q, cache, c.tokens, c.pos0, heads, kvHeads, hd);
            const double err = worstError(out.download<float>(q.size()), want);
            CHECK_MSG(err <= 1e-5, "attention kv " << int(kv) << " tokens " << c.tokens << " pos " << c.pos0 << " splits "
                                                   << c.splits << ": " << err);
        }
    }
}

// Decode calls over a 16-bit cache with groups up to 8 (each also once with the step's epilogue:
// the sigmoid output gate and X8 written by the combine): heads of 64 take the streaming kernel
// (attention_decode.cu), fp32 from the stored values as the reference computes, so its bound is
// fp32's; heads of 128/256 take the tensor-core kernel (attention_decode_mma.cu), which rounds q
// and the softmax weights to the cache's type, so its bounds are fp16's and bf16's.
void attentionDecode() {
    struct Shape {
        int heads, kvHeads, hd;
    };
    struct Case {
        int tokens, pos0, splits, splitKeys;
    };
    for (const Shape sh : {Shape{8, 2, 64}, Shape{32, 4, 128}, Shape{6, 1, 256}})
        for (const KvType kv : {KvType::F16, KvType::BF16}) {
            const int ctx = 8192;
            const KvCacheCopy cache(kv, size_t(ctx) * sh.kvHeads * sh.hd);
            // Many splits, as the session plans them: a query's keys spread over them in multiples
            // of 64 (19 ranges for pos 1199), combined by several ranges at a time. At pos 8191,
            // 128 ranges can be more blocks than one resident wave (heads of 128 on an H200: 99),
            // and then the ranges in use are fewer and longer than splitKeys (decodeWaveSplits).
            for (const Case c : {Case{1, 0, 5, 80}, Case{1, 150, 5, 80}, Case{1, 399, 5, 80}, Case{1, 399, 1, 400},
                                 Case{3, 200, 3, 128}, Case{1, 700, 64, 64}, Case{1, 1199, 128, 64},
                                 Case{1, 8191, 128, 64}}) {
                const std::vector<float> q = randomVector(size_t(c.tokens) * sh.heads * sh.hd);
                Buffer dq(q.size() * 4), out(q.size() * 4),
                    partial(attentionPartialBytes(c.tokens, sh.heads, sh.hd, c.splits)), pos(4);
                dq.upload(q.data());
                pos.upload(&c.pos0);
                const AttentionCall call{dq.as<float>(), cache.k.p, cache.v.p,  out.as<float>(),
                                         sh.heads,       sh.kvHeads, sh.hd,     c.tokens,
                                         c.tokens == 1 ? pos.as<int>() : nullptr, c.pos0, c.splits, c.splitKeys,
                                         kv,             partial.p};
                CHECK(launchAttention(call, nullptr) == cudaSuccess);
                const std::vector<float> want = referenceAttention(q, cache, c.tokens, c.pos0, sh.heads, sh.kvHeads, sh.hd);
                const double err = worstError(out.download<float>(q.size()), want);
                const double bound = sh.hd == 64 ? 1e-5 : kv == KvType::F16 ? 2e-3 : 1.5e-2;
                CHECK_MSG(err <= bound, "decode attention kv " << int(kv) << " hd " << sh.hd << " group "
                                                                        << sh.heads / sh.kvHeads << " tokens " << c.tokens
                                                                        << " pos " << c.pos0 << " splits " << c.splits
                                                                        << ": " << err);
                if (c.tokens == 1 && c.pos0 == 399 && c.splits == 5) {
                    // q not 16-byte aligned: attention.cu's fp32 kernels take the call, at fp32's bound.
                    Buffer shifted((q.size() + 1) * 4);
                    CHECK(cudaMemcpy(shifted.as<float>() + 1, q.data(), q.size() * 4, cudaMemcpyHostToDevice) ==
                          cudaSuccess);
                    AttentionCall odd = call;
                    odd.q = shifted.as<float>() + 1;
                    out.poison();
                    CHECK(launchAttention(odd, nullptr) == cudaSuccess);
                    const double oddErr = worstError(out.download<float>(q.size()), want);
                    CHECK_MSG(oddErr <= 1e-5, "decode attention with an unaligned q, hd " << sh.hd << ": " << oddErr);
                }
                if (c.tokens != 1) {
                    AttentionCall gated = call;
                    Buffer gate(q.size() * 4);
                    gated.gate = gate.as<float>();
                    CHECK(launchAttention(gated, nullptr) == cudaErrorInvalidValue); // decode only
                    continue;
                }
                // The step's epilogue in the combine: out · sigmoid(gate), and the same values as X8,
                // byte for byte what launchQuantizeX8 makes of them.
                const int width = sh.heads * sh.hd;
                std::vector<float> g = randomVector(size_t(width));
                Buffer gate(size_t(width) * 4), x8(gemvX8Bytes(width)), x8Want(gemvX8Bytes(width));
                gate.upload(g.data());
                out.poison();
                AttentionCall gated = call;
                gated.gate = gate.as<float>();
                gated.outX8 = x8.p;
                CHECK(launchAttention(gated, nullptr) == cudaSuccess);
                const std::vector<float> got = out.download<float>(size_t(width));
                std::vector<float> wantGated = want;
                for (int i = 0; i < width; ++i) wantGated[size_t(i)] *= 1.0f / (1.0f + std::exp(-g[size_t(i)]));
                const double gatedErr = worstError(got, wantGated);
                CHECK_MSG(gatedErr <= bound, "gated decode attention hd " << sh.hd << " pos " << c.pos0 << ": " << gatedErr);
                CHECK(launchQuantizeX8(out.as<float>(), width, x8Want.p, nullptr) == cudaSuccess);
                CHECK(cudaDeviceSynchronize() == cudaSuccess);
                CHECK_MSG(x8.download<uint8_t>(x8.bytes) == x8Want.download<uint8_t>(x8Want.bytes),
                          "decode attention's X8 output hd " << sh.hd << " pos " << c.pos0
                                                            << " differs from launchQuantizeX8 of its fp32 output");
            }
        }
}

// Prefill calls the tensor-core kernel takes (16-bit cache, heads of 64/128/256): q and the
// softmax weights are rounded to the cache's type, so the bounds are fp16's and bf16's.
void attentionTensorCores() {
    struct Shape {
        int heads, kvHeads, hd;
    };
    struct Case {
        int tokens, pos0;
    };
    for (const Shape sh : {Shape{4, 2, 64}, Shape{8, 2, 128}, Shape{6, 1, 256}})
        for (const KvType kv : {KvType::F16, KvType::BF16}) {
            const int ctx = 400;
            const KvCacheCopy cache(kv, size_t(ctx) * sh.kvHeads * sh.hd);
            for (const Case c : {Case{16, 0}, Case{100, 0}, Case{129, 37}, Case{64, 336}}) {
                const std::vector<float> q = randomVector(size_t(c.tokens) * sh.heads * sh.hd);
                Buffer dq(q.size() * 4), out(q.size() * 4), partial(attentionPartialBytes(c.tokens, sh.heads, sh.hd, 1));
                dq.upload(q.data());
                const AttentionCall call{dq.as<float>(), cache.k.p, cache.v.p, out.as<float>(), sh.heads, sh.kvHeads,
                                         sh.hd, c.tokens, nullptr, c.pos0, 1, c.pos0 + c.tokens, kv, partial.p};
                CHECK(launchAttention(call, nullptr) == cudaSuccess);
                const std::vector<float> want = referenceAttention(q, cache, c.tokens, c.pos0, sh.heads, sh.kvHeads, sh.hd);
                const double err = worstError(out.download<float>(q.size()), want);
                const double bound = kv == KvType::F16 ? 2e-3 : 1.5e-2;
                CHECK_MSG(err <= bound, "tensor-core attention kv " << int(kv) << " hd " << sh.hd << " tokens " << c.tokens
                                                                    << " pos " << c.pos0 << ": " << err);
            }
        }
}

void elementwise() {
    const size_t n = 1000;
    const std::vector<float> g = randomVector(n, 4.0f), u = randomVector(n);
    Buffer dg(n * 4), du(n * 4), out(n * 4), half(n * 2), bias(10 * 4);
    dg.upload(g.data());
    du.upload(u.data());
    CHECK(launchSiluMul(dg.as<float>(), du.as<float>(), n, out.as<float>(), nullptr) == cudaSuccess);
    std::vector<float> want(n);
    for (size_t i = 0; i < n; ++i) want[i] = cpu::silu(g[i]) * u[i];
    CHECK_MSG(worstError(out.download<float>(n), want) <= 1e-6, "silu·up");
    CHECK(launchToHalf(dg.as<float>(), n, half.as<__half>(), nullptr) == cudaSuccess);
    const std::vector<uint16_t> h = half.download<uint16_t>(n);
    int exact = 0;
    for (size_t i = 0; i < n; ++i) exact += h[i] == floatToHalf(g[i]);
    CHECK_EQ(exact, int(n));
    const std::vector<float> b = randomVector(10);
    bias.upload(b.data());
    dg.upload(g.data());
    CHECK(launchAddBias(dg.as<float>(), bias.as<float>(), 100, 10, nullptr) == cudaSuccess);
    std::vector<float> biased = g;
    for (size_t i = 0; i < n; ++i) biased[i] += b[i % 10];
    CHECK_MSG(worstError(dg.download<float>(n), biased) == 0, "bias rows");
    // Argmax: the greedy rule (lowest index among equal maxima; NaN is -inf; all -inf -> 0).
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    struct Case {
        std::vector<float> v;
        int want;
    };
    std::vector<float> big = randomVector(151937);
    big[100000] = 50.0f, big[120000] = 50.0f;
    for (const Case& c : {Case{{1, 3, 3, 2}, 1}, Case{{nan, -inf, 0.5f, nan}, 2}, Case{{-inf, nan, -inf}, 0},
                          Case{{1, inf, 2, inf}, 1}, Case{big, 100000}}) {
        Buffer dv(c.v.size() * 4), id(4);
        dv.upload(c.v.data());
        CHECK(launchArgmax(dv.as<float>(), int(c.v.size()), id.as<int>(), nullptr) == cudaSuccess);
        CHECK_EQ(id.download<int>(1)[0], c.want);
    }
    // A 248k vocabulary whose maximum is past the last whole 16 bytes (the scalar tail), and the
    // same logits from a pointer that is not 16-byte aligned (the scalar path).
    std::vector<float> tail = randomVector(248323);
    tail[248321] = 60.0f, tail[7] = 59.0f;
    Buffer dt(tail.size() * 4), id(4);
    dt.upload(tail.data());
    CHECK(launchArgmax(dt.as<float>(), int(tail.size()), id.as<int>(), nullptr) == cudaSuccess);
    CHECK_EQ(id.download<int>(1)[0], 248321);
    CHECK(launchArgmax(dt.as<float>() + 1, int(tail.size()) - 1, id.as<int>(), nullptr) == cudaSuccess);
    CHECK_EQ(id.download<int>(1)[0], 248320);
}

// The device half of sampling (penalty, sort) with the CPU sampler's candidate half gives exactly
// the CPU sampler's tokens draw for draw, and frequencies that match the chain's probabilities.
void sampling() {
    const int vocab = 5000;
    std::vector<float> logits = randomVector(size_t(vocab), 2.5f);
    for (float& l : logits) l = std::clamp(l, -8.0f, 8.0f);
    logits[10] = logits[20] = logits[21] = 9.0f; // a tie at the top: the lower id ranks first; 10 is penalised
    logits[30] = std::numeric_limits<float>::quiet_NaN();
    logits[40] = -std::numeric_limits<float>::infinity();
    logits[50] = -0.0f, logits[51] = 0.0f;
    SamplingParams params;
    params.temperature = 0.9f, params.topK = 50, params.topP = 0.9f, params.minP = 0.02f;
    params.repetitionPenalty = 1.3f, params.seed = 42;
    Sampler cpuSampler(params), gpuSampler(params);
    for (int id : {10, 7, 3000, 10, 4999}) cpuSampler.accept(id), gpuSampler.accept(id);
    Buffer dl(size_t(vocab) * 4), dp(size_t(vocab) * 4), ds(size_t(vocab) * 4), di(size_t(vocab) * 4),
        scratch(sortScratchBytes(vocab)), pen(64 * 4);
    dl.upload(logits.data());
    const std::vector<int32_t> penalised = gpuSampler.penaltyTokens();
    CHECK_EQ(penalised.size(), size_t(4));
    std::vector<int32_t> padded(64, 0);
    std::copy(penalised.begin(), penalised.end(), padded.begin());
    pen.upload(padded.data());
    CHECK(launchPenalise(dl.as<float>(), vocab, pen.as<int>(), int(penalised.size()), gpuSampler.penalty(), dp.as<float>(),
                         nullptr) == cudaSuccess);
    CHECK(launchSortDescending(dp.as<float>(), vocab, ds.as<float>(), di.as<int>(), scratch.p, scratch.bytes, nullptr) ==
          cudaSuccess);
    const std::vector<float> sorted = ds.download<float>(size_t(params.topK));
    const std::vector<int> ids = di.download<int>(size_t(params.topK));
    CHECK(ids[0] == 20 && ids[1] == 21 && ids[2] != 10);
    const int draws = 20000;
    std::vector<int> count(size_t(vocab), 0);
    int identical = 0;
    for (int i = 0; i < draws; ++i) {
        const int32_t a = cpuSampler.sample(logits);
        const int32_t b = gpuSampler.sampleCandidates(ids, sorted);
        identical += a == b;
        ++count[size_t(b)];
    }
    CHECK_MSG(identical == draws, identical << " of " << draws << " draws identical to the CPU sampler's");
    // Frequencies against the chain's probabilities (double precision, written out here).
    std::vector<double> p;
    for (float l : sorted) p.push_back(std::exp((double(l) - sorted[0]) / params.temperature));
    double total = 0;
    for (double x : p) total += x;
    size_t keep = 0;
    for (double cum = 0; keep < p.size() && cum < params.topP * total * (1 - 1e-5); ++keep) cum += p[keep];
    p.resize(keep);
    double kept = 0;
    for (double& x : p) x = x < params.minP * p[0] * (1 - 1e-5) ? 0 : x, kept += x;
    int checked = 0;
    for (size_t i = 0; i < p.size(); ++i) {
        const double expected = draws * p[i] / kept;
        const double sigma = std::sqrt(expected * (1 - p[i] / kept)) + 1;
        CHECK_MSG(std::fabs(count[size_t(ids[i])] - expected) < 5 * sigma,
                  "token " << ids[i] << ": " << count[size_t(ids[i])] << " draws, expected " << expected);
        checked += expected > 100;
    }
    CHECK(checked >= 3);
}

} // namespace

int main() {
    test::startGpuTest("kernels", /*needsDevice=*/true);
    dequantizeAndEmbed();
    genericGemv();
    rmsNorm();
    qkvToCache();
    attention();
    attentionTensorCores();
    attentionDecode();
    elementwise();
    sampling();
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    return test::finish();
}

#endif
