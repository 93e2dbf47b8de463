// A streaming GGUF v3 emitter for synthetic models. io::GgufWriter needs every tensor's bytes in
// memory; a 32B model does not fit, and generating it serially would take minutes. Here the
// layout is computed up front (offsets aligned to 32, as llama.cpp writes), the header goes
// first, the file is sized, and workers fill chunks in parallel, each written in place with
// pwrite. Padding between tensors stays as the zeros the sized file already reads as.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <filesystem>
#include <mutex>
#include <unistd.h>

#include "backend/cpu/thread_pool.h"
#include "model/synth_internal.h"

namespace hearth::synth {
namespace {

constexpr uint64_t kAlignment = 32;

template <typename T>
void put(std::string& out, T v) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &v, sizeof(T));
    out.append(bytes, sizeof(T));
}

void putString(std::string& out, const std::string& s) {
    put<uint64_t>(out, s.size());
    out += s;
}

// The value body (its type tag is written by the caller). Only the types synth emits need to
// be exact; any mismatch between tag and data is a programming error reported as Internal.
Status putValue(std::string& out, const std::string& key, const io::GgufValue& v) {
    using io::GgufValueType;
    switch (v.type) {
    case GgufValueType::U32: put<uint32_t>(out, uint32_t(v.asUInt().value_or(0))); return Status::ok();
    case GgufValueType::I32: put<int32_t>(out, int32_t(v.asInt().value_or(0))); return Status::ok();
    case GgufValueType::U64: put<uint64_t>(out, v.asUInt().value_or(0)); return Status::ok();
    case GgufValueType::F32: put<float>(out, float(v.asFloat().value_or(0))); return Status::ok();
    case GgufValueType::Bool: put<uint8_t>(out, v.asBool().value_or(false) ? 1 : 0); return Status::ok();
    case GgufValueType::String:
        if (const std::string* s = v.asString()) {
            putString(out, *s);
            return Status::ok();
        }
        break;
    case GgufValueType::Array:
        if (const auto* items = v.asArray()) {
            put<uint32_t>(out, uint32_t(v.elementType));
            put<uint64_t>(out, items->size());
            for (const io::GgufValue& item : *items) {
                if (item.type != v.elementType) break;
                HEARTH_TRY(putValue(out, key, item));
            }
            return Status::ok();
        }
        break;
    default: break;
    }
    return internalError("synth: key " + key + " has a value of type " + io::ggufValueTypeName(v.type) +
                         " the emitter does not write");
}

Result<std::string> buildHeader(const Metadata& metadata, const SynthPlan& plan) {
    std::string h;
    h.append("GGUF", 4);
    put<uint32_t>(h, 3);
    put<uint64_t>(h, plan.tensors.size());
    put<uint64_t>(h, metadata.size());
    for (const auto& [key, value] : metadata) {
        putString(h, key);
        put<uint32_t>(h, uint32_t(value.type));
        HEARTH_TRY(putValue(h, key, value));
    }
    for (const SynthTensor& t : plan.tensors) {
        putString(h, t.name);
        put<uint32_t>(h, uint32_t(t.ne.size()));
        for (uint64_t d : t.ne) put<uint64_t>(h, d);
        put<uint32_t>(h, uint32_t(t.type));
        put<uint64_t>(h, t.offset);
    }
    h.append((kAlignment - h.size() % kAlignment) % kAlignment, '\0');
    return h;
}

Status pwriteAll(int fd, const uint8_t* data, uint64_t size, uint64_t offset, const std::string& path) {
    while (size > 0) {
        const size_t chunk = size_t(std::min<uint64_t>(size, uint64_t(1) << 30));
        const ssize_t n = ::pwrite(fd, data, chunk, off_t(offset));
        if (n < 0) {
            if (errno == EINTR) continue;
            return internalError(path + ": write failed: " + std::strerror(errno));
        }
        data += n;
        size -= uint64_t(n);
        offset += uint64_t(n);
    }
    return Status::ok();
}

struct Chunk {
    uint32_t tensor;
    uint32_t index; // within the tensor
    int64_t firstRow, rows;
};

// Generates every chunk on `threads` workers, which take the next chunk as they finish one
// (chunk sizes differ, so a static split would leave threads idle).
// `fixedOnly`: just the computed tensors (rope_freqs), for skipTensorData.
Status fillData(int fd, uint64_t dataStart, const SynthPlan& plan, uint64_t seed, int threads, bool fixedOnly,
                const std::string& path) {
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
            Status st = pwriteAll(fd, buffer.data(), rowBytes * uint64_t(c.rows),
                                  dataStart + t.offset + rowBytes * uint64_t(c.firstRow), path);
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
    const std::string part = path + ".part";
    const int fd = ::open(part.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return invalidArgument(part + ": cannot create: " + std::strerror(errno));

    Status st = pwriteAll(fd, reinterpret_cast<const uint8_t*>(header.data()), header.size(), 0, part);
    if (st.isOk() && ::ftruncate(fd, off_t(header.size() + plan.dataBytes)) != 0)
        st = internalError(part + ": cannot size the file: " + std::strerror(errno));
    if (st.isOk()) st = fillData(fd, header.size(), plan, seed, threads, skipTensorData, part);
    // fsync before rename: after a crash the file is either complete or absent.
    if (st.isOk() && ::fsync(fd) != 0) st = internalError(part + ": fsync failed: " + std::strerror(errno));
    if (::close(fd) != 0 && st.isOk()) st = internalError(part + ": close failed: " + std::strerror(errno));
    if (st.isOk() && ::rename(part.c_str(), path.c_str()) != 0)
        st = internalError(path + ": cannot rename " + part + " into place: " + std::strerror(errno));
    if (!st.isOk()) {
        ::unlink(part.c_str());
        return st;
    }
    const std::string dir = std::filesystem::path(path).parent_path().string();
    const int dirFd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd >= 0) { // best effort: make the rename durable
        ::fsync(dirFd);
        ::close(dirFd);
    }
    return Status::ok();
}

} // namespace hearth::synth
