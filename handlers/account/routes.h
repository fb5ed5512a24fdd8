// routes.h -- the account group (decisions §4): signup, login, logout, the account overview,
// the roster and genesis. Each route is declared here as data (who may call, body schema and
// limit, query), read by main.cpp, the pipeline (common/api/route.h) and the permission-matrix
// test; one file per endpoint implements it.
#pragma once

#include <string>

#include "common/api/route.h"
#include "common/api/typed.h"
#include "common/model/identity.h"
#include "common/model/schemas.h"
#include "common/paging/paging.h"
#include "handlers/account/types.h"

namespace pouch::account {

namespace js = json::schema;

// The interface types genesis statements as plain strings; decisions §3 still bounds them.
inline const js::Node kGenesisBody = js::object({
    js::req("statements",
            js::array(js::object({
                          js::req("statement", js::string().min_chars(1).max_chars(87382)),
                          js::req("signature", js::string().min_chars(1).max_chars(342)),
                      }))
                .min_items(1)
                .max_items(16)),
    js::req("key_envelopes", js::array(model::key_envelope()).min_items(1).max_items(2000)),
});

inline const api::Route kSignup{.method = "POST",
                                .pattern = "/v1/account/signup",
                                .who = api::Who::public_,
                                .schema = api::schema<SignupRequest>()};
inline const api::Route kLogin{.method = "POST",
                               .pattern = "/v1/account/login",
                               .who = api::Who::public_,
                               .schema = api::schema<LoginRequest>()};
inline const api::Route kLogout{
    .method = "POST", .pattern = "/v1/account/logout", .who = api::Who::web};
inline const api::Route kAccount{.method = "GET", .pattern = "/v1/account", .who = api::Who::any};
// Up to 16 statements and 2,000 envelopes.
inline const api::Route kGenesis{.method = "POST",
                                 .pattern = "/v1/account/roster/genesis",
                                 .who = api::Who::web,
                                 .body_limit = 16 * http::kMiB,
                                 .schema = &kGenesisBody};
inline const api::Route kRoster{.method = "GET",
                                .pattern = "/v1/account/roster",
                                .who = api::Who::any,
                                .query = {http::query_int("after", -1, 2147483647),
                                          paging::cursor_param(), paging::limit_param()}};

// The identity statement (about 560 characters) and up to 2,000 identity envelopes.
inline const js::Node kIdentityBody = js::object({
    js::req("statement", js::b64url().min_chars(1).max_chars(2048)),
    js::req("signature", js::b64url().min_chars(1).max_chars(342)),
    js::req("envelopes", js::array(model::identity_envelope()).min_items(1).max_items(2000)),
});

inline const api::Route kIdentity{
    .method = "GET", .pattern = "/v1/account/identity", .who = api::Who::any};
inline const api::Route kPutIdentity{.method = "PUT",
                                     .pattern = "/v1/account/identity",
                                     .who = api::Who::web,
                                     .body_limit = 4 * http::kMiB,
                                     .schema = &kIdentityBody};
// Rate-limited by nginx (pouch_lookup); the answer has one shape whether the address has an
// account or not (SHARING.md §2).
inline const api::Route kLookupIdentity{
    .method = "GET",
    .pattern = "/v1/identities",
    .who = api::Who::any,
    .query = {http::required(http::query_text("email", 254))}};
inline const api::Route kAccountAudit{.method = "GET",
                                      .pattern = "/v1/account/audit",
                                      .who = api::Who::web,
                                      .query = {paging::cursor_param(), paging::limit_param()}};

api::Created<SignupAnswer> signup(api::Call& call, const SignupRequest& body);
LoginAnswer login(api::Call& call, const LoginRequest& body);
http::Response logout(api::Call& call);
AccountAnswer get_account(api::Call& call);
// The body (statements and envelopes) is read by common/model's roster and envelope writers.
api::Created<GenesisAnswer> genesis(api::Call& call);
http::Response roster(api::Call& call);
IdentityAnswer get_identity(api::Call& call);
// The body (statement and envelopes) is read as validated JSON (envelopes go to SQL as jsonb).
api::Created<IdentityStored> put_identity(api::Call& call);
LookupAnswer lookup_identity(api::Call& call);
http::Response account_audit(api::Call& call);  // a page

// The group's one route table: main.cpp installs it, the unit tests read it.
inline const api::Entry kRoutes[] = {
    {kSignup, api::typed(signup)},
    {kLogin, api::typed(login)},
    {kLogout, logout},
    {kAccount, api::typed(get_account)},
    {kGenesis, api::typed(genesis)},
    {kRoster, roster},
    {kIdentity, api::typed(get_identity)},
    {kPutIdentity, api::typed(put_identity)},
    {kLookupIdentity, api::typed(lookup_identity)},
    {kAccountAudit, account_audit},
};

// Shared by signup and login: a new web session for the user, inside `conn`.
struct NewSession {
    std::string token;
    std::string expires_at;
};
NewSession create_session(db::Conn& conn, const std::string& user_id);

// Trims and lower-cases an email; throws validation_failed(/email) if it is not one.
std::string normalize_email(const std::string& raw);

}  // namespace pouch::account
