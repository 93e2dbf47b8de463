// Status and Result<T>: how every engine call reports failure.
// Exceptions never cross the engine API; a failure is a Status with a closed code and a message
// that names the file, the key or tensor, and what was expected versus what was found.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace hearth {

enum class StatusCode {
    Ok = 0,
    InvalidArgument,    // The caller passed something unusable (bad option value, negative count).
    NotFound,           // A named file, key, tensor or token does not exist.
    FailedPrecondition, // The object is not in a state that allows the call (e.g. context full).
    OutOfMemory,        // Host or device memory could not be obtained.
    Unsupported,        // Well-formed input that Hearth does not handle (architecture, tensor type).
    DataLoss,           // A file is corrupt: truncated, inconsistent, offsets past its end.
    Cancelled,          // The caller asked to stop.
    Internal,           // A bug or an unexpected library/driver failure.
    DeviceLost,         // The GPU hit an error that only a reset clears (illegal address, launch
                        // failure): every later call on it fails too; the process must restart.
};

const char* statusCodeName(StatusCode code);

class [[nodiscard]] Status {
public:
    Status() = default;
    Status(StatusCode code, std::string message) : m_code(code), m_message(std::move(message)) {}

    static Status ok() { return {}; }
    bool isOk() const { return m_code == StatusCode::Ok; }
    explicit operator bool() const { return isOk(); }
    StatusCode code() const { return m_code; }
    const std::string& message() const { return m_message; }
    const Status& status() const { return *this; } // lets Status and Result<T> be checked alike

    // Returns a copy whose message is "context: message" (context added by each layer).
    Status withContext(const std::string& context) const;

private:
    StatusCode m_code = StatusCode::Ok;
    std::string m_message;
};

inline Status invalidArgument(std::string m) { return {StatusCode::InvalidArgument, std::move(m)}; }
inline Status notFound(std::string m) { return {StatusCode::NotFound, std::move(m)}; }
inline Status failedPrecondition(std::string m) { return {StatusCode::FailedPrecondition, std::move(m)}; }
inline Status outOfMemory(std::string m) { return {StatusCode::OutOfMemory, std::move(m)}; }
inline Status unsupported(std::string m) { return {StatusCode::Unsupported, std::move(m)}; }
inline Status dataLoss(std::string m) { return {StatusCode::DataLoss, std::move(m)}; }
inline Status cancelled(std::string m) { return {StatusCode::Cancelled, std::move(m)}; }
inline Status internalError(std::string m) { return {StatusCode::Internal, std::move(m)}; }

// A value or a failure. Access the value only after checking isOk().
template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : m_data(std::move(value)) {}
    Result(Status status) : m_data(std::move(status)) {}

    bool isOk() const { return std::holds_alternative<T>(m_data); }
    explicit operator bool() const { return isOk(); }
    const Status& status() const {
        static const Status okStatus;
        return isOk() ? okStatus : std::get<Status>(m_data);
    }
    T& value() & { return std::get<T>(m_data); }
    const T& value() const& { return std::get<T>(m_data); }
    T&& value() && { return std::get<T>(std::move(m_data)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

private:
    std::variant<T, Status> m_data;
};

} // namespace hearth

// Propagate a failed Status, optionally adding context: HEARTH_TRY(expr) / HEARTH_TRY_CTX(expr, "loading x").
#define HEARTH_TRY(expr)                                                                           \
    do {                                                                                           \
        ::hearth::Status hearthTryStatus_ = (expr);                                                \
        if (!hearthTryStatus_.isOk()) return hearthTryStatus_;                                     \
    } while (0)

#define HEARTH_TRY_CTX(expr, ctx)                                                                  \
    do {                                                                                           \
        ::hearth::Status hearthTryStatus_ = (expr);                                                \
        if (!hearthTryStatus_.isOk()) return hearthTryStatus_.withContext(ctx);                    \
    } while (0)

// Bind the value of a Result or return its Status: HEARTH_ASSIGN(auto file, openFile(path));
#define HEARTH_CONCAT_INNER_(a, b) a##b
#define HEARTH_CONCAT_(a, b) HEARTH_CONCAT_INNER_(a, b)
#define HEARTH_ASSIGN(decl, expr) HEARTH_ASSIGN_IMPL_(HEARTH_CONCAT_(hearthResult_, __LINE__), decl, expr)
#define HEARTH_ASSIGN_IMPL_(tmp, decl, expr)                                                       \
    auto tmp = (expr);                                                                             \
    if (!tmp.isOk()) return tmp.status();                                                          \
    decl = std::move(tmp).value()
