// A read-only memory mapping of a whole file (RAII). Model weights are used in place from it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "hearth/status.h"

namespace hearth::io {

class MappedFile {
public:
    // Maps `path` read-only. Errors: NotFound (missing), InvalidArgument (a folder, unreadable),
    // Internal (mmap failure). An empty file maps to size() == 0, data() == nullptr.
    static Result<std::shared_ptr<const MappedFile>> open(const std::string& path);
    // Wraps an in-memory buffer (tests, fuzzing): same interface, no file behind it.
    static std::shared_ptr<const MappedFile> fromBuffer(std::string name, std::string bytes);

    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const uint8_t* data() const { return m_data; }
    uint64_t size() const { return m_size; }
    const std::string& path() const { return m_path; } // as given; used in error messages

private:
    MappedFile() = default;
    std::string m_path;
    const uint8_t* m_data = nullptr;
    uint64_t m_size = 0;
    bool m_mapped = false; // true: munmap in destructor
    std::string m_buffer;  // owns the bytes for fromBuffer()
};

// The whole file as bytes (small files: configs, tokenizers, templates). Errors as open().
Result<std::string> readWholeFile(const std::string& path);

} // namespace hearth::io
