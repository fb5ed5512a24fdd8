// routes.h -- the shares group (decisions §8): create (op 13), list and revoke for the owner,
// the public fetch, and import by any signed-in web user. Routes are declared here as data
// (who may call, body schema and limit); a share id opens its share, so logs show only its
// first 8 characters (decisions §13). One file per endpoint.
#pragma once

#include <string>

#include "common/api/route.h"
#include "common/api/typed.h"
#include "common/http/error.h"
#include "common/model/schemas.h"
#include "common/paging/paging.h"
#include "handlers/shares/types.h"

namespace pouch::shares {

namespace js = json::schema;

// A bundle of 11,184,811 characters plus its label (decisions §3: 12 MiB, nginx's limit too).
inline const api::Route kCreate{.method = "POST",
                                .pattern = "/v1/pouches/{pouchId:uuid}/shares",
                                .who = api::Who::web,
                                .body_limit = 12 * http::kMiB,
                                .schema = api::schema<CreateRequest>(),
                                .pouch = api::PouchScope::read,
                                .role = model::Role::write};
inline const api::Route kList{.method = "GET",
                              .pattern = "/v1/pouches/{pouchId:uuid}/shares",
                              .who = api::Who::any,
                              .query = {paging::cursor_param(), paging::limit_param()},
                              .pouch = api::PouchScope::read};
inline const api::Route kFetch{
    .method = "GET", .pattern = "/v1/shares/{id:uuid}", .who = api::Who::public_, .masked = {"id"}};
inline const api::Route kImport{.method = "POST",
                                .pattern = "/v1/shares/{id:uuid}/import",
                                .who = api::Who::web,
                                .masked = {"id"}};
inline const api::Route kRevoke{.method = "POST",
                                .pattern = "/v1/shares/{id:uuid}/revoke",
                                .who = api::Who::web,
                                .masked = {"id"}};

// ---- sharing between accounts (docs/SHARING.md §9) ---------------------------------------------
// Under /v1/pouches/{pouchId}: the access list, leave, members, other accounts' rosters, key
// grants and a pouch's invitations; /v1/invitations: an account's. nginx routes these paths
// here (nginx/pouch.conf.template). A CLI's writes carry a Service-Signature.

inline const js::Node kSignedStatementBody = js::object({
    js::req("statement", js::b64url().min_chars(1).max_chars(87382)),
    js::req("signature", js::b64url().min_chars(1).max_chars(342)),
});
inline const js::Node kAppendAccessBody = js::object({
    js::req("statement", js::b64url().min_chars(1).max_chars(87382)),
    js::req("signature", js::b64url().min_chars(1).max_chars(342)),
    js::opt("key_envelopes", js::array(model::key_envelope()).min_items(1).max_items(2000)),
    js::opt("key_grants", js::array(model::key_grant()).min_items(1).max_items(1000)),
});
inline const js::Node kInviteBody = js::object({
    js::req("id", js::uuid()),
    js::req("account_id", js::uuid()),
    js::req("email", js::string().min_chars(3).max_chars(254)),
    js::req("role", js::one_of({"read", "write", "admin"})),
    js::opt("expires_in", js::integer().min(3600).max(30 * 86400)),
    js::req("statements", js::array(model::roster_statement()).min_items(1).max_items(2)),
    js::req("key_grants", js::array(model::key_grant()).min_items(1).max_items(1000)),
});
inline const js::Node kAcceptBody = js::object({
    js::req("key_envelopes", js::array(model::key_envelope()).min_items(0).max_items(2000)),
});
inline const js::Node kWithdrawBody = js::object({
    js::req("statement", js::b64url().min_chars(1).max_chars(87382)),
    js::req("signature", js::b64url().min_chars(1).max_chars(342)),
    js::req("key_envelopes", js::array(model::key_envelope()).min_items(1).max_items(2000)),
    js::opt("key_grants", js::array(model::key_grant()).min_items(1).max_items(1000)),
});

inline const api::Route kAccessList{.method = "GET",
                                    .pattern = "/v1/pouches/{pouchId:uuid}/access",
                                    .who = api::Who::any,
                                    .query = {paging::cursor_param(), paging::limit_param()}};
inline const api::Route kAppendAccess{.method = "POST",
                                      .pattern = "/v1/pouches/{pouchId:uuid}/access",
                                      .who = api::Who::any,
                                      .body_limit = 16 * http::kMiB,
                                      .schema = &kAppendAccessBody,
                                      .signed_body = true,
                                      .pouch = api::PouchScope::read,
                                      .role = model::Role::admin};
inline const api::Route kLeave{.method = "POST",
                               .pattern = "/v1/pouches/{pouchId:uuid}/leave",
                               .who = api::Who::any,
                               .schema = &kSignedStatementBody,
                               .signed_body = true,
                               .pouch = api::PouchScope::read};
inline const api::Route kMembers{.method = "GET",
                                 .pattern = "/v1/pouches/{pouchId:uuid}/members",
                                 .who = api::Who::any,
                                 .query = {paging::cursor_param(), paging::limit_param()},
                                 .pouch = api::PouchScope::read};
inline const api::Route kRosterOf{.method = "GET",
                                  .pattern = "/v1/pouches/{pouchId:uuid}/rosters/{accountId:uuid}",
                                  .who = api::Who::any,
                                  .query = {paging::cursor_param(), paging::limit_param()},
                                  .pouch = api::PouchScope::read};
inline const api::Route kKeyGrants{
    .method = "GET",
    .pattern = "/v1/pouches/{pouchId:uuid}/key-grants",
    .who = api::Who::any,
    .query = {http::query_int("key_gen", 1, js::kMaxSafeInt), paging::cursor_param(),
              paging::limit_param()},
    .pouch = api::PouchScope::read};
// 1,000 grants of about 600 bytes and two statements.
inline const api::Route kInvite{.method = "POST",
                                .pattern = "/v1/pouches/{pouchId:uuid}/invitations",
                                .who = api::Who::any,
                                .body_limit = 1 * http::kMiB,
                                .schema = &kInviteBody,
                                .signed_body = true,
                                .pouch = api::PouchScope::read,
                                .role = model::Role::admin};
inline const api::Route kPouchInvitations{.method = "GET",
                                          .pattern = "/v1/pouches/{pouchId:uuid}/invitations",
                                          .who = api::Who::any,
                                          .query = {paging::cursor_param(), paging::limit_param()},
                                          .pouch = api::PouchScope::read,
                                          .role = model::Role::admin};
inline const api::Route kInvitations{
    .method = "GET",
    .pattern = "/v1/invitations",
    .who = api::Who::any,
    .query = {http::query_text("direction", 8), http::query_text("state", 9),
              paging::cursor_param(), paging::limit_param()}};
inline const api::Route kAccept{.method = "POST",
                                .pattern = "/v1/invitations/{id:uuid}/accept",
                                .who = api::Who::any,
                                .body_limit = 16 * http::kMiB,
                                .schema = &kAcceptBody,
                                .signed_body = true};
inline const api::Route kDecline{.method = "POST",
                                 .pattern = "/v1/invitations/{id:uuid}/decline",
                                 .who = api::Who::any,
                                 .schema = &kSignedStatementBody,
                                 .signed_body = true};
inline const api::Route kWithdraw{.method = "POST",
                                  .pattern = "/v1/invitations/{id:uuid}/withdraw",
                                  .who = api::Who::any,
                                  .body_limit = 16 * http::kMiB,
                                  .schema = &kWithdrawBody,
                                  .signed_body = true};

http::Response access_list(api::Call& call);
http::Response append_access(api::Call& call);
http::Response leave(api::Call& call);
http::Response members(api::Call& call);
http::Response roster_of(api::Call& call);
http::Response key_grants(api::Call& call);
http::Response invite(api::Call& call);
http::Response pouch_invitations(api::Call& call);
http::Response invitations(api::Call& call);
http::Response accept(api::Call& call);
http::Response decline(api::Call& call);
http::Response withdraw(api::Call& call);

api::Created<Share> create(api::Call& call, const CreateRequest& body);
http::Response list(api::Call& call);   // a page
http::Response fetch(api::Call& call);  // FetchedShare, not to be cached
Imported import_share(api::Call& call);
Share revoke(api::Call& call);

// The group's one route table: main.cpp installs it, the unit tests read it.
inline const api::Entry kRoutes[] = {
    {kCreate, api::typed(create)},
    {kList, list},
    {kFetch, fetch},
    {kImport, api::typed(import_share)},
    {kRevoke, api::typed(revoke)},
    {kAccessList, access_list},
    {kAppendAccess, append_access},
    {kLeave, leave},
    {kMembers, members},
    {kRosterOf, roster_of},
    {kKeyGrants, key_grants},
    {kInvite, invite},
    {kPouchInvitations, pouch_invitations},
    {kInvitations, invitations},
    {kAccept, accept},
    {kDecline, decline},
    {kWithdraw, withdraw},
};

// 410 share_unavailable for a share that exists but is not active; details.state says which
// of expired, revoked or consumed it is, so a page can tell its visitor the reason.
inline Error unavailable_share(const std::string& state) {
    return Error(Code::share_unavailable, "the share is " + state)
        .with_details("{\"state\":\"" + state + "\"}");
}

}  // namespace pouch::shares
