// The system keyring (Secret Service, KWallet) through QtKeychain, as every secret of Hearth is
// kept: the Hugging Face token (HfTokenStore) and the API keys of remote connections (ApiKeyStore).
// Never a plain-text fallback: with no keyring a secret is not stored at all, and the caller says
// so. Jobs answer on the GUI thread through its event loop and delete themselves.
#pragma once

#include <QString>

#include <qt6keychain/keychain.h>

namespace keyring {

// A job for entry `key` of `service`, owned by `parent` until it finishes.
template <typename Job>
Job* makeJob(const QString& service, const QString& key, QObject* parent)
{
    auto* job = new Job(service, parent);
    job->setAutoDelete(true);
    job->setInsecureFallback(false);
    job->setKey(key);
    return job;
}

// The error means there is no keyring to use (none installed, locked away, refused), as opposed
// to a problem with this one entry.
bool isUnavailable(QKeychain::Error error);

} // namespace keyring
