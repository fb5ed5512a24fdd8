// routes.h -- the devices group (decisions §6): list, rename (op 14), revoke (op 11), the
// acknowledged-seq cursor (op 9). Each route is declared here as data (who may call, body
// schema and limit, query), so main.cpp, the pipeline (common/api/route.h) and the permission
// matrix test read one table.
#pragma once

#include "common/api/route.h"
#include "common/api/typed.h"
#include "common/model/schemas.h"
#include "common/paging/paging.h"
#include "handlers/devices/types.h"

namespace pouch::devices {

namespace js = json::schema;

inline const js::Node kRevokeBody = js::object({
    js::opt(
        "roster",
        js::object({
            js::req("statements", js::array(model::roster_statement()).min_items(1).max_items(16)),
            js::opt("key_envelopes", js::array(model::key_envelope()).max_items(2000)),
            // A rotated shared pouch gets a grant for every other account (SHARING.md §7).
            js::opt("key_grants", js::array(model::key_grant()).min_items(1).max_items(1000)),
        })),
    js::opt("reason", js::string().max_chars(200)),
});

inline const api::Route kList{.method = "GET",
                              .pattern = "/v1/devices",
                              .who = api::Who::any,
                              .query = {paging::cursor_param(), paging::limit_param()}};
inline const api::Route kRename{.method = "PATCH",
                                .pattern = "/v1/devices/{id:uuid}",
                                .who = api::Who::any,
                                .schema = api::schema<RenameRequest>()};
// A revoke may carry a roster rotation of 2,000 envelopes; no body is a plain revoke.
inline const api::Route kRevoke{.method = "POST",
                                .pattern = "/v1/devices/{id:uuid}/revoke",
                                .who = api::Who::any,
                                .body_limit = 16 * http::kMiB,
                                .schema = &kRevokeBody,
                                .body_optional = true};
// Three segments after /v1 cannot match {id:uuid} (two), so "me" is no device id.
inline const api::Route kCursor{.method = "PUT",
                                .pattern = "/v1/devices/me/cursor",
                                .who = api::Who::cli,
                                .schema = api::schema<CursorRequest>()};

http::Response list(api::Call& call);
DeviceName rename(api::Call& call, const RenameRequest& body);
RevokeAnswer revoke(api::Call& call);  // the body (a roster rotation) is read by common/model
CursorAnswer cursor(api::Call& call, const CursorRequest& body);

// The group's one route table: main.cpp installs it, the unit tests read it.
inline const api::Entry kRoutes[] = {
    {kList, list},
    {kRename, api::typed(rename)},
    {kRevoke, api::typed(revoke)},
    {kCursor, api::typed(cursor)},
};

}  // namespace pouch::devices
