// routes.h -- the shares group (decisions §8): create (op 13), list and revoke for the owner,
// the public fetch, and import by any signed-in web user. Routes are declared here as data
// (who may call, body schema and limit); a share id opens its share, so logs show only its
// first 8 characters (decisions §13). One file per endpoint.
#pragma once

#include <string>

#include "common/api/route.h"
#include "common/crypto/b64url.h"
#include "common/http/error.h"
#include "common/paging/paging.h"

namespace pouch::shares {

namespace js = json::schema;

inline bool canonical_b64url(std::string_view s) {
    return crypto::b64url_canonical(s);
}
inline const char* const kCanonical =
    "b64url with exactly one decoding (length not 4k+1, unused bits zero)";

// Bounds of interface.md; a sealed label always carries at least a nonce and a tag, so an
// empty label_enc (or bundle) is refused.
inline const js::Node kCreateBody = js::object({
    js::req("id", js::uuid()),
    js::req("bundle",
            js::b64url().min_chars(1).max_chars(11184811).check(canonical_b64url, kCanonical)),
    js::req("label_enc",
            js::b64url().min_chars(1).max_chars(683).check(canonical_b64url, kCanonical)),
    js::opt("expires", js::one_of({"1d", "7d", "30d", "never"})),
    js::opt("one_time", js::boolean()),
});

// A bundle of 11,184,811 characters plus its label (decisions §3: 12 MiB, nginx's limit too).
inline const api::Route kCreate{.method = "POST",
                                .pattern = "/v1/pouches/{pouchId:uuid}/shares",
                                .who = api::Who::web,
                                .body_limit = 12 * http::kMiB,
                                .schema = &kCreateBody,
                                .pouch = api::PouchScope::read};
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

http::Response create(api::Call& call);
http::Response list(api::Call& call);
http::Response fetch(api::Call& call);
http::Response import_share(api::Call& call);
http::Response revoke(api::Call& call);

// The group's one route table: main.cpp installs it, the unit tests read it.
inline const api::Entry kRoutes[] = {
    {kCreate, create}, {kList, list}, {kFetch, fetch}, {kImport, import_share}, {kRevoke, revoke},
};

// 410 share_unavailable for a share that exists but is not active; details.state says which
// of expired, revoked or consumed it is, so a page can tell its visitor the reason.
inline Error unavailable_share(const std::string& state) {
    return Error(Code::share_unavailable, "the share is " + state)
        .with_details("{\"state\":\"" + state + "\"}");
}

}  // namespace pouch::shares
