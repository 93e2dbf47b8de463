#include "server/routes.h"

#include <cctype>
#include <ctime>

#include "server/access.h"
#include "server/response_stream.h"

namespace hearth::server {
namespace {

using httplib::Request;
using httplib::Response;

// The checks every endpoint but /health makes: a Host naming this machine (when it trusts
// loopback), then the API key. Returns false after writing the refusal.
bool admitted(const Request& req, Response& res, const RouteContext& context) {
    if (context.checkHostHeader && !loopbackHostHeader(req.get_header_value("Host"))) {
        sendError(res, {403, "permission_error",
                        "this server answers requests for localhost only (set an API key to serve other names)", {}, {}});
        return false;
    }
    if (!authorized(req.get_header_value("Authorization"), context.options.apiKey)) {
        res.set_header("WWW-Authenticate", "Bearer");
        sendError(res, {401, "authentication_error", "a valid API key is needed: send \"Authorization: Bearer KEY\"",
                        {}, "invalid_api_key"});
        return false;
    }
    return true;
}

bool isJson(const Request& req) {
    std::string type = req.get_header_value("Content-Type");
    for (char& c : type) c = char(std::tolower(static_cast<unsigned char>(c)));
    return type.rfind("application/json", 0) == 0;
}

ApiError noModel() { return {503, "server_error", "no model is loaded", {}, "model_not_loaded"}; }

void health(const Request&, Response& res, const RouteContext& context) {
    const bool ready = context.generator.servedModel().has_value();
    res.status = ready ? 200 : 503;
    res.set_content(ready ? R"({"status":"ok"})" : R"({"status":"no model loaded"})", "application/json");
}

void models(const Request& req, Response& res, const RouteContext& context) {
    if (!admitted(req, res, context)) return;
    const auto served = context.generator.servedModel();
    if (req.matches.size() > 1) { // /v1/models/{id}
        if (!served || req.matches[1] != served->id)
            return sendError(res, {404, "invalid_request_error", "no model '" + req.matches[1].str() + "' is served here",
                                   "model", "model_not_found"});
        return res.set_content(jsonText(modelJson(served->id, served->created)), "application/json");
    }
    res.set_content(jsonText(modelListJson(served ? &served->id : nullptr, served ? served->created : 0)),
                    "application/json");
}

// Waits for the queued job to be admitted (Started) or refused (Failed).
JobEvent firstAnswer(Job& job, std::vector<JobEvent>& early) {
    for (;;) {
        std::vector<JobEvent> events = job.take(std::chrono::seconds(1));
        if (events.empty()) continue;
        JobEvent first = events.front();
        early.assign(std::make_move_iterator(events.begin() + 1), std::make_move_iterator(events.end()));
        return first;
    }
}

void generate(const Request& req, Response& res, const RouteContext& context, ApiRequest::Kind kind) {
    if (!admitted(req, res, context)) return;
    if (!isJson(req))
        return sendError(res, {415, "invalid_request_error", "send the body as JSON (Content-Type: application/json)", {}, {}});
    ApiRequest request;
    if (auto error = parseRequest(req.body, kind, request)) return sendError(res, *error);
    const auto served = context.generator.servedModel();
    if (!served) return sendError(res, noModel());
    if (!request.model.empty() && request.model != served->id)
        return sendError(res, {404, "invalid_request_error",
                               "model '" + request.model + "' is not served here; this server serves '" + served->id + "'",
                               "model", "model_not_found"});
    ResponseHead head{newResponseId(kind), int64_t(std::time(nullptr)), served->id, kind};
    auto job = std::make_shared<Job>(std::move(request), std::move(head));
    switch (context.queue.submit(job)) {
    case RequestQueue::Admission::Queued: break;
    case RequestQueue::Admission::Full:
        res.set_header("Retry-After", "1");
        return sendError(res, {503, "server_error", "the server is busy: too many requests are waiting; try again shortly",
                               {}, "server_busy"});
    case RequestQueue::Admission::Stopped:
        return sendError(res, {503, "server_error", "the server is shutting down", {}, "shutting_down"});
    }
    std::vector<JobEvent> early;
    const JobEvent first = firstAnswer(*job, early);
    if (first.kind == JobEvent::Kind::Failed) return sendError(res, first.error);
    answerWithEvents(res, job, first, std::move(early));
}

void allowCrossOrigin(const Request&, Response& res) {
    res.status = 204;
    res.set_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
    res.set_header("Access-Control-Allow-Headers", "Authorization, Content-Type");
    res.set_header("Access-Control-Max-Age", "600");
}

} // namespace

void installRoutes(httplib::Server& http, RouteContext& context) {
    RouteContext* c = &context;
    http.Get("/health", [c](const Request& req, Response& res) { health(req, res, *c); });
    http.Get("/v1/models", [c](const Request& req, Response& res) { models(req, res, *c); });
    http.Get("/v1/models/(.+)", [c](const Request& req, Response& res) { models(req, res, *c); });
    http.Post("/v1/chat/completions",
              [c](const Request& req, Response& res) { generate(req, res, *c, ApiRequest::Kind::Chat); });
    http.Post("/v1/completions",
              [c](const Request& req, Response& res) { generate(req, res, *c, ApiRequest::Kind::Completion); });
    if (context.options.cors) http.Options(".*", allowCrossOrigin);
}

} // namespace hearth::server
