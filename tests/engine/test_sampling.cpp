// Sampler: each stage of the chain checked on hand-made distributions whose answer is known,
// plus determinism, non-finite logits, parameter validation and the 151936-token vocabulary path.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <set>
#include <vector>

#include "check.h"
#include "sampling/rng.h"
#include "sampling/sampler.h"

using namespace hearth;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// check.h's CHECK_OK/CHECK_ERR read `.status()`, which only Result<T> has; wrap a plain Status.
Result<bool> asResult(const Status& status) {
    if (status.isOk()) return true;
    return status;
}

// The usual sampling chain (temperature 0.8, top-k 40, top-p 0.95, min-p 0.05).
SamplingParams usualChain(uint64_t seed) {
    SamplingParams p;
    p.temperature = 0.8f;
    p.topK = 40;
    p.topP = 0.95f;
    p.minP = 0.05f;
    p.seed = seed;
    return p;
}

// Params with every filter off, so each test switches on only what it checks.
SamplingParams plain(float temperature, uint64_t seed = 1) {
    SamplingParams p;
    p.temperature = temperature;
    p.topK = 0;
    p.topP = 1.0f;
    p.minP = 0.0f;
    p.repetitionPenalty = 1.0f;
    p.seed = seed;
    return p;
}

std::vector<float> logitsOf(const std::vector<double>& probs) {
    std::vector<float> logits;
    for (double p : probs) logits.push_back(float(std::log(p)));
    return logits;
}

std::vector<int> histogram(Sampler& sampler, const std::vector<float>& logits, int draws) {
    std::vector<int> counts(logits.size(), 0);
    for (int i = 0; i < draws; ++i) {
        const int32_t t = sampler.sample(logits);
        CHECK(t >= 0 && size_t(t) < logits.size());
        if (t >= 0 && size_t(t) < logits.size()) ++counts[size_t(t)];
    }
    return counts;
}

// Pearson chi-square of observed counts against expected probabilities.
double chiSquare(const std::vector<int>& counts, const std::vector<double>& expected, int draws) {
    double chi = 0.0;
    for (size_t i = 0; i < counts.size(); ++i) {
        const double e = expected[i] * draws;
        if (e > 0) chi += (counts[i] - e) * (counts[i] - e) / e;
        else CHECK_EQ(counts[i], 0);
    }
    return chi;
}

// Deterministic pseudo-random logits (not the sampler's generator, to keep the two independent).
std::vector<float> randomLogits(size_t n, uint64_t seed, float scale) {
    std::vector<float> logits(n);
    uint64_t state = seed;
    for (float& l : logits) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        l = scale * (float(state >> 40) / float(1ull << 24) - 0.5f);
    }
    return logits;
}

void testRng() {
    // splitmix64's published first output for state 0.
    uint64_t state = 0;
    CHECK_EQ(splitMix64(state), 0xE220A8397B1DCDAFull);
    Xoshiro256 a(7), b(7), c(8), d(7);
    bool differs = false;
    double sum = 0.0;
    for (int i = 0; i < 10000; ++i) {
        const uint64_t x = a.nextU64();
        const uint64_t y = b.nextU64();
        CHECK_EQ(x, y);
        differs |= x != c.nextU64();
        const double u = d.nextDouble();
        CHECK(u >= 0.0 && u < 1.0);
        sum += u;
    }
    CHECK(differs);
    CHECK_NEAR(sum / 10000, 0.5, 0.02);
}

void testGreedy() {
    const std::vector<float> logits = {0.1f, 2.5f, -1.0f, 2.4f, 0.0f};
    for (float t : {0.0f, -1.0f}) {
        Sampler s(plain(t));
        CHECK_EQ(s.sample(logits), 1);
    }
    // Ties: the lowest index wins, wherever the tie sits.
    Sampler s(plain(0.0f));
    CHECK_EQ(s.sample(std::vector<float>{1.0f, 3.0f, 3.0f, 3.0f}), 1);
    CHECK_EQ(s.sample(std::vector<float>{5.0f, 5.0f}), 0);
    CHECK_EQ(s.sample(std::vector<float>{-2.0f, -7.0f, -2.0f}), 0);
    // Greedy ignores the filters and the seed.
    SamplingParams p = plain(0.0f, 99);
    p.topK = 2;
    p.topP = 0.1f;
    p.minP = 0.9f;
    Sampler filtered(p);
    CHECK_EQ(filtered.sample(logits), 1);
}

