// http_router_test.cpp -- path templates, typed params, 404 and 405 with Allow; the paths logs
// show, with secret params masked whether or not they are well-formed.
#include <gtest/gtest.h>

#include "common/http/error.h"
#include "common/http/router.h"

namespace pouch::http {
namespace {

Response ok(Request&, Services&) {
    return Response{};
}

Router sample() {
    Router r;
    r.add("GET", "/v1/pouches/{pouchId:uuid}/artifacts", ok);
    r.add("PUT", "/v1/pouches/{pouchId:uuid}/blobs/{blobId:blobid}", ok);
    r.add("GET", "/v1/pouches/{pouchId:uuid}/blobs/{blobId:blobid}", ok);
    r.add("POST", "/v1/admin/users/{id:uuid}/role", ok);
    r.add("GET", "/v1/health", ok);
    return r;
}

int status_of(const Router& r, const std::string& method, const std::string& path,
              std::string* allow = nullptr) {
    try {
        r.match(method, path);
        return 200;
    } catch (const pouch::Error& e) {
        for (const auto& [k, v] : e.headers)
            if (k == "Allow" && allow) *allow = v;
        return pouch::http::status_of(e.fault);
    }
}

TEST(Router, MatchesTypedParams) {
    Router r = sample();
    auto m = r.match("GET", "/v1/pouches/0b8a4f4e-1c2d-4e5f-9a0b-1c2d3e4f5a6b/artifacts");
    EXPECT_EQ(m.params.at("pouchId"), "0b8a4f4e-1c2d-4e5f-9a0b-1c2d3e4f5a6b");
    EXPECT_EQ(m.route->pattern, "/v1/pouches/{pouchId:uuid}/artifacts");
}

TEST(Router, UpperCaseUuidParamIsHeldInLowerCase) {
    Router r = sample();
    auto m = r.match("GET", "/v1/pouches/0B8A4F4E-1C2D-4E5F-9A0B-1C2D3E4F5A6B/artifacts");
    EXPECT_EQ(m.params.at("pouchId"), "0b8a4f4e-1c2d-4e5f-9a0b-1c2d3e4f5a6b");
}

TEST(Router, NonUuidSegmentIsNotFound) {
    Router r = sample();
    EXPECT_EQ(status_of(r, "POST", "/v1/admin/users/not-a-uuid/role"), 404);
    EXPECT_EQ(status_of(r, "GET", "/v1/pouches/0b8a4f4e-1c2d-4e5f-Ca0b-1c2d3e4f5a6b/artifacts"),
              404);
}

TEST(Router, UnknownPathIsNotFoundAndTrailingSlashIsDistinct) {
    Router r = sample();
    EXPECT_EQ(status_of(r, "GET", "/v1/nothing"), 404);
    EXPECT_EQ(status_of(r, "GET", "/v1/health/"), 404);
    EXPECT_EQ(status_of(r, "GET", ""), 404);
}

TEST(Router, WrongMethodIsMethodNotAllowedWithAllow) {
    Router r = sample();
    std::string allow;
    std::string blob =
        "/v1/pouches/0b8a4f4e-1c2d-4e5f-9a0b-1c2d3e4f5a6b/blobs/"
        "rxNJufX5oaagQE3qNtzJSZvLJcmtwRK3zJqTyuQfMmI";
    EXPECT_EQ(status_of(r, "DELETE", blob, &allow), 405);
    EXPECT_EQ(allow, "PUT, GET");
    EXPECT_EQ(status_of(r, "POST", "/v1/health", &allow), 405);
    EXPECT_EQ(allow, "GET");
}

TEST(Router, BlobIdMustBe43Base64UrlCharacters) {
    Router r = sample();
    std::string base = "/v1/pouches/0b8a4f4e-1c2d-4e5f-9a0b-1c2d3e4f5a6b/blobs/";
    EXPECT_EQ(status_of(r, "GET", base + std::string(43, 'A')), 200);
    EXPECT_EQ(status_of(r, "GET", base + std::string(42, 'A')), 404);
    EXPECT_EQ(status_of(r, "GET", base + std::string(42, 'A') + "="), 404);
}

TEST(Uuid, CanonicalFormIsLowerCaseAndNulloptForNonUuids) {
    EXPECT_EQ(canonical_uuid("7D444840-9DC0-11D1-B245-5FFDCE74FAD2"),
              "7d444840-9dc0-11d1-b245-5ffdce74fad2");
    EXPECT_EQ(canonical_uuid("ffffffff-FFFF-ffff-ffff-ffffffffffff"),
              "ffffffff-ffff-ffff-ffff-ffffffffffff");
    EXPECT_EQ(canonical_uuid("7d444840-9dc0-01d1-b245-5ffdce74fad2"), std::nullopt);
    EXPECT_EQ(canonical_uuid(""), std::nullopt);
}

TEST(Uuid, AcceptsInterfaceFormats) {
    EXPECT_TRUE(is_uuid("0b8a4f4e-1c2d-4e5f-9a0b-1c2d3e4f5a6b"));
    EXPECT_TRUE(is_uuid("0B8A4F4E-1C2D-8E5F-BA0B-1C2D3E4F5A6B"));
    EXPECT_TRUE(is_uuid("00000000-0000-0000-0000-000000000000"));
    EXPECT_TRUE(is_uuid("ffffffff-ffff-ffff-ffff-ffffffffffff"));
    EXPECT_TRUE(is_uuid("FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"));
}

TEST(Uuid, RejectsWrongVersionVariantOrShape) {
    EXPECT_FALSE(is_uuid("0b8a4f4e-1c2d-0e5f-9a0b-1c2d3e4f5a6b"));  // version 0
    EXPECT_FALSE(is_uuid("0b8a4f4e-1c2d-9e5f-9a0b-1c2d3e4f5a6b"));  // version 9
    EXPECT_FALSE(is_uuid("0b8a4f4e-1c2d-4e5f-7a0b-1c2d3e4f5a6b"));  // variant 7
    EXPECT_FALSE(is_uuid("0b8a4f4e-1c2d-4e5f-ca0b-1c2d3e4f5a6b"));  // variant c
    EXPECT_FALSE(is_uuid("0b8a4f4e1c2d-4e5f-9a0b-1c2d3e4f5a6b0"));
    EXPECT_FALSE(is_uuid("0b8a4f4e-1c2d-4e5f-9a0b-1c2d3e4f5a6"));
    EXPECT_FALSE(is_uuid("0b8a4f4e-1c2d-4e5f-9a0b-1c2d3e4f5a6g"));
}

// The share routes as handlers/shares declares them: the id masked in logs.
Router shares() {
    Router r;
    RouteOptions o;
    o.body = BodyKind::none;
    o.masked_params = {"id"};
    r.add("GET", "/v1/shares/{id:uuid}", ok, o);
    r.add("POST", "/v1/shares/{id:uuid}/import", ok, o);
    r.add("POST", "/v1/shares/{id:uuid}/revoke", ok, o);
    r.add("GET", "/v1/pouches/{pouchId:uuid}/shares", ok);
    return r;
}

const std::string kShare = "5f0c1e2d-3b4a-4c5d-8e6f-7a8b9c0d1e2f";

TEST(RouterLogs, AWellFormedShareIdShowsOnlyItsFirstEightCharacters) {
    Router r = shares();
    EXPECT_EQ(r.loggable_path("/v1/shares/" + kShare), "/v1/shares/5f0c1e2d\u2026");
    EXPECT_EQ(r.loggable_path("/v1/shares/" + kShare + "/import"),
              "/v1/shares/5f0c1e2d\u2026/import");
    EXPECT_EQ(r.loggable_path("/v1/shares/" + kShare + "/revoke"),
              "/v1/shares/5f0c1e2d\u2026/revoke");
}

TEST(RouterLogs, AMalformedShareIdIsMaskedToo) {
    Router r = shares();
    EXPECT_EQ(r.loggable_path("/v1/shares/" + kShare + "x"), "/v1/shares/5f0c1e2d\u2026");
    EXPECT_EQ(r.loggable_path("/v1/shares/not-a-uuid-but-a-secret"), "/v1/shares/not-a-uu\u2026");
    EXPECT_EQ(r.loggable_path("/v1/shares/" + kShare + "x/import"),
              "/v1/shares/5f0c1e2d\u2026/import");
    // Cut on a code point boundary: \u00e9 is two bytes, the eighth byte would split one.
    EXPECT_EQ(r.loggable_path("/v1/shares/abcdefg\u00e9\u00e9\u00e9"), "/v1/shares/abcdefg\u2026");
}

TEST(RouterLogs, WhateverFollowsAMalformedShareIdIsCut) {
    Router r = shares();
    EXPECT_EQ(r.loggable_path("/v1/shares/" + kShare + "/" + kShare),
              "/v1/shares/5f0c1e2d\u2026/\u2026");
    EXPECT_EQ(r.loggable_path("/v1/shares/" + kShare + "/import/" + kShare),
              "/v1/shares/5f0c1e2d\u2026/\u2026");
    EXPECT_EQ(r.loggable_path("/v1/shares//" + kShare), "/v1/shares//\u2026");
}

TEST(RouterLogs, OtherPathsAndShortSegmentsAreUnchanged) {
    Router r = shares();
    EXPECT_EQ(r.loggable_path("/v1/shares"), "/v1/shares");
    EXPECT_EQ(r.loggable_path("/v1/shares/abc"), "/v1/shares/abc");
    EXPECT_EQ(r.loggable_path("/v1/pouches/" + kShare + "/shares"),
              "/v1/pouches/" + kShare + "/shares");
    EXPECT_EQ(r.loggable_path("/v1/health"), "/v1/health");
}

}  // namespace
}  // namespace pouch::http
