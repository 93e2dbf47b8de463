// Who may talk to the server: the API key (compared in constant time), which hosts count as
// loopback (binding anywhere else needs a key), and the Host header a loopback server accepts
// without a key (a web page that rebinds its own name to 127.0.0.1 must not reach it). Qt-free.
#pragma once

#include <string>
#include <string_view>

#include "hearth/status.h"

namespace hearth::server {

// Whether `given` equals `expected`, in a time that depends only on their lengths, not on where
// they first differ (a wrong key cannot be guessed a byte at a time).
bool keysEqual(std::string_view given, std::string_view expected);

// Whether an "Authorization" header value carries `apiKey` as "Bearer <key>" (the scheme's case
// ignored). An empty apiKey accepts everything.
bool authorized(std::string_view authorization, std::string_view apiKey);

// 127.0.0.0/8, ::1, "localhost" and its subdomains.
bool isLoopbackHost(std::string_view host);

// The bind address is allowed: loopback, or anything else with an API key (InvalidArgument,
// saying so, otherwise; and for a key that is too short to be one).
Status checkBind(const std::string& host, const std::string& apiKey);

// Whether a Host header ("localhost:8080", "[::1]:8080", "127.0.0.1") names a loopback host.
bool loopbackHostHeader(std::string_view hostHeader);

} // namespace hearth::server
