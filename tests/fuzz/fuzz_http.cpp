// fuzz_http.cpp -- libFuzzer target: request-line parsing. The input is "METHOD PATH?QUERY"
// (split at the first space and '?'): percent_decode, parse_query, Router::match over the
// real route table shapes (handlers/*/main.cpp) and validate_query with the parameter lists
// of the query routes. Only 400 validation_failed, 404 and 405 may come out.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/http/query.h"
#include "common/http/request.h"
#include "common/http/router.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

namespace http = pouch::http;

const http::Router& routes() {
    static const http::Router r = [] {
        http::Router r;
        auto none = [](pouch::http::Request&, pouch::http::Services&) {
            return pouch::http::Response{};
        };
        const std::string pouch = "/v1/pouches/{pouchId:uuid}";
        for (const char* p :
             {"/v1/account/signup", "/v1/account/login", "/v1/account/logout",
              "/v1/account/roster/genesis", "/v1/cli-auth/requests",
              "/v1/cli-auth/requests/{id:uuid}/approve", "/v1/cli-auth/requests/{id:uuid}/deny",
              "/v1/cli-auth/token", "/v1/cli-auth/refresh", "/v1/cli-auth/connect-tokens",
              "/v1/admin/users/{id}/role", "/v1/pouches", "/v1/pouches/{pouchId:uuid}/shares",
              "/v1/shares/{id:uuid}/import", "/v1/shares/{id:uuid}/revoke",
              "/v1/devices/{id:uuid}/revoke"})
            r.add("POST", p, none);
        for (const char* p : {"/v1/account", "/v1/admin/plans", "/v1/admin/plans/{id}",
                              "/v1/cli-auth/requests/{id:uuid}", "/v1/shares/{id:uuid}",
                              "/v1/devices", "/v1/pouches"})
            r.add("GET", p, none);
        for (const char* p :
             {"/v1/account/roster", "/v1/admin/audit", "/v1/pouches/{pouchId:uuid}/shares"})
            r.add_query("GET", p, none);
        r.add("PUT", "/v1/admin/plans/{id}", none);
        r.add("PUT", "/v1/devices/me/cursor", none);
        r.add("PATCH", "/v1/devices/{id:uuid}", none);
        r.add("GET", pouch, none);
        r.add_query("GET", pouch + "/key-envelopes", none);
        r.add("POST", pouch + "/key-envelopes", none);
        r.add("POST", pouch + "/operations", none);
        r.add_query("GET", pouch + "/events", none);
        r.add_query("GET", pouch + "/artifacts", none);
        r.add_query("GET", pouch + "/artifacts/{artifactId:uuid}/revisions", none);
        r.add("POST", pouch + "/blobs/check", none);
        r.add("PUT", pouch + "/blobs/{blobId:blobid}", none);
        r.add("GET", pouch + "/blobs/{blobId:blobid}", none);
        return r;
    }();
    return r;
}

// The parameter lists of the query routes (handlers/sync/events.cpp, artifacts.cpp, ...).
void validate_queries(const pouch::http::Request& req) {
    using namespace pouch;
    constexpr long long kMax = 9007199254740991LL;
    auto expect_400 = [&](std::initializer_list<http::QueryParam> params) {
        try {
            http::QueryValues q = http::validate_query(req, params);
            for (const auto& p : params)
                if (p.kind == http::QueryParam::Kind::integer && q.has(p.name)) {
                    long long v = q.integer(p.name);
                    fuzz::require(v >= p.min && v <= p.max, "query integer within bounds");
                }
        } catch (const Error& e) {
            fuzz::require_client_error(e, 400, "validation_failed");
            fuzz::require(!e.field.empty() && e.field[0] == '?', "query field is ?name");
        }
    };
    expect_400({http::query_uuid("epoch"), http::query_int("after", 0, kMax, 0),
                http::query_int("limit", 1, 1000, 100), http::query_int("wait", 0, 30, 0)});
    expect_400({http::query_text("cursor", 512), http::query_int("limit", 1, 500, 100),
                http::query_bool("include_deleted", false)});
    expect_400({http::query_uuid("member_id"), http::query_int("key_gen", 1, kMax)});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string in(reinterpret_cast<const char*>(data), size);
    size_t sp = in.find(' ');
    std::string method = sp == std::string::npos ? "GET" : in.substr(0, sp);
    std::string target = sp == std::string::npos ? in : in.substr(sp + 1);
    size_t q = target.find('?');
    pouch::http::Request req;
    req.method = method;
    req.path = target.substr(0, q);
    req.raw_query = q == std::string::npos ? "" : target.substr(q + 1);

    for (bool plus : {false, true})
        if (auto d = pouch::http::percent_decode(in, plus))
            pouch::fuzz::require(d->size() <= in.size(), "decoding never grows");

    try {
        auto m = routes().match(req.method, req.path);
        pouch::fuzz::require(m.route->method == req.method, "matched route has the method");
        for (const auto& [name, value] : m.params) {
            pouch::fuzz::require(!value.empty() && value.find('/') == std::string::npos,
                                 "a path param is one non-empty segment");
            if (name == "pouchId" || name == "artifactId")
                pouch::fuzz::require(pouch::is_uuid(value), "uuid param");
            if (name == "blobId")
                pouch::fuzz::require(pouch::http::is_blob_id(value), "blobid param");
        }
    } catch (const pouch::Error& e) {
        pouch::fuzz::require(
            pouch::http::status_of(e.fault) == 404 || pouch::http::status_of(e.fault) == 405,
            "router: 404 or 405 only");
    }

    try {
        req.query = pouch::http::parse_query(req.raw_query);
    } catch (const pouch::Error& e) {
        pouch::fuzz::require_client_error(e, 400, "validation_failed");
        return 0;
    }
    validate_queries(req);
    return 0;
}
