#include "filesink.h"

#include <QFile>
#include <QStorageInfo>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

std::string describe(const QString& path, int error)
{
    return QFile::encodeName(path).toStdString() + ": " + std::strerror(error);
}

class PosixPartFile final : public PartFile
{
public:
    PosixPartFile(int fd, QString path, qint64 size) : m_fd(fd), m_path(std::move(path)), m_size(size) {}
    ~PosixPartFile() override { ::close(m_fd); }

    hearth::Status write(const char* data, qint64 size) override
    {
        while (size > 0) {
            const ssize_t n = ::write(m_fd, data, size_t(size));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return writeError(m_path, n < 0 ? errno : EIO);
            data += n;
            size -= n;
            m_size += n;
        }
        return hearth::Status::ok();
    }

    hearth::Status truncate(qint64 size) override
    {
        if (::ftruncate(m_fd, off_t(size)) != 0 || ::lseek(m_fd, off_t(size), SEEK_SET) < 0)
            return hearth::internalError(describe(m_path, errno));
        m_size = size;
        return hearth::Status::ok();
    }

    qint64 size() const override { return m_size; }

private:
    int m_fd;
    QString m_path;
    qint64 m_size;
};

class PosixFileLayer final : public FileLayer
{
public:
    hearth::Result<std::unique_ptr<PartFile>> create(const QString& path) override
    {
        // O_EXCL: fails on anything already there, a link included.
        const int fd = ::open(QFile::encodeName(path).constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0)
            return errno == EEXIST ? hearth::failedPrecondition(describe(path, errno) + " (not created by Hearth)")
                                   : hearth::internalError(describe(path, errno));
        return std::unique_ptr<PartFile>(std::make_unique<PosixPartFile>(fd, path, 0));
    }

    hearth::Result<std::unique_ptr<PartFile>> openExisting(const QString& path) override
    {
        const int fd = ::open(QFile::encodeName(path).constData(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            return errno == ENOENT ? hearth::notFound(describe(path, errno)) : hearth::internalError(describe(path, errno));
        struct stat st {};
        if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            ::close(fd);
            return hearth::failedPrecondition(QFile::encodeName(path).toStdString() + " is not a regular file");
        }
        return std::unique_ptr<PartFile>(std::make_unique<PosixPartFile>(fd, path, qint64(st.st_size)));
    }

    qint64 availableBytes(const QString& folder) const override
    {
        const QStorageInfo info(folder);
        return info.isValid() ? info.bytesAvailable() : -1;
    }

    hearth::Status moveNoReplace(const QString& from, const QString& to) override
    {
        const QByteArray src = QFile::encodeName(from), dst = QFile::encodeName(to);
        if (::renameat2(AT_FDCWD, src.constData(), AT_FDCWD, dst.constData(), RENAME_NOREPLACE) == 0)
            return hearth::Status::ok();
        if (errno == EINVAL || errno == ENOSYS) {
            // A file system without RENAME_NOREPLACE: link() refuses an existing name too.
            if (::link(src.constData(), dst.constData()) == 0) {
                ::unlink(src.constData());
                return hearth::Status::ok();
            }
        }
        return errno == EEXIST ? hearth::failedPrecondition(describe(to, errno) + " (left as it is)")
                               : hearth::internalError(describe(to, errno));
    }

    bool remove(const QString& path) override
    {
        return ::unlink(QFile::encodeName(path).constData()) == 0 || errno == ENOENT;
    }
};

} // namespace

FileLayer& FileLayer::system()
{
    static PosixFileLayer layer;
    return layer;
}

hearth::Status writeError(const QString& path, int error)
{
    if (error == ENOSPC || error == EDQUOT)
        return hearth::failedPrecondition("the disk is full: " + describe(path, error));
    return hearth::internalError("cannot write " + describe(path, error));
}
