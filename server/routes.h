// The endpoints, installed on a cpp-httplib server: access checks, then health, models, chat and
// text completions. Qt-free.
#pragma once

#include <httplib.h>

#include "server/api_server.h"
#include "server/request_queue.h"

namespace hearth::server {

struct RouteContext {
    Generator& generator;
    RequestQueue& queue;
    const ServerOptions& options;
    bool checkHostHeader = false; // loopback without a key: refuse other Host names
};

void installRoutes(httplib::Server& http, RouteContext& context);

} // namespace hearth::server
