#include "io/mapped_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hearth::io {

Result<std::shared_ptr<const MappedFile>> MappedFile::open(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        int err = errno;
        if (err == ENOENT || err == ENOTDIR) return notFound(path + ": no such file");
        return invalidArgument(path + ": cannot access: " + std::strerror(err));
    }
    if (S_ISDIR(st.st_mode)) return invalidArgument(path + ": is a directory, not a file");
    if (!S_ISREG(st.st_mode)) return invalidArgument(path + ": not a regular file");

    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return invalidArgument(path + ": cannot open: " + std::strerror(errno));
    // Size from the open descriptor, in case the file changed between stat and open.
    if (::fstat(fd, &st) != 0) {
        int err = errno;
        ::close(fd);
        return internalError(path + ": fstat failed: " + std::strerror(err));
    }

    std::shared_ptr<MappedFile> file(new MappedFile());
    file->m_path = path;
    file->m_size = static_cast<uint64_t>(st.st_size);
    if (file->m_size > 0) {
        void* p = ::mmap(nullptr, file->m_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            int err = errno;
            ::close(fd);
            return internalError(path + ": mmap of " + std::to_string(file->m_size) +
                                 " bytes failed: " + std::strerror(err));
        }
        file->m_data = static_cast<const uint8_t*>(p);
        file->m_mapped = true;
    }
    ::close(fd); // the mapping stays valid without the descriptor
    return std::shared_ptr<const MappedFile>(std::move(file));
}

std::shared_ptr<const MappedFile> MappedFile::fromBuffer(std::string name, std::string bytes) {
    std::shared_ptr<MappedFile> file(new MappedFile());
    file->m_path = std::move(name);
    file->m_buffer = std::move(bytes);
    file->m_size = file->m_buffer.size();
    // Same convention as an empty file on disk: no bytes, no pointer.
    file->m_data = file->m_size ? reinterpret_cast<const uint8_t*>(file->m_buffer.data()) : nullptr;
    return file;
}

MappedFile::~MappedFile() {
    if (m_mapped && m_data) ::munmap(const_cast<uint8_t*>(m_data), m_size);
}

Result<std::string> readWholeFile(const std::string& path) {
    HEARTH_ASSIGN(auto file, MappedFile::open(path));
    if (file->size() == 0) return std::string();
    return std::string(reinterpret_cast<const char*>(file->data()), file->size());
}

} // namespace hearth::io