void testSeedDeterminism() {
    const std::vector<float> logits = randomLogits(50, 3, 4.0f);
    SamplingParams p = usualChain(1234);
    Sampler a(p), b(p);
    std::vector<int32_t> first;
    for (int i = 0; i < 1000; ++i) {
        const int32_t x = a.sample(logits);
        const int32_t y = b.sample(logits);
        CHECK_EQ(x, y);
        first.push_back(x);
    }
    CHECK(std::set<int32_t>(first.begin(), first.end()).size() > 3); // it really samples

    p.seed = 1235;
    Sampler other(p);
    int differences = 0;
    for (int i = 0; i < 1000; ++i) differences += other.sample(logits) != first[size_t(i)];
    CHECK_MSG(differences > 100, "different seeds gave " << differences << " differences");

    // reset() restarts the stream and forgets the history.
    a.reset();
    int mismatches = 0;
    for (int i = 0; i < 1000; ++i) mismatches += a.sample(logits) != first[size_t(i)];
    CHECK_EQ(mismatches, 0);
}

// Pins the stream: a change here means saved seeds no longer reproduce earlier replies.
void testGoldenSequence() {
    const std::vector<float> logits = logitsOf({0.4, 0.25, 0.15, 0.1, 0.06, 0.04});
    Sampler s(plain(1.0f, 42));
    std::vector<int32_t> got;
    for (int i = 0; i < 16; ++i) got.push_back(s.sample(logits));
    const std::vector<int32_t> expected = {0, 0, 2, 4, 5, 2, 2, 3, 2, 1, 2, 0, 3, 0, 2, 3};
    CHECK(got == expected);
    if (got != expected) {
        std::fprintf(stderr, "golden sequence got:");
        for (int32_t t : got) std::fprintf(stderr, " %d,", t);
        std::fprintf(stderr, "\n");
    }
}

void testTopKOneIsGreedy() {
    const std::vector<float> logits = randomLogits(1000, 11, 6.0f);
    const int32_t argmax = int32_t(std::max_element(logits.begin(), logits.end()) - logits.begin());
    for (float t : {0.1f, 1.0f, 5.0f, 100.0f}) {
        SamplingParams p = plain(t, 5);
        p.topK = 1;
        Sampler s(p);
        for (int i = 0; i < 200; ++i) CHECK_EQ(s.sample(logits), argmax);
    }
}

void testTopK() {
    // Token order scrambled so that "top 3" is not "first 3".
    const std::vector<float> logits = {0.5f, 2.0f, -1.0f, 1.9f, 1.8f, 1.7f, 0.0f};
    SamplingParams p = plain(2.0f, 9); // hot, so the excluded tokens would be drawn often
    p.topK = 3;
    Sampler s(p);
    const std::vector<int> counts = histogram(s, logits, 5000);
    CHECK(counts[1] > 0 && counts[3] > 0 && counts[4] > 0);
    CHECK_EQ(counts[1] + counts[3] + counts[4], 5000);

    // Ties at the cut go to the lower ids, as everywhere else.
    p.topK = 2;
    Sampler tied(p);
    const std::vector<int> tiedCounts = histogram(tied, std::vector<float>{0.0f, 1.0f, 1.0f, 1.0f, 1.0f}, 2000);
    CHECK(tiedCounts[1] > 0 && tiedCounts[2] > 0);
    CHECK_EQ(tiedCounts[1] + tiedCounts[2], 2000);

    // topK larger than the vocabulary is no filter.
    p.topK = 100;
    Sampler wide(p);
    const std::vector<int> all = histogram(wide, logits, 5000);
    for (int c : all) CHECK(c > 0);
}

