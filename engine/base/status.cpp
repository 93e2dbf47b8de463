#include "hearth/status.h"

namespace hearth {

const char* statusCodeName(StatusCode code) {
    switch (code) {
    case StatusCode::Ok: return "ok";
    case StatusCode::InvalidArgument: return "invalid argument";
    case StatusCode::NotFound: return "not found";
    case StatusCode::FailedPrecondition: return "failed precondition";
    case StatusCode::OutOfMemory: return "out of memory";
    case StatusCode::Unsupported: return "unsupported";
    case StatusCode::DataLoss: return "data loss";
    case StatusCode::Cancelled: return "cancelled";
    case StatusCode::Internal: return "internal error";
    case StatusCode::DeviceLost: return "device lost";
    }
    return "unknown";
}

Status Status::withContext(const std::string& context) const {
    if (isOk()) return *this;
    return Status(m_code, context + ": " + m_message);
}

} // namespace hearth
