// router.h -- method + path templates with typed params ("/v1/pouches/{pouchId:uuid}").
// Unknown path: 404 not_found; known path, other method: 405 method_not_allowed with Allow.
// Param types: uuid (interface "Shared formats"; the param holds its canonical lower-case
// form), blobid (43 b64url chars), seg (any segment).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/http/request.h"
#include "common/http/response.h"
#include "common/types/uuid.h"

namespace pouch::http {

struct Services;

using RouteFn = std::function<Response(Request&, Services&)>;

enum class BodyKind {
    none,    // GET/DELETE style: a body is ignored
    json,    // Content-Type application/json required (415), read whole up to the limit (413)
    stream,  // handler reads it through Request::read_body (blob upload)
};

constexpr size_t kKiB = 1024;
constexpr size_t kMiB = 1024 * 1024;

struct RouteOptions {
    BodyKind body = BodyKind::json;
    size_t body_limit = 64 * kKiB;                  // decisions §3
    std::string content_type = "application/json";  // for json/stream bodies
    // Routes that take query parameters validate them (common/http/query.h); on any other
    // route a query parameter is rejected before the handler runs.
    bool query = false;
    // Path params that are secrets (a share id opens its share): logs show only their first
    // 8 characters followed by "…" (decisions §13).
    std::vector<std::string> masked_params;
};

struct Route {
    std::string method;
    std::string pattern;
    std::vector<std::string> segments;  // "v1", "{pouchId:uuid}", ...
    RouteFn fn;
    RouteOptions options;
};

class Router {
  public:
    // Options default: json body for POST/PUT/PATCH, none for GET/DELETE; no query.
    void add(const std::string& method, const std::string& pattern, RouteFn fn);
    // GET route that validates its own query parameters.
    void add_query(const std::string& method, const std::string& pattern, RouteFn fn);
    void add(const std::string& method, const std::string& pattern, RouteFn fn,
             RouteOptions options);

    struct Match {
        const Route* route;
        std::map<std::string, std::string> params;
    };
    // Throws Error 404 or 405 (with Allow).
    Match match(const std::string& method, const std::string& path) const;

    const std::vector<Route>& routes() const { return routes_; }

    // `path` as logs may show it: when it has the shape of a route with masked params (any
    // method, so a 405 is masked too; a masked param may be malformed), those segments cut to
    // 8 characters + "…"; when it only starts like one (up to its first masked param), that
    // prefix with the param masked and "/…" for anything after it.
    std::string loggable_path(const std::string& path) const;

  private:
    std::vector<Route> routes_;
};

bool is_blob_id(std::string_view s);  // 43 chars of b64url

}  // namespace pouch::http
