#include "keyring.h"

namespace keyring {

bool isUnavailable(QKeychain::Error error)
{
    return error == QKeychain::NoBackendAvailable || error == QKeychain::NotImplemented ||
           error == QKeychain::AccessDeniedByUser || error == QKeychain::AccessDenied || error == QKeychain::OtherError;
}

} // namespace keyring
