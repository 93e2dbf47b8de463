#include "server/access.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

namespace hearth::server {
namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

bool endsWith(std::string_view s, std::string_view tail) {
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

} // namespace

bool keysEqual(std::string_view given, std::string_view expected) {
    // Every byte of the longer one is visited whatever the contents; differences are OR-ed
    // together, and the length difference joins them, so nothing returns early.
    const size_t n = std::max(given.size(), expected.size());
    volatile unsigned char diff = given.size() == expected.size() ? 0 : 1;
    for (size_t i = 0; i < n; ++i) {
        const unsigned char a = i < given.size() ? static_cast<unsigned char>(given[i]) : 0;
        const unsigned char b = i < expected.size() ? static_cast<unsigned char>(expected[i]) : 0;
        diff = diff | (a ^ b);
    }
    return diff == 0;
}

bool authorized(std::string_view authorization, std::string_view apiKey) {
    if (apiKey.empty()) return true;
    constexpr std::string_view scheme = "bearer ";
    if (authorization.size() < scheme.size() || lower(authorization.substr(0, scheme.size())) != scheme) return false;
    std::string_view key = authorization.substr(scheme.size());
    while (!key.empty() && key.front() == ' ') key.remove_prefix(1);
    while (!key.empty() && key.back() == ' ') key.remove_suffix(1);
    return keysEqual(key, apiKey);
}

bool isLoopbackHost(std::string_view host) {
    const std::string h = lower(host);
    if (h == "localhost" || endsWith(h, ".localhost")) return true;
    in_addr v4{};
    if (inet_pton(AF_INET, h.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
    in6_addr v6{};
    if (inet_pton(AF_INET6, h.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
    return false;
}

Status checkBind(const std::string& host, const std::string& apiKey) {
    if (host.empty()) return invalidArgument("the host to listen on is empty");
    if (!apiKey.empty() && apiKey.size() < 8)
        return invalidArgument("the API key is too short: use at least 8 characters (16 or more random ones are better)");
    if (apiKey.empty() && !isLoopbackHost(host))
        return invalidArgument("listening on " + host + " lets other machines in: set an API key for that, "
                               "or listen on 127.0.0.1");
    return Status::ok();
}

bool loopbackHostHeader(std::string_view hostHeader) {
    std::string_view host = hostHeader;
    if (!host.empty() && host.front() == '[') { // "[::1]:8080"
        const size_t close = host.find(']');
        if (close == std::string_view::npos) return false;
        host = host.substr(1, close - 1);
    } else if (std::count(host.begin(), host.end(), ':') == 1) { // "localhost:8080"
        host = host.substr(0, host.find(':'));
    }
    return isLoopbackHost(host);
}

} // namespace hearth::server
