// route.h -- what a route declares, so that one pipeline runs its phases before the handler,
// in the order nginx runs its own (decisions §1, §3, §5.3): routing with typed path params
// (common/http/router.h), authentication and caller kind (a DPoP proof verified and its jti
// recorded), query parameters, body read within the route's limit, strict parse, the CLI's
// Service-Signature over the body, the pouch scope (the row loaded once: 404), the body
// schema. The handler then gets a Call holding typed values, and holds only its rule.
//
//   const api::Route kRename{"PATCH", "/v1/devices/{id:uuid}", api::Who::any,
//                            .schema = &schemas::kRename};
//   inline const api::Entry kRoutes[] = {{kRename, rename}, ...};  // Response rename(Call&)
//   api::add(router, kRoutes);                                     // in main.cpp
//
// A group's routes are one table of data (handlers/<group>/routes.h): main.cpp installs the
// dispatcher from it, and the unit tests read the same table for the permission matrix
// (tests/unit/route_matrix_test.cpp) and nginx's body limits (route_nginx_test.cpp).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
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
#include "common/model/pouch.h"

namespace pouch::api {

// Who may call: nobody needs credentials (public); a CLI that proves possession of its key
// with a DPoP proof but holds no token yet (dpop: login start, token, refresh; the pipeline
// verifies the proof and records its jti before the handler binds it to the expected key:
// docs/DECISIONS.md); any signed-in caller; a web session only; a CLI device only; a web
// session of role admin.
enum class Who { public_, dpop, any, web, cli, admin };

// What a route under /v1/pouches/{pouchId} needs of its pouch: nothing (none); the row, read
// once (read); the row locked FOR UPDATE inside a transaction the handler commits (write).
// Either way a pouch that does not exist or is another account's answers 404.
enum class PouchScope { none, read, write };

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
    PouchScope pouch = PouchScope::none;    // {pouchId}: a pouch the caller's account reaches (404)
    // With a pouch scope: the role the caller's account needs in the pouch (docs/SHARING.md
    // §7); below it, 403 insufficient_role after the 404 and body checks.
    model::Role role = model::Role::read;
};

// One request as a handler sees it, after every phase of its route passed.
struct Call {
    http::Request& req;
    http::Services& services;
    const Route& route;
    std::optional<auth::Caller> caller{};    // set unless the route is public or dpop
    std::optional<jose::DpopProof> proof{};  // Who::dpop: the verified proof
    http::QueryValues query{};
    rapidjson::Document body{};  // the validated body (an empty object when there is none)
    std::string body_hash{};     // signed routes: BLAKE3-256 of the body's JCS form (raw bytes)
    // A route with a pouch scope: the pouch row, loaded once. For PouchScope::write also the
    // connection whose open transaction holds the row's lock (declared in this order, so the
    // transaction, unless committed, rolls back before the connection goes back to the pool).
    std::optional<model::PouchRow> pouch_row{};
    std::optional<db::Lease> lease{};
    std::optional<db::Transaction> transaction{};

    // The caller of a non-public route.
    const auth::Caller& who() const { return *caller; }
    // A path param, typed by the router (a uuid in canonical lower case).
    const std::string& param(const std::string& name) const { return req.param(name); }
    // The pouch of a route with a pouch scope.
    const model::PouchRow& pouch() const { return *pouch_row; }
    // PouchScope::write: the connection and its transaction; the handler commits it.
    db::Conn& conn() { return **lease; }
    db::Transaction& tx() { return *transaction; }
};

using Handler = std::function<http::Response(Call&)>;

// One row of a group's route table: a declared route and the handler behind it.
// A handler that decodes its body into a request struct (api::typed, typed.h), with that
// struct's schema, which must be its route's.
struct TypedHandler {
    Handler fn;
    const json::schema::Node* schema = nullptr;  // nullptr: the handler decodes no body
};

// One row of a group's table. A typed handler's request schema is checked against the route's
// when the table is installed (a handler refuses to start) and by the unit tests.
struct Entry {
    Entry(const Route& r, Handler h) : route(r), handler(std::move(h)) {}
    Entry(const Route& r, TypedHandler t)
        : route(r), handler(std::move(t.fn)), request_schema(t.schema) {}
    const Route& route;
    Handler handler;
    const json::schema::Node* request_schema = nullptr;

    // Why this row's handler and route disagree on the request schema; empty when they agree.
    std::string schema_mismatch() const;
};

// Adds `route` to the router with `handler` behind the phases above.
void add(http::Router& router, const Route& route, Handler handler);
// Adds every row of a group's table (handlers/<group>/routes.h).
void add(http::Router& router, std::span<const Entry> table);

// The pipeline's own: 200 (or 201) with data, the answers handlers build most.
http::Response ok(std::string data);
http::Response created(std::string data);

}  // namespace pouch::api
