#include "sampling/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

namespace hearth {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Probabilities come from float logits, so a hand-written boundary (topP 0.8 over probabilities
// 0.5 + 0.3) lands a few ulps either side of it. This relative slack makes such values count as
// reaching the threshold; it is far below anything a user could perceive.
constexpr double kThresholdSlack = 1e-5;

// Smallest sorted prefix grown at a time when top-p runs without top-k.
constexpr size_t kFirstSortChunk = 64;

// Argmax with the sampler's rules: NaN is skipped, lowest index wins ties, all -inf/NaN -> 0.
int32_t argmaxLowestIndex(std::span<const float> logits) {
    int32_t best = 0;
    float bestValue = kNegInf;
    for (size_t i = 0; i < logits.size(); ++i) {
        if (logits[i] > bestValue) { // false for NaN and for ties, by design
            bestValue = logits[i];
            best = int32_t(i);
        }
    }
    return best;
}

// +inf counts as the largest float, so that the softmax stays finite and several +inf tokens
// share the mass equally.
float clampInf(float logit) { return std::min(logit, std::numeric_limits<float>::max()); }

template <typename T>
std::string describe(T value) {
    std::ostringstream os;
    os << value;
    return os.str();
}

} // namespace

Sampler::Sampler(const SamplingParams& params) : m_params(params), m_rng(params.seed) {
    // Sanitise rather than fail: a Sampler must never crash on settings that skipped validate().
    m_greedy = !(params.temperature > 0.0f); // NaN -> greedy
    m_temperature = m_greedy ? 1.0 : double(params.temperature);
    m_topK = params.topK > 0 ? params.topK : 0;
    m_topP = (params.topP > 0.0f && params.topP < 1.0f) ? double(params.topP) : 1.0;
    m_minP = (params.minP > 0.0f && params.minP <= 1.0f) ? double(params.minP) : 0.0;
    const bool penaltyValid = std::isfinite(params.repetitionPenalty) && params.repetitionPenalty > 0.0f;
    m_penalty = penaltyValid ? params.repetitionPenalty : 1.0f;
    m_window = params.repetitionWindow >= -1 ? params.repetitionWindow : 0;
}

Status Sampler::validate(const SamplingParams& params) {
    const auto bad = [](const char* field, const char* rule, const std::string& got) {
        return invalidArgument(std::string("sampling ") + field + " must be " + rule + ", got " + got);
    };
    if (!std::isfinite(params.temperature))
        return bad("temperature", "finite (<= 0 means greedy)", describe(params.temperature));
    if (params.topK < 0) return bad("topK", ">= 0 (0 = off)", describe(params.topK));
    if (!(params.topP > 0.0f && params.topP <= 1.0f))
        return bad("topP", "in (0, 1] (1 = off)", describe(params.topP));
    if (!(params.minP >= 0.0f && params.minP <= 1.0f))
        return bad("minP", "in [0, 1] (0 = off)", describe(params.minP));
    if (!(std::isfinite(params.repetitionPenalty) && params.repetitionPenalty > 0.0f))
        return bad("repetitionPenalty", "finite and > 0 (1 = off)", describe(params.repetitionPenalty));
    if (params.repetitionWindow < -1)
        return bad("repetitionWindow", ">= -1 (-1 = all tokens)", describe(params.repetitionWindow));
    return Status::ok();
}

int32_t Sampler::sample(std::span<const float> logits) {
    if (logits.empty()) return -1;
    // Drawn up front so that every non-greedy call consumes exactly one number, whatever happens.
    const double u = m_greedy ? 0.0 : m_rng.nextDouble();

    const bool penalise = m_penalty != 1.0f && m_window != 0 && !m_history.empty();
    const std::span<const float> view = penalise ? penalisedCopy(logits) : logits;
    if (m_greedy) return argmaxLowestIndex(view);

    if (m_topK > 0 && size_t(m_topK) < view.size()) selectTopK(view);
    else loadCandidates(view, minPFloor(view));
    if (m_candidates.empty()) return 0; // every logit was -inf/NaN: the argmax rule

    applySoftmax();
    applyTopP();
    applyMinP();
    return draw(u);
}

// The tokens in the penalty window, each once (sorted), in m_penalised.
const std::vector<int32_t>& Sampler::penaltyTokens() {
    m_penalised.clear();
    if (m_penalty == 1.0f || m_window == 0 || m_history.empty()) return m_penalised;
    const size_t count = m_window < 0 ? m_history.size() : std::min(size_t(m_window), m_history.size());
    m_penalised.assign(m_history.end() - std::ptrdiff_t(count), m_history.end());
    std::sort(m_penalised.begin(), m_penalised.end());
    m_penalised.erase(std::unique(m_penalised.begin(), m_penalised.end()), m_penalised.end());
    return m_penalised;
}

int32_t Sampler::sampleCandidates(std::span<const int32_t> ids, std::span<const float> logits) {
    const double u = m_greedy ? 0.0 : m_rng.nextDouble();
    if (ids.empty() || ids.size() != logits.size()) return ids.empty() ? 0 : -1;
    if (m_greedy) return ids.front();
    m_candidates.clear();
    for (size_t i = 0; i < ids.size(); ++i) m_candidates.push_back({clampInf(logits[i]), ids[i], 0.0});
    m_sortedCount = m_candidates.size();
    applySoftmax();
    applyTopP();
    applyMinP();
    return draw(u);
}

void Sampler::accept(int32_t token) {
    m_history.push_back(token);
    // Keep only what the window can see; trimming in batches keeps accept() amortised O(1).
    if (m_window >= 0 && m_history.size() > 2 * size_t(m_window) + 64)
        m_history.erase(m_history.begin(), m_history.end() - m_window);
}

void Sampler::reset() {
    m_history.clear();
    m_rng.reseed(m_params.seed);
}

// The penalty works on a copy: the caller's logits are const and may be reused by the caller.
std::span<const float> Sampler::penalisedCopy(std::span<const float> logits) {
    m_logits.assign(logits.begin(), logits.end());
    for (int32_t id : penaltyTokens()) { // each distinct token once, however often it repeats
        if (id < 0 || size_t(id) >= m_logits.size()) continue;
        float& logit = m_logits[size_t(id)];
        logit = logit > 0.0f ? logit / m_penalty : logit * m_penalty; // -inf and NaN stay what they are
    }
    return m_logits;
}

// With min-p as the only filter, its cut is known in logit space before any exp():
// p >= minP * p_max  <=>  logit >= max + T * ln(minP). Skipping the tokens below it spares the
// softmax over the whole vocabulary. The floor sits 1 % (in p) below the cut so that rounding never
// drops a token that applyMinP() would keep; applyMinP() still makes the exact decision. (With
// top-p on, min-p must see top-p's result first, so there is no shortcut.)
float Sampler::minPFloor(std::span<const float> logits) const {
    if (m_minP <= 0.0 || m_topP < 1.0) return kNegInf;
    float maxLogit = kNegInf;
    for (float l : logits) maxLogit = l > maxLogit ? l : maxLogit; // NaN skipped
    if (maxLogit == kNegInf) return kNegInf;
    return float(double(clampInf(maxLogit)) + m_temperature * (std::log(m_minP) - 0.01));
}

// Every token above `floor` (NaN never is; -inf never is) becomes a candidate, in id order.
void Sampler::loadCandidates(std::span<const float> logits, float floor) {
    m_candidates.clear();
    for (size_t i = 0; i < logits.size(); ++i)
        if (logits[i] > floor) m_candidates.push_back({clampInf(logits[i]), int32_t(i), 0.0});
    m_sortedCount = 0;
}

// The k best tokens, best first, in one pass with a bounded heap whose front is the worst kept
// token: most logits lose a single comparison against it, so a 151k vocabulary costs about one
// compare per token instead of a sort. NaN and -inf never pass `> threshold`.
void Sampler::selectTopK(std::span<const float> logits) {
    const size_t k = size_t(m_topK);
    m_candidates.clear();
    float threshold = kNegInf; // the worst kept logit once the heap is full
    for (size_t i = 0; i < logits.size(); ++i) {
        if (!(logits[i] > threshold)) continue; // ties lose: the kept token has the lower id
        const Candidate c{clampInf(logits[i]), int32_t(i), 0.0};
        if (m_candidates.size() == k) {
            if (!(c.logit > threshold)) continue; // +inf clamped onto a FLT_MAX threshold
            std::pop_heap(m_candidates.begin(), m_candidates.end(), ranksBefore);
            m_candidates.back() = c;
        } else {
            m_candidates.push_back(c);
        }
        std::push_heap(m_candidates.begin(), m_candidates.end(), ranksBefore);
        if (m_candidates.size() == k) threshold = m_candidates.front().logit;
    }
    std::sort_heap(m_candidates.begin(), m_candidates.end(), ranksBefore);
    m_sortedCount = m_candidates.size();
}

// Makes m_candidates[0, count) the `count` best candidates in order, best first. Grows an
// already sorted prefix instead of sorting the whole vocabulary: nth_element is O(n), the sort is
// O(count log count). The comparator is a strict total order (ties by id), so the result does not
// depend on the standard library's algorithm.
void Sampler::sortPrefix(size_t count) {
    count = std::min(count, m_candidates.size());
    if (count <= m_sortedCount) return;
    const auto first = m_candidates.begin() + std::ptrdiff_t(m_sortedCount);
    const auto middle = m_candidates.begin() + std::ptrdiff_t(count);
    std::nth_element(first, middle, m_candidates.end(), ranksBefore);
    std::sort(first, middle, ranksBefore);
    m_sortedCount = count;
}

// p = exp((logit - max) / T), unnormalised: the best token gets exactly 1, so sums are >= 1 and
// nothing overflows. Differences are taken in double so that FLT_MAX - (-FLT_MAX) is finite.
void Sampler::applySoftmax() {
    double maxLogit = m_candidates.front().logit;
    if (m_sortedCount == 0)
        for (const Candidate& c : m_candidates) maxLogit = std::max(maxLogit, double(c.logit));
    const double invTemperature = 1.0 / m_temperature;
    for (Candidate& c : m_candidates) c.p = std::exp((double(c.logit) - maxLogit) * invTemperature);
}

// Keeps the smallest best-first prefix whose mass reaches topP, sorting only as far as needed.
void Sampler::applyTopP() {
    if (m_topP >= 1.0) return;
    double total = 0.0;
    for (const Candidate& c : m_candidates) total += c.p;
    const double target = m_topP * total * (1.0 - kThresholdSlack);
    double cumulative = 0.0;
    size_t keep = 0;
    while (keep < m_candidates.size()) {
        if (keep == m_sortedCount) sortPrefix(std::max(kFirstSortChunk, 2 * m_sortedCount));
        cumulative += m_candidates[keep].p;
        ++keep;
        if (cumulative >= target) break;
    }
    m_candidates.resize(keep);
    m_sortedCount = std::min(m_sortedCount, keep);
}

void Sampler::applyMinP() {
    if (m_minP <= 0.0) return;
    double maxP = 0.0;
    for (const Candidate& c : m_candidates) maxP = std::max(maxP, c.p);
    const double threshold = m_minP * maxP * (1.0 - kThresholdSlack);
    // erase_if keeps the order, so a sorted list stays sorted.
    std::erase_if(m_candidates, [threshold](const Candidate& c) { return c.p < threshold; });
    m_sortedCount = std::min(m_sortedCount, m_candidates.size());
}

// Inverse-CDF draw over the survivors in their current order; `u` is uniform in [0, 1).
int32_t Sampler::draw(double u) const {
    double total = 0.0;
    for (const Candidate& c : m_candidates) total += c.p;
    const double point = u * total;
    double cumulative = 0.0;
    int32_t lastPositive = m_candidates.front().id;
    for (const Candidate& c : m_candidates) {
        if (c.p <= 0.0) continue; // underflowed: never drawn
        cumulative += c.p;
        lastPositive = c.id;
        if (point < cumulative) return c.id;
    }
    return lastPositive; // u * total rounded up to total
}

} // namespace hearth
