// The HTTP answer to an accepted generation, written from the job's events as they arrive:
// Server-Sent Events for stream: true, one JSON object at the end otherwise. Both wait on the job
// in short steps and look at the connection between them, so a client that goes away cancels its
// generation (during the prompt too), and a stopping server is never held up. Qt-free.
#pragma once

#include <memory>
#include <vector>

#include <httplib.h>

#include "server/job.h"

namespace hearth::server {

// Sets the status and body of an error response.
void sendError(httplib::Response& res, const ApiError& error);

// `started`: the job's Started event; `early`: events that arrived with it.
void answerWithEvents(httplib::Response& res, std::shared_ptr<Job> job, const JobEvent& started,
                      std::vector<JobEvent> early);

} // namespace hearth::server
