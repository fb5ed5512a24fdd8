// route.h -- what a route declares, so that one pipeline runs its phases before the handler,
// in the order nginx runs its own (decisions §1, §3, §5.3): routing with typed path params
// (common/http/router.h), authentication and caller kind, query parameters, body read within
// the route's limit, strict parse, the CLI's Service-Signature over the body, pouch access,
// the body schema. The handler then gets a Call holding typed values, and holds only its rule.
//
//   const api::Route kRename{"PATCH", "/v1/devices/{id:uuid}", api::Who::any,
//                            .schema = &schemas::kRename};
//   api::add(router, kRename, devices::rename);   // Response rename(api::Call& call)
//
// A group's routes are data (handlers/<group>/routes.h), so the permission matrix can be
// read from them without running anything (tests/unit/route_matrix_test.cpp).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "common/auth/caller.h"
#include "common/http/query.h"
#include "common/http/router.h"
#include "common/http/server.h"
#include "common/jose/dpop.h"
#include "common/json/schema.h"
#include "common/json/value.h"

namespace pouch::api {

// Who may call: nobody needs credentials (public); a CLI that proves possession of its key
// with a DPoP proof but holds no token yet (dpop: login start, token, refresh; the proof is
// checked, its jti recorded by the handler once it is bound to the expected key); any
// signed-in caller; a web session only; a CLI device only; a web session of role admin.
enum class Who { public_, dpop, any, web, cli, admin };

struct Route {
    std::string method{};
    // "/v1/pouches/{pouchId:uuid}/operations"; a param typed `uuid_after_auth` is checked (404)
    // only after authentication and the caller kind.
    std::string pattern{};
    Who who = Who::any;
    // The body: none (GET-style, ignored), json (the default for POST/PUT/PATCH), or a stream
    // the handler reads itself (blob upload); limit in bytes (decisions §3: 64 KiB default).
    std::optional<http::BodyKind> body{};
    size_t body_limit = 64 * http::kKiB;
    std::string content_type = "application/json";
    // A json body is validated against this schema (ids canonical afterwards); without one it
    // must be absent or `{}`.
    const json::schema::Node* schema = nullptr;
    bool body_optional = false;             // with a schema: an empty body counts as `{}`
    std::vector<http::QueryParam> query{};  // the query parameters the route takes
    std::vector<std::string> masked{};      // path params logs show only 8 characters of
    bool signed_body = false;               // a CLI proves the body with Service-Signature
    bool pouch_access = false;              // {pouchId} must be the caller's account's (404)
};

// One request as a handler sees it, after every phase of its route passed.
struct Call {
    http::Request& req;
    http::Services& services;
    const Route& route;
    std::optional<auth::Caller> caller;    // set unless the route is public or dpop
    std::optional<jose::DpopProof> proof;  // Who::dpop: the verified proof
    http::QueryValues query;
    rapidjson::Document body;  // the validated body (an empty object when there is none)
    std::string body_hash;     // signed routes: BLAKE3-256 of the body's JCS form (raw bytes)

    // The caller of a non-public route.
    const auth::Caller& who() const { return *caller; }
    // A path param, typed by the router (a uuid in canonical lower case).
    const std::string& param(const std::string& name) const { return req.param(name); }
};

using Handler = std::function<http::Response(Call&)>;

// Adds `route` to the router with `handler` behind the phases above.
void add(http::Router& router, const Route& route, Handler handler);

// The pipeline's own: 200 (or 201) with data, the answers handlers build most.
http::Response ok(std::string data);
http::Response created(std::string data);

}  // namespace pouch::api