void testTopP() {
    // Probabilities 0.5, 0.3, 0.15, 0.05 at scrambled positions; the nucleus for 0.8 is {0.5, 0.3}
    // exactly (the boundary case), renormalised to 0.625 / 0.375.
    const std::vector<float> logits = logitsOf({0.15, 0.5, 0.05, 0.3});
    SamplingParams p = plain(1.0f, 21);
    p.topP = 0.8f;
    Sampler s(p);
    const int draws = 20000;
    const std::vector<int> counts = histogram(s, logits, draws);
    CHECK_EQ(counts[0], 0);
    CHECK_EQ(counts[2], 0);
    CHECK_NEAR(double(counts[1]) / draws, 0.625, 0.02);
    CHECK_NEAR(double(counts[3]) / draws, 0.375, 0.02);

    // Just past the boundary the third token joins.
    p.topP = 0.81f;
    Sampler wider(p);
    const std::vector<int> more = histogram(wider, logits, draws);
    CHECK(more[0] > 0);
    CHECK_EQ(more[2], 0);

    // A tiny topP still keeps one token: the most likely.
    p.topP = 0.01f;
    Sampler narrow(p);
    for (int i = 0; i < 100; ++i) CHECK_EQ(narrow.sample(logits), 1);
}

void testTopPAfterTopK() {
    // Probabilities 0.4, 0.3, 0.2, 0.1. top-k 2 leaves {0.4, 0.3} -> renormalised 0.571 / 0.429;
    // top-p 0.55 over those keeps only the first. (Over the full distribution it would keep two.)
    const std::vector<float> logits = logitsOf({0.4, 0.3, 0.2, 0.1});
    SamplingParams p = plain(1.0f, 4);
    p.topK = 2;
    p.topP = 0.55f;
    Sampler s(p);
    for (int i = 0; i < 2000; ++i) CHECK_EQ(s.sample(logits), 0);

    p.topK = 0; // the same top-p alone keeps two tokens
    Sampler alone(p);
    const std::vector<int> counts = histogram(alone, logits, 2000);
    CHECK(counts[0] > 0 && counts[1] > 0);
    CHECK_EQ(counts[2] + counts[3], 0);
}

void testMinP() {
    // Probabilities 0.5, 0.3, 0.12, 0.08; min-p 0.2 -> threshold 0.1: the 0.08 token goes.
    const std::vector<float> logits = logitsOf({0.12, 0.5, 0.08, 0.3});
    SamplingParams p = plain(1.0f, 8);
    p.minP = 0.2f;
    Sampler s(p);
    const int draws = 20000;
    const std::vector<int> counts = histogram(s, logits, draws);
    CHECK_EQ(counts[2], 0);
    CHECK(counts[0] > 0 && counts[1] > 0 && counts[3] > 0);
    CHECK_NEAR(double(counts[0]) / draws, 0.12 / 0.92, 0.015);

    // After top-p (0.95 keeps all four here) min-p still removes the 0.08 token.
    p.topP = 0.95f;
    Sampler afterTopP(p);
    const std::vector<int> afterCounts = histogram(afterTopP, logits, 5000);
    CHECK_EQ(afterCounts[2], 0);
    CHECK(afterCounts[0] > 0 && afterCounts[1] > 0 && afterCounts[3] > 0);
    p.topP = 1.0f;

    // min-p sees the tempered distribution: at T = 0.5 the ratios square (0.12/0.5 -> 0.0576),
    // so the 0.12 token falls below 0.2 as well.
    p.temperature = 0.5f;
    Sampler cold(p);
    const std::vector<int> coldCounts = histogram(cold, logits, 5000);
    CHECK_EQ(coldCounts[0] + coldCounts[2], 0);
    CHECK(coldCounts[1] > 0 && coldCounts[3] > 0);

    // minP 1 keeps only the maximum.
    p.minP = 1.0f;
    Sampler strict(p);
    for (int i = 0; i < 100; ++i) CHECK_EQ(strict.sample(logits), 1);
}

void testTemperatureFrequencies() {
    const std::vector<float> logits = {1.0f, 0.5f, 0.0f, -0.5f, -1.0f, 2.0f};
    const int draws = 20000;
    for (float t : {0.5f, 1.0f, 1.7f}) {
        std::vector<double> expected;
        for (float l : logits) expected.push_back(std::exp(double(l) / t));
        const double z = std::accumulate(expected.begin(), expected.end(), 0.0);
        for (double& e : expected) e /= z;

        Sampler s(plain(t, 77));
        const std::vector<int> counts = histogram(s, logits, draws);
        for (size_t i = 0; i < counts.size(); ++i)
            CHECK_NEAR(double(counts[i]) / draws, expected[i], 0.01);
        // 5 degrees of freedom: P(chi2 > 20.5) = 0.001.
        const double chi = chiSquare(counts, expected, draws);
        CHECK_MSG(chi < 20.5, "T=" << t << " chi-square " << chi);
    }
}

