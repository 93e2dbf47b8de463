#include "io/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace hearth::io {

AtomicFile::AtomicFile(std::string path, int fd) : m_path(std::move(path)), m_part(m_path + ".part"), m_fd(fd) {}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : m_path(std::move(other.m_path)), m_part(std::move(other.m_part)), m_fd(other.m_fd) {
    other.m_fd = -1;
    other.m_part.clear();
}

AtomicFile::~AtomicFile() { abandon(); }

void AtomicFile::abandon() {
    if (m_fd >= 0) ::close(m_fd);
    m_fd = -1;
    if (!m_part.empty()) ::unlink(m_part.c_str());
    m_part.clear();
}

Result<AtomicFile> AtomicFile::create(const std::string& path) {
    const std::string part = path + ".part";
    const int fd = ::open(part.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) return AtomicFile(path, fd);
    const int error = errno;
    // The user named `path`, not the .part beside it: say which folder is the problem.
    const std::filesystem::path folder = std::filesystem::path(path).parent_path();
    const std::string shown = folder.empty() ? "." : folder.string();
    std::error_code ec;
    if (error == ENOENT && !std::filesystem::exists(folder.empty() ? "." : folder, ec))
        return invalidArgument(path + ": cannot create: the folder " + shown + " does not exist");
    if (error == ENOTDIR) return invalidArgument(path + ": cannot create: " + shown + " is not a folder");
    return invalidArgument(path + ": cannot create: " + std::strerror(error));
}

Status AtomicFile::append(const void* data, uint64_t size) {
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t n = ::write(m_fd, p, size_t(std::min<uint64_t>(size, uint64_t(1) << 30)));
        if (n < 0) {
            if (errno == EINTR) continue;
            return internalError(m_part + ": write failed: " + std::strerror(errno));
        }
        p += n;
        size -= uint64_t(n);
    }
    return Status::ok();
}

Status AtomicFile::writeAt(const void* data, uint64_t size, uint64_t offset) {
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t n = ::pwrite(m_fd, p, size_t(std::min<uint64_t>(size, uint64_t(1) << 30)), off_t(offset));
        if (n < 0) {
            if (errno == EINTR) continue;
            return internalError(m_part + ": write failed: " + std::strerror(errno));
        }
        p += n;
        size -= uint64_t(n);
        offset += uint64_t(n);
    }
    return Status::ok();
}

Status AtomicFile::resize(uint64_t size) {
    if (::ftruncate(m_fd, off_t(size)) != 0) return internalError(m_part + ": cannot size the file: " + std::strerror(errno));
    return Status::ok();
}

Status AtomicFile::commit() {
    Status st;
    if (::fsync(m_fd) != 0) st = internalError(m_part + ": fsync failed: " + std::strerror(errno));
    if (::close(m_fd) != 0 && st.isOk()) st = internalError(m_part + ": close failed: " + std::strerror(errno));
    m_fd = -1;
    if (st.isOk() && ::rename(m_part.c_str(), m_path.c_str()) != 0)
        st = internalError(m_path + ": cannot rename " + m_part + " into place: " + std::strerror(errno));
    if (!st.isOk()) {
        abandon();
        return st;
    }
    m_part.clear(); // renamed: nothing to remove
    const std::string dir = std::filesystem::path(m_path).parent_path().string();
    const int dirFd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd >= 0) { // best effort: make the rename itself durable
        ::fsync(dirFd);
        ::close(dirFd);
    }
    return Status::ok();
}

} // namespace hearth::io
