// routes.h -- the cliauth group (decisions §6): the device login a browser approves. Each route
// is declared here as data (who may call, body schema and limit), read by main.cpp, the
// pipeline (common/api/route.h) and the permission-matrix test.
#pragma once

#include <string>

#include "common/api/route.h"
#include "common/api/typed.h"
#include "common/model/identity.h"
#include "common/model/schemas.h"
#include "handlers/cliauth/types.h"

namespace pouch::cliauth {

constexpr int kPollInterval = 5;           // seconds between polls without `wait`
constexpr int kAccessTokenSeconds = 3600;  // decisions §1
constexpr int kConnectTokenSeconds = 600;

namespace js = json::schema;

inline const js::Node kApproveBody = js::object({
    js::req("statement", model::roster_statement()),
    js::req("welcome", js::b64url().min_chars(1).max_chars(349526)),
    js::req("key_envelopes", js::array(model::key_envelope()).min_items(1).max_items(2000)),
    js::opt("confirm_code", js::string().check(is_confirm_code, "dddd-dddd or dddddddd")),
    // Required once the account has an identity (docs/SHARING.md §1).
    js::opt("identity_envelope", model::identity_envelope()),
});

// Login start, token and refresh prove the CLI's key with a DPoP proof before any token.
inline const api::Route kStart{.method = "POST",
                               .pattern = "/v1/cli-auth/requests",
                               .who = api::Who::dpop,
                               .schema = api::schema<StartRequest>()};
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
                               .schema = api::schema<TokenRequest>()};
inline const api::Route kRefresh{.method = "POST",
                                 .pattern = "/v1/cli-auth/refresh",
                                 .who = api::Who::dpop,
                                 .schema = api::schema<RefreshRequest>()};
inline const api::Route kConnectToken{
    .method = "POST", .pattern = "/v1/cli-auth/connect-tokens", .who = api::Who::web};

StartAnswer start(api::Call& call, const StartRequest& body);
DetailsAnswer details(api::Call& call);
// The body (a roster statement and envelopes) is read by common/model's roster and envelope
// writers.
ApproveAnswer approve(api::Call& call);
StatusAnswer deny(api::Call& call);
http::Response token(api::Call& call, const TokenRequest& body);  // may park (a long-poll)
TokenAnswer refresh(api::Call& call, const RefreshRequest& body);
ConnectTokenAnswer connect_token(api::Call& call);

// The group's one route table: main.cpp installs it, the unit tests read it.
inline const api::Entry kRoutes[] = {
    {kStart, api::typed(start)},
    {kDetails, api::typed(details)},
    {kApprove, api::typed(approve)},
    {kDeny, api::typed(deny)},
    {kToken, api::typed(token)},
    {kRefresh, api::typed(refresh)},
    {kConnectToken, api::typed(connect_token)},
};

// A fresh access + refresh token pair for the device, stored as hashes inside `conn`.
struct TokenPair {
    std::string access_token;
    std::string refresh_token;
};
TokenPair issue_tokens(db::Conn& conn, const std::string& device_id, const std::string& jkt);

// The answer shared by the approved form (op 6) and refresh.
namespace sql {
struct DeviceForTokens;
}
TokenAnswer token_answer(const TokenPair& t, const sql::DeviceForTokens& device);

}  // namespace pouch::cliauth