void testRepetitionPenalty() {
    // Positive logits: 2.0 / 1.5 = 1.33 falls below 1.5.
    SamplingParams p = plain(0.0f);
    p.repetitionPenalty = 1.5f;
    const std::vector<float> positive = {2.0f, 1.5f, -1.0f};
    const std::vector<float> before = positive;
    Sampler s(p);
    CHECK_EQ(s.sample(positive), 0);
    s.accept(0);
    CHECK_EQ(s.sample(positive), 1);
    CHECK(positive == before); // the caller's logits are untouched

    // Negative logits are multiplied: -1.0 * 1.5 = -1.5 falls below -1.2.
    Sampler neg(p);
    const std::vector<float> negative = {-1.0f, -1.2f};
    neg.accept(0);
    CHECK_EQ(neg.sample(negative), 1);

    // Each distinct token counts once: 2.0 / 1.5 = 1.33 still beats 1.0 (three times: 0.59).
    Sampler repeated(p);
    for (int i = 0; i < 3; ++i) repeated.accept(0);
    CHECK_EQ(repeated.sample(std::vector<float>{2.0f, 1.0f}), 0);

    // Only the last repetitionWindow tokens count; -1 means all.
    p.repetitionWindow = 2;
    Sampler windowed(p);
    for (int32_t t : {0, 2, 2}) windowed.accept(t);
    CHECK_EQ(windowed.sample(positive), 0);
    windowed.accept(0);
    CHECK_EQ(windowed.sample(positive), 1);
    p.repetitionWindow = -1;
    Sampler everything(p);
    everything.accept(0);
    for (int i = 0; i < 500; ++i) everything.accept(2); // past any trimming
    CHECK_EQ(everything.sample(positive), 1);
    p.repetitionWindow = 0;
    Sampler none(p);
    none.accept(0);
    CHECK_EQ(none.sample(positive), 0);

    // Out-of-vocabulary ids are ignored. Each of these lands on token 0 or token 3 of a 4-token
    // vocabulary if taken modulo 4, clamped into range or narrowed to 8/16 bits, and each of those
    // two tokens is the argmax of one logits vector below, so penalising either would change an
    // answer (and an unchecked index is an out-of-bounds write that sanitizers report).
    const std::vector<float> topFirst = {2.0f, 1.5f, -1.0f, 0.5f}, topLast = {0.5f, 1.5f, -1.0f, 2.0f};
    for (int32_t window : {-1, 16}) {
        p.repetitionWindow = window;
        Sampler outside(p);
        for (int32_t t : {4, 7, -1, -4, 256, 65536, 1 << 20, std::numeric_limits<int32_t>::max(),
                          std::numeric_limits<int32_t>::min()})
            outside.accept(t);
        CHECK_EQ(outside.sample(topFirst), 0);
        CHECK_EQ(outside.sample(topLast), 3);
        // The same sampler does penalise tokens 0 and 3 once they are in its history.
        outside.accept(0);
        outside.accept(3);
        CHECK_EQ(outside.sample(topFirst), 1);
        CHECK_EQ(outside.sample(topLast), 1);
    }

    // A long history keeps working once the window trims it.
    p.repetitionWindow = 4;
    Sampler trimmed(p);
    for (int i = 0; i < 1000; ++i) trimmed.accept(2);
    trimmed.accept(0);
    CHECK_EQ(trimmed.sample(positive), 1);
    for (int i = 0; i < 4; ++i) trimmed.accept(2);
    CHECK_EQ(trimmed.sample(positive), 0);

    // reset() forgets the history.
    s.reset();
    CHECK_EQ(s.sample(positive), 0);

    // Also in the sampled path: with token 0 penalised hard, token 1 dominates.
    SamplingParams hot = plain(1.0f, 3);
    hot.repetitionPenalty = 20.0f;
    Sampler sampled(hot);
    sampled.accept(0);
    const std::vector<int> counts = histogram(sampled, std::vector<float>{6.0f, 3.0f}, 1000);
    CHECK_MSG(counts[1] > 900, "token 1 drawn " << counts[1] << " times");
}

