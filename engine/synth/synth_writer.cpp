// Streaming the tensor data of synthetic models. A 32B model does not fit in memory and
// generating it serially would take minutes, so io::GgufWriter only builds the header (tensor
// layouts, offsets aligned to 32 as llama.cpp writes), the file is sized, and workers fill chunks
// in parallel, each written in place. Padding between tensors stays as the zeros the sized file
// already reads as. The file is written as OUT.part and renamed only when complete.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <mutex>

#include "base/thread_pool.h"
#include "io/atomic_file.h"
#include "io/gguf.h"
#include "synth/synth_internal.h"

namespace hearth::synth {
namespace {

// The header through io::GgufWriter, checked against the plan's own offsets.
Result<std::string> buildHeader(const Metadata& metadata, const SynthPlan& plan) {
    io::GgufWriter writer;
    for (const auto& [key, value] : metadata) writer.set(key, value);
    for (const SynthTensor& t : plan.tensors) writer.addTensorLayout(t.name, t.type, t.ne);
    return writer.serializeHeader();
}

struct Chunk {
    uint32_t tensor;
    uint32_t index; // within the tensor
    int64_t firstRow, rows;
};

// Generates every chunk on `threads` workers, which take the next chunk as they finish one
// (chunk sizes differ, so a static split would leave threads idle).
// `fixedOnly`: just the computed tensors (rope_freqs), for skipTensorData.
Status fillData(io::AtomicFile& file, uint64_t dataStart, const SynthPlan& plan, uint64_t seed, int threads,
                bool fixedOnly) {
    const std::string& path = file.partPath();
    std::vector<Chunk> chunks;
    uint64_t largest = 0;
    for (size_t t = 0; t < plan.tensors.size(); ++t) {
        const SynthTensor& tensor = plan.tensors[t];
        if (fixedOnly && tensor.fill != SynthFill::Fixed) continue;
        const int64_t per = rowsPerChunk(tensor), rows = tensor.rows();
        largest = std::max(largest, uint64_t(per) * (tensor.bytes / uint64_t(rows)));
        uint32_t index = 0;
        for (int64_t r = 0; r < rows; r += per) chunks.push_back({uint32_t(t), index++, r, std::min(per, rows - r)});
    }
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    std::mutex errorMutex;
    Status firstError;
    auto worker = [&](int64_t, int64_t) {
        std::vector<uint8_t> buffer(largest);
        for (size_t i = next++; i < chunks.size() && !failed; i = next++) {
            const Chunk& c = chunks[i];
            const SynthTensor& t = plan.tensors[c.tensor];
            const uint64_t rowBytes = t.bytes / uint64_t(t.rows());
            fillChunk(t, seed, c.tensor, c.index, c.firstRow, c.rows, buffer.data());
            Status st = file.writeAt(buffer.data(), rowBytes * uint64_t(c.rows),
                                     dataStart + t.offset + rowBytes * uint64_t(c.firstRow));
            if (!st.isOk()) {
                std::lock_guard lock(errorMutex);
                if (!failed.exchange(true)) firstError = st;
            }
        }
    };
    try {
        ThreadPool pool(threads);
        pool.parallelFor(pool.size(), worker, pool.size());
    } catch (const std::exception& e) { // thread creation or buffer allocation
        return internalError(path + ": generating tensor data failed: " + e.what());
    }
    return firstError;
}

} // namespace

Status writeGguf(const std::string& path, const Metadata& metadata, const SynthPlan& plan, uint64_t seed,
                 int threads, bool skipTensorData) {
    HEARTH_ASSIGN(const std::string header, buildHeader(metadata, plan));
    HEARTH_ASSIGN(io::AtomicFile file, io::AtomicFile::create(path));
    HEARTH_TRY(file.writeAt(header.data(), header.size(), 0));
    HEARTH_TRY(file.resize(header.size() + plan.dataBytes));
    HEARTH_TRY(fillData(file, header.size(), plan, seed, threads, skipTensorData));
    return file.commit(); // the destructor removes OUT.part on any error above
}

} // namespace hearth::synth
