// routes.h -- the shares group (decisions §8): create (op 13), list and revoke for the owner,
// the public fetch, and import by any signed-in web user. Routes are declared here as data
// (who may call, body schema and limit); a share id opens its share, so logs show only its
// first 8 characters (decisions §13). One file per endpoint.
#pragma once

#include <string>

#include "common/api/route.h"
#include "common/api/typed.h"
#include "common/http/error.h"
#include "common/paging/paging.h"
#include "handlers/shares/types.h"

namespace pouch::shares {

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
};

// 410 share_unavailable for a share that exists but is not active; details.state says which
// of expired, revoked or consumed it is, so a page can tell its visitor the reason.
inline Error unavailable_share(const std::string& state) {
    return Error(Code::share_unavailable, "the share is " + state)
        .with_details("{\"state\":\"" + state + "\"}");
}

}  // namespace pouch::shares
