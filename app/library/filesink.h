// The downloader's file operations behind an interface, so that a test can make writes fail the
// way a full disk does (ENOSPC) or report little free space. The real layer is POSIX (Linux): a
// .part is created with O_EXCL, so a download never writes into a file it did not create, and a
// finished file is moved with RENAME_NOREPLACE, so it never replaces one.
// Errors are hearth::Status whose message names the file and the system's reason.
// Threads: a PartFile belongs to its caller; FileLayer::system() may be used from any thread.
#pragma once

#include <QString>

#include <memory>

#include "hearth/status.h"

class PartFile
{
public:
    virtual ~PartFile() = default;
    // Appends all of `data` or fails (a short write is an error).
    virtual hearth::Status write(const char* data, qint64 size) = 0;
    // Cuts the file to `size` bytes; writing goes on from there.
    virtual hearth::Status truncate(qint64 size) = 0;
    virtual qint64 size() const = 0;
};

class FileLayer
{
public:
    virtual ~FileLayer() = default;
    // A new file at `path` for writing; fails (FailedPrecondition) when anything is there already.
    virtual hearth::Result<std::unique_ptr<PartFile>> create(const QString& path) = 0;
    // An existing regular file (not a link), opened to append to.
    virtual hearth::Result<std::unique_ptr<PartFile>> openExisting(const QString& path) = 0;
    // Free bytes for an unprivileged user on the disk that holds `folder`; -1 when unknown.
    virtual qint64 availableBytes(const QString& folder) const = 0;
    // Renames `from` to `to`; fails when `to` exists (nothing is replaced).
    virtual hearth::Status moveNoReplace(const QString& from, const QString& to) = 0;
    // Removes a file; true when it is gone (or was never there).
    virtual bool remove(const QString& path) = 0;

    // The real one (process-wide).
    static FileLayer& system();
};

// The Status a failed write of `path` reports for errno `error`: ENOSPC and EDQUOT say that the
// disk is full.
hearth::Status writeError(const QString& path, int error);
