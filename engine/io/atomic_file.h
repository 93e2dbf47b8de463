// A file written as "path.part" and renamed into place only by commit(), after an fsync: an
// error, a crash or a kill never leaves a half-written file at `path` to be taken for a model.
#pragma once

#include <cstdint>
#include <string>

#include "hearth/status.h"

namespace hearth::io {

class AtomicFile {
public:
    // Creates (truncates) path.part. Errors: InvalidArgument naming `path` and, for a missing
    // folder, that folder (no permission: the system's reason).
    static Result<AtomicFile> create(const std::string& path);
    AtomicFile(AtomicFile&& other) noexcept;
    AtomicFile& operator=(AtomicFile&&) = delete;
    AtomicFile(const AtomicFile&) = delete;
    ~AtomicFile(); // removes path.part unless committed

    const std::string& partPath() const { return m_part; }
    Status append(const void* data, uint64_t size);                  // at the current end
    Status writeAt(const void* data, uint64_t size, uint64_t offset); // any thread, any order
    Status resize(uint64_t size);
    // fsync, close, rename into place, fsync the folder (best effort). After an error the .part
    // file is removed and nothing is at `path`.
    Status commit();

private:
    AtomicFile(std::string path, int fd);
    void abandon();

    std::string m_path, m_part;
    int m_fd = -1;
};

} // namespace hearth::io
