// route.cpp -- the phases of route.h, run in order for every request of a declared route.
// Reading the body (413, 415) happens before, in the server, as nginx reads it before proxying.
#include "common/api/route.h"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <vector>

#include "common/auth/dpop_check.h"
#include "common/crypto/hash.h"
#include "common/crypto/key_cache.h"
#include "common/http/error.h"
#include "common/jose/service_signature.h"
#include "common/json/jcs.h"
#include "common/json/parse.h"
#include "common/types/uuid.h"

namespace pouch::api {

namespace {

std::optional<auth::Caller> authenticate(const Route& route, const http::Request& req,
                                         http::Services& s, auth::PouchPrefetch* pouch) {
    switch (route.who) {
        case Who::public_:
        case Who::dpop:
            return std::nullopt;
        case Who::any:
            return auth::authenticate(req, s, pouch);
        case Who::web:
            return auth::require_web(req, s, pouch);
        case Who::cli:
            return auth::require_cli(req, s);
        case Who::admin: {
            auth::Caller c = auth::require_web(req, s, pouch);
            if (c.role != "admin") throw http::forbidden("admin role required");
            return c;
        }
    }
    return std::nullopt;
}

// decisions §1: the detached JWS over BLAKE3 of the body's JCS form, by the device key.
void verify_service_signature(const auth::Caller& c, const http::Request& req,
                              const std::string& hash) {
    const std::string& header = req.header("service-signature");
    if (header.empty())
        throw Error(Code::invalid_signature, "a CLI commit needs a Service-Signature header");
    auto key = crypto::p256_key_cache().get(c.sign_x, c.sign_y);
    if (!key || !jose::verify_service_signature(header, hash, *key))
        throw Error(Code::invalid_signature,
                    "Service-Signature does not verify over this body with the device key");
}

// Path params typed `uuid_after_auth`: matched as any segment, so that routing answers 404 only
// once the caller is authorized (decisions §7's admin order), then held canonical like `uuid`.
// Their names are read from the pattern once, when the route is added.
std::vector<std::string> late_uuid_params(const std::string& pattern) {
    std::vector<std::string> names;
    size_t at = 0;
    while ((at = pattern.find(":uuid_after_auth}", at)) != std::string::npos) {
        size_t open = pattern.rfind('{', at);
        names.push_back(pattern.substr(open + 1, at - open - 1));
        ++at;
    }
    return names;
}

void check_late_uuids(const std::vector<std::string>& late, http::Request& req) {
    for (const std::string& name : late) {
        auto id = canonical_uuid(req.param(name));
        if (!id) throw http::not_found();
        req.params[name] = *id;
    }
}

// A GET's read scope asks for its pouch with the credentials (a web session reads it in the
// same statement: auth::PouchPrefetch), unless {pouchId} is checked only after them. A route
// with a body keeps the read after the body's parse, as close to the handler's use as before.
bool prefetches(const Route& route, const std::vector<std::string>& late) {
    return route.pouch == PouchScope::read && route.method == "GET" &&
           std::find(late.begin(), late.end(), "pouchId") == late.end();
}

// The pouch scope's one lookup: a pouch of another account, or none, is not found. A write
// scope keeps the connection, in a transaction holding the row's lock, for the handler.
// `prefetched` is the read scope's row when the authentication already read it.
void load_pouch(PouchScope scope, Call& call, auth::PouchPrefetch& prefetched) {
    const std::string& id = call.req.param("pouchId");
    const std::string& account = call.who().account_id;
    if (scope == PouchScope::read && prefetched.loaded) {
        call.pouch_row = std::move(prefetched.row);
    } else if (scope == PouchScope::read) {
        auto conn = call.services.db.acquire();
        call.pouch_row = model::find_pouch(*conn, id, account, false);
    } else {
        call.lease.emplace(call.services.db.acquire());
        call.transaction.emplace(call.conn());
        call.pouch_row = model::find_pouch(call.conn(), id, account, true);
    }
    if (!call.pouch_row) throw http::not_found();
}

http::Response phases(const Route& route, const std::vector<std::string>& late,
                      const Handler& handler, http::Request& req, http::Services& s) {
    auth::PouchPrefetch pouch;
    if (prefetches(route, late)) pouch.pouch_id = req.param("pouchId");
    Call call{.req = req,
              .services = s,
              .route = route,
              .caller = authenticate(route, req, s, prefetches(route, late) ? &pouch : nullptr)};
    // The jti is recorded here, before the handler binds the proof to the key it expects
    // (sign_pub, the login's or the refresh token's key): a replay is refused by the same
    // check on every route that takes a proof (docs/DECISIONS.md, "DPoP replays").
    if (route.who == Who::dpop) call.proof = auth::require_dpop(req, s, std::nullopt);
    check_late_uuids(late, req);
    if (!route.query.empty()) call.query = http::validate_query(req, route.query);
    call.body.SetObject();
    if (!route.schema) {
        if (route.body != http::BodyKind::stream) json::schema::validate_empty_body(req.body);
    } else if (!req.body.empty() || !route.body_optional) {
        // In place: the document points into req.body, which outlives the call. It may hold
        // twice the route's body limit, so a request in flight holds about three times that at
        // most (docs/SECURITY.md, "A hostile tenant").
        call.body = json::parse_request(req.body, 2 * route.body_limit);
    }
    if (route.signed_body) {
        // The hash is of the body as sent, before ids are canonicalized: what the client signed.
        std::optional<std::string> canonical = json::jcs(call.body, req.body.size());
        if (!canonical)
            throw validation_failed("",
                                    "the body has a value JSON canonicalization cannot "
                                    "represent exactly (non-integer or out-of-range number)");
        call.body_hash = crypto::blake3_256(*canonical);
        if (call.caller && call.caller->is_cli())
            verify_service_signature(*call.caller, req, call.body_hash);
    }
    // The body is validated before the pouch is loaded, so a write scope holds its lock for no
    // validation work, but a 404 answers before a 400 (decisions §5.3).
    std::exception_ptr invalid;
    if (route.schema) {
        try {
            json::schema::validate(call.body, *route.schema);
        } catch (const Error&) {
            if (route.pouch == PouchScope::none) throw;
            invalid = std::current_exception();
        }
    }
    if (route.pouch != PouchScope::none) load_pouch(route.pouch, call, pouch);
    if (invalid) std::rethrow_exception(invalid);
    if (call.pouch_row && !call.pouch_row->may(route.role))
        throw model::insufficient_role(*call.pouch_row, route.role);
    return handler(call);
}

}  // namespace

void add(http::Router& router, const Route& route, Handler handler) {
    http::RouteOptions o;
    bool bodyless = route.method == "GET" || route.method == "DELETE" || route.method == "HEAD";
    o.body = route.body.value_or(bodyless ? http::BodyKind::none : http::BodyKind::json);
    o.body_limit = route.body_limit;
    o.content_type = route.content_type;
    o.query = !route.query.empty();
    o.masked_params = route.masked;
    router.add(
        route.method, route.pattern,
        [route, late = late_uuid_params(route.pattern), handler = std::move(handler)](
            http::Request& req, http::Services& s) { return phases(route, late, handler, req, s); },
        o);
}

std::string Entry::schema_mismatch() const {
    if (!request_schema || request_schema == route.schema) return "";
    return route.method + " " + route.pattern +
           ": its handler decodes a request struct whose schema is not the route's .schema "
           "(declare .schema = api::schema<Request>())";
}

void add(http::Router& router, std::span<const Entry> table) {
    for (const Entry& e : table) {
        if (std::string why = e.schema_mismatch(); !why.empty()) throw std::logic_error(why);
        add(router, e.route, e.handler);
    }
}

http::Response ok(std::string data) {
    http::Response r;
    r.data = std::move(data);
    return r;
}

http::Response created(std::string data) {
    http::Response r;
    r.status = 201;
    r.data = std::move(data);
    return r;
}

}  // namespace pouch::api