void testNonFinite() {
    for (float t : {0.0f, 1.0f}) {
        SamplingParams p = plain(t, 31);
        Sampler s(p);
        // NaN is never the argmax, -inf never drawn.
        const std::vector<float> withNaN = {1.0f, kNaN, 0.5f, -kInf};
        for (int i = 0; i < 500; ++i) {
            const int32_t x = s.sample(withNaN);
            CHECK(x == 0 || x == 2);
        }
        // Nothing finite: index 0, deterministically.
        CHECK_EQ(s.sample(std::vector<float>{-kInf, -kInf, -kInf}), 0);
        CHECK_EQ(s.sample(std::vector<float>{kNaN, kNaN}), 0);
        CHECK_EQ(s.sample(std::vector<float>{kNaN, -kInf}), 0);
        // Empty logits: a caller bug, reported as -1.
        CHECK_EQ(s.sample(std::span<const float>()), -1);
        // +inf dominates; several +inf share the mass.
        CHECK_EQ(s.sample(std::vector<float>{3.0f, kInf, -kInf, 100.0f}), 1);
        const std::vector<float> twoInf = {kInf, 0.0f, kInf, -1e30f};
        std::vector<int> counts(4, 0);
        for (int i = 0; i < 1000; ++i) ++counts[size_t(s.sample(twoInf))];
        CHECK_EQ(counts[1] + counts[3], 0);
        CHECK(counts[0] > 0);
        CHECK(t == 0.0f ? counts[2] == 0 : counts[2] > 0);
        // Extreme finite values do not overflow the softmax.
        const std::vector<float> extreme = {-3.0e38f, 3.0e38f, 3.0e38f};
        for (int i = 0; i < 100; ++i) CHECK(s.sample(extreme) >= 1);
    }
    // Penalty on -inf/NaN keeps them out.
    SamplingParams p = plain(1.0f, 2);
    p.repetitionPenalty = 0.5f;
    Sampler pen(p);
    pen.accept(0);
    pen.accept(1);
    for (int i = 0; i < 200; ++i) CHECK_EQ(pen.sample(std::vector<float>{-kInf, kNaN, 0.0f}), 2);
}

void testValidate() {
    CHECK_OK(asResult(Sampler::validate(SamplingParams{})));
    SamplingParams p;
    p.temperature = -1.0f; // greedy
    CHECK_OK(asResult(Sampler::validate(p)));
    p = {};
    p.topP = 1.0f;
    p.minP = 0.0f;
    p.topK = 0;
    p.repetitionWindow = -1;
    CHECK_OK(asResult(Sampler::validate(p)));

    const auto expectBad = [](SamplingParams bad, const char* field) {
        CHECK_ERR(asResult(Sampler::validate(bad)), StatusCode::InvalidArgument, field);
    };
    p = {};
    p.temperature = kNaN;
    expectBad(p, "temperature");
    p.temperature = kInf;
    expectBad(p, "temperature");
    p = {};
    p.topK = -1;
    expectBad(p, "topK");
    for (float v : {0.0f, -0.5f, 1.5f, kNaN}) {
        p = {};
        p.topP = v;
        expectBad(p, "topP");
    }
    for (float v : {-0.1f, 1.1f, kNaN}) {
        p = {};
        p.minP = v;
        expectBad(p, "minP");
    }
    for (float v : {0.0f, -1.0f, kNaN, kInf}) {
        p = {};
        p.repetitionPenalty = v;
        expectBad(p, "repetitionPenalty");
    }
    p = {};
    p.repetitionWindow = -2;
    expectBad(p, "repetitionWindow");
    p = {};
    p.topP = 1.5f;
    CHECK_ERR(asResult(Sampler::validate(p)), StatusCode::InvalidArgument, "got 1.5");

    // Settings that skipped validate() still sample safely (treated as off).
    SamplingParams wild;
    wild.temperature = kNaN;
    wild.topK = -5;
    wild.topP = 7.0f;
    wild.minP = -1.0f;
    wild.repetitionPenalty = -2.0f;
    wild.repetitionWindow = -9;
    Sampler s(wild);
    s.accept(1);
    CHECK_EQ(s.sample(std::vector<float>{0.0f, 1.0f}), 1);
}

