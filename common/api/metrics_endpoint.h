// metrics_endpoint.h -- this process's metrics over FastCGI: GET /metrics/{group} (one host, unix
// sockets) and GET /metrics/{group}/{host} (several handler hosts), reached only through
// nginx's internal metrics server (its own listener, never the public port), which admits the
// configured addresses alone (nginx/pouch.conf.template, POUCH_METRICS_LISTEN/_FROM). Also
// registers the probes every handler has: its database pool, its parked long-polls and
// whether Redis is being replaced by the database.
#pragma once

#include <string>
#include <vector>

#include "common/http/server.h"
#include "common/metrics/metrics.h"

namespace pouch::api {

// Adds the route, labels requests with `router`'s patterns, registers the probes. Keep it
// alive while the server runs (after `router` is complete; before `services` goes).
class MetricsEndpoint {
  public:
    MetricsEndpoint(const std::string& group, http::Router& router, http::Services& services);

  private:
    std::vector<metrics::Probe> probes_;
};

}  // namespace pouch::api
