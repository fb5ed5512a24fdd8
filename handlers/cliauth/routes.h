// routes.h -- the cliauth group (decisions §6): the device login a browser approves. Each route
// is declared here as data (who may call, body schema and limit), read by main.cpp, the
// pipeline (common/api/route.h) and the permission-matrix test.
#pragma once

#include <string>

#include "common/api/route.h"
#include "common/crypto/b64url.h"
#include "common/crypto/pkce.h"
#include "common/json/out.h"
#include "common/model/schemas.h"

namespace pouch::cliauth {

constexpr int kPollInterval = 5;           // seconds between polls without `wait`
constexpr int kAccessTokenSeconds = 3600;  // decisions §1
constexpr int kConnectTokenSeconds = 600;

namespace js = json::schema;

inline bool is_connect_token(std::string_view s) {
    return s.size() == 7 + 32 && s.compare(0, 7, "svc_lt_") == 0 &&
           crypto::is_b64url(std::string_view(s).substr(7));
}

inline bool is_confirm_code(std::string_view s) {
    auto digits = [&](size_t from, size_t n) {
        return s.find_first_not_of("0123456789", from) >= from + n;
    };
    if (s.size() == 8) return digits(0, 8);
    return s.size() == 9 && s[4] == '-' && digits(0, 4) && digits(5, 4);
}

inline const js::Node kStartBody = js::object({
    js::req("code_challenge", js::b64url().min_chars(43).max_chars(43)),
    js::req("device_name", js::label()),
    js::opt("assistants", js::array(js::string().min_chars(1).max_chars(64)).max_items(32)),
    js::req("os", js::one_of({"linux", "macos", "windows"})),
    js::req("arch", js::string().min_chars(1).max_chars(32)),
    js::req("cli_version", js::string().min_chars(1).max_chars(32)),
    js::req("sign_pub", js::jwk()),
    js::req("enc_pub", js::jwk()),
    js::req("key_storage", js::one_of({"tpm", "secure_enclave", "os_keystore", "file"})),
    js::opt("connect_token",
            js::string().check(is_connect_token, "svc_lt_ followed by 32 b64url characters")),
});

inline const js::Node kTokenBody = js::object({
    js::req("request_id", js::uuid()),
    js::req("code_verifier",
            js::string().check([](std::string_view v) { return crypto::valid_code_verifier(v); },
                               "43 to 128 characters of A-Z a-z 0-9 - . _ ~")),
    js::opt("wait", js::integer().min(0).max(30)),
});

inline const js::Node kRefreshBody = js::object({
    js::req("refresh_token", js::string().min_chars(1).max_chars(64)),
});

inline const js::Node kApproveBody = js::object({
    js::req("statement", model::roster_statement()),
    js::req("welcome", js::b64url().min_chars(1).max_chars(349526)),
    js::req("key_envelopes", js::array(model::key_envelope()).min_items(1).max_items(2000)),
    js::opt("confirm_code", js::string().check(is_confirm_code, "dddd-dddd or dddddddd")),
});

// Login start, token and refresh prove the CLI's key with a DPoP proof before any token.
inline const api::Route kStart{.method = "POST",
                               .pattern = "/v1/cli-auth/requests",
                               .who = api::Who::dpop,
                               .schema = &kStartBody};
inline const api::Route kDetails{
    .method = "GET", .pattern = "/v1/cli-auth/requests/{id:uuid}", .who = api::Who::web};
// Approve carries a welcome and up to 2,000 envelopes.
inline const api::Route kApprove{.method = "POST",
                                 .pattern = "/v1/cli-auth/requests/{id:uuid}/approve",
                                 .who = api::Who::web,
                                 .body_limit = 16 * http::kMiB,
                                 .schema = &kApproveBody};
inline const api::Route kDeny{
    .method = "POST", .pattern = "/v1/cli-auth/requests/{id:uuid}/deny", .who = api::Who::web};
inline const api::Route kToken{.method = "POST",
                               .pattern = "/v1/cli-auth/token",
                               .who = api::Who::dpop,
                               .schema = &kTokenBody};
inline const api::Route kRefresh{.method = "POST",
                                 .pattern = "/v1/cli-auth/refresh",
                                 .who = api::Who::dpop,
                                 .schema = &kRefreshBody};
inline const api::Route kConnectToken{
    .method = "POST", .pattern = "/v1/cli-auth/connect-tokens", .who = api::Who::web};

http::Response start(api::Call& call);
http::Response details(api::Call& call);
http::Response approve(api::Call& call);
http::Response deny(api::Call& call);
http::Response token(api::Call& call);
http::Response refresh(api::Call& call);
http::Response connect_token(api::Call& call);

// The group's one route table: main.cpp installs it, the unit tests read it.
inline const api::Entry kRoutes[] = {
    {kStart, start},
    {kDetails, details},
    {kApprove, approve},
    {kDeny, deny},
    {kToken, token},
    {kRefresh, refresh},
    {kConnectToken, connect_token},
};

// A fresh access + refresh token pair for the device, stored as hashes inside `conn`.
struct TokenPair {
    std::string access_token;
    std::string refresh_token;
};
TokenPair issue_tokens(db::Conn& conn, const std::string& device_id, const std::string& jkt);

// The fields shared by the approved form (op 6) and refresh.
void write_token_fields(json::Out& o, const TokenPair& t, const db::Result& device);

}  // namespace pouch::cliauth