// Reference nucleus for the large-vocabulary check: token ids sorted best first, cut where the
// tempered probability mass reaches topP.
std::vector<int32_t> referenceNucleus(const std::vector<float>& logits, float t, double topP) {
    std::vector<int32_t> order;
    for (size_t i = 0; i < logits.size(); ++i)
        if (std::isfinite(logits[i])) order.push_back(int32_t(i));
    std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
        return logits[size_t(a)] > logits[size_t(b)] || (logits[size_t(a)] == logits[size_t(b)] && a < b);
    });
    const double maxLogit = logits[size_t(order[0])];
    double total = 0.0;
    for (int32_t id : order) total += std::exp((logits[size_t(id)] - maxLogit) / t);
    std::vector<int32_t> kept;
    double cumulative = 0.0;
    for (int32_t id : order) {
        kept.push_back(id);
        cumulative += std::exp((logits[size_t(id)] - maxLogit) / t);
        if (cumulative >= topP * total * (1 - 1e-5)) break;
    }
    return kept;
}

void testLargeVocabulary() {
    const size_t vocab = 151936;
    std::vector<float> logits = randomLogits(vocab, 2024, 30.0f);
    logits[100] = kNaN;
    logits[200] = -kInf;

    std::vector<float> sorted = logits;
    std::erase_if(sorted, [](float v) { return std::isnan(v); });
    std::sort(sorted.begin(), sorted.end(), std::greater<float>());

    // top-k 40 (the default chain): only the 40 best are ever drawn.
    SamplingParams p = usualChain(5);
    p.minP = 0.0f;
    Sampler s(p);
    const auto start = std::chrono::steady_clock::now();
    std::set<int32_t> seen;
    const int draws = 2000;
    for (int i = 0; i < draws; ++i) {
        const int32_t t = s.sample(logits);
        CHECK(t >= 0 && size_t(t) < vocab);
        if (t >= 0 && size_t(t) < vocab) CHECK(logits[size_t(t)] >= sorted[39]);
        seen.insert(t);
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("151936-token vocabulary, default chain: %.3f ms per sample\n", ms / draws);
    CHECK(seen.size() > 5);

    // top-p alone over the whole vocabulary (the incremental sort) matches a full-sort reference.
    // The logit spread puts about a thousand tokens in the nucleus: several sort chunks deep.
    for (float& l : logits) l *= 100.0f / 30.0f;
    SamplingParams q = plain(1.0f, 6);
    q.topP = 0.5f;
    const std::vector<int32_t> nucleus = referenceNucleus(logits, q.temperature, q.topP);
    CHECK_MSG(nucleus.size() > 512, "nucleus of " << nucleus.size() << " tokens is too small to test");
    std::vector<size_t> rank(vocab, vocab);
    for (size_t r = 0; r < nucleus.size(); ++r) rank[size_t(nucleus[r])] = r;
    Sampler nucleusSampler(q);
    size_t deepest = 0;
    for (int i = 0; i < 300; ++i) {
        const int32_t t = nucleusSampler.sample(logits);
        const size_t r = rank[size_t(t)];
        CHECK_MSG(r < nucleus.size(), "token " << t << " outside the reference nucleus");
        if (r < nucleus.size()) deepest = std::max(deepest, r);
    }
    CHECK_MSG(deepest > 256, "deepest rank drawn " << deepest); // the whole nucleus is in play

    // Greedy on the large vocabulary.
    Sampler greedy(plain(0.0f));
    const int32_t argmax = greedy.sample(logits);
    CHECK_EQ(argmax, nucleus[0]);
}

} // namespace

int main() {
    hearth::test::announce("sampling", "cpu");
    testRng();
    testGreedy();
    testSeedDeterminism();
    testGoldenSequence();
    testTopKOneIsGreedy();
    testTopK();
    testTopP();
    testTopPAfterTopK();
    testMinP();
    testTemperatureFrequencies();
    testRepetitionPenalty();
    testNonFinite();
    testValidate();
    testLargeVocabulary();
    return hearth::test::finish();
}
