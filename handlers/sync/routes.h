// routes.h -- the sync group (decisions §5): pouches, key envelopes, commits, events,
// artifacts, revisions and blobs. Routes are declared here as data (who may call, body schema
// and limit, query, Service-Signature, pouch scope) in one table, read by main.cpp, the
// pipeline (common/api/route.h) and the unit tests. One file per endpoint family.
#pragma once

#include <string>

#include "common/api/route.h"
#include "common/api/typed.h"
#include "common/model/schemas.h"
#include "common/paging/paging.h"
#include "handlers/sync/commit_types.h"
#include "handlers/sync/types.h"

namespace pouch::sync {

namespace js = json::schema;
using model::PouchRow;  // the row a route's pouch scope loads (call.pouch())

// A shared pouch also takes envelopes of past generations for the caller's own members, and a
// rotation of it key_grants for the other accounts (docs/SHARING.md §9).
inline const js::Node kAddEnvelopesBody = js::object({
    js::req("key_envelopes", js::array(model::key_envelope()).min_items(1).max_items(2000)),
    js::opt("key_grants", js::array(model::key_grant()).min_items(1).max_items(1000)),
});

inline const js::Node kCreatePouchBody = js::object({
    js::req("id", js::uuid()),
    js::req("key_envelopes", js::array(model::key_envelope()).min_items(1).max_items(2000)),
});

inline constexpr long long kMaxArtifactsLimit = 500;  // decisions §5.4

// Up to 2,000 key envelopes (decisions §3: 16 MiB).
inline const api::Route kListPouches{.method = "GET",
                                     .pattern = "/v1/pouches",
                                     .who = api::Who::any,
                                     .query = {paging::cursor_param(), paging::limit_param()}};
inline const api::Route kCreatePouch{.method = "POST",
                                     .pattern = "/v1/pouches",
                                     .who = api::Who::any,
                                     .body_limit = 16 * http::kMiB,
                                     .schema = &kCreatePouchBody};
inline const api::Route kGetPouch{.method = "GET",
                                  .pattern = "/v1/pouches/{pouchId:uuid}",
                                  .who = api::Who::any,
                                  .pouch = api::PouchScope::read};
inline const api::Route kListEnvelopes{
    .method = "GET",
    .pattern = "/v1/pouches/{pouchId:uuid}/key-envelopes",
    .who = api::Who::any,
    .query = {http::query_uuid("member_id"), http::query_int("key_gen", 1, js::kMaxSafeInt),
              paging::cursor_param(), paging::limit_param()},
    .pouch = api::PouchScope::read};
inline const api::Route kAddEnvelopes{.method = "POST",
                                      .pattern = "/v1/pouches/{pouchId:uuid}/key-envelopes",
                                      .who = api::Who::any,
                                      .body_limit = 16 * http::kMiB,
                                      .schema = &kAddEnvelopesBody,
                                      .pouch = api::PouchScope::read};
// decisions §5.3: auth (a CLI also Service-Signature), the pouch row locked (404), body
// validation; the handler runs in the transaction holding the lock.
inline const api::Route kCommit{.method = "POST",
                                .pattern = "/v1/pouches/{pouchId:uuid}/operations",
                                .who = api::Who::any,
                                .body_limit = 8 * http::kMiB,
                                .schema = api::schema<CommitRequest>(),
                                .signed_body = true,
                                .pouch = api::PouchScope::write,
        .role = model::Role::write};
inline const api::Route kEvents{
    .method = "GET",
    .pattern = "/v1/pouches/{pouchId:uuid}/events",
    .who = api::Who::any,
    .query = {http::required(http::query_uuid("epoch")),
              http::query_int("after", 0, js::kMaxSafeInt, 0),
              http::query_int("limit", 1, 1000, 100), http::query_int("wait", 0, 30, 0)},
    .pouch = api::PouchScope::read};
inline const api::Route kArtifacts{
    .method = "GET",
    .pattern = "/v1/pouches/{pouchId:uuid}/artifacts",
    .who = api::Who::any,
    .query = {paging::cursor_param(), paging::limit_param(kMaxArtifactsLimit),
              http::query_bool("include_deleted", false)},
    .pouch = api::PouchScope::read};
inline const api::Route kRevisions{
    .method = "GET",
    .pattern = "/v1/pouches/{pouchId:uuid}/artifacts/{artifactId:uuid}/revisions",
    .who = api::Who::any,
    .query = {paging::cursor_param(), paging::limit_param(kMaxArtifactsLimit)},
    .pouch = api::PouchScope::read};
// 1,000 items of up to ~76 bytes each exceed the 64 KiB default.
inline const api::Route kCheckBlobs{.method = "POST",
                                    .pattern = "/v1/pouches/{pouchId:uuid}/blobs/check",
                                    .who = api::Who::any,
                                    .body_limit = 128 * http::kKiB,
                                    .schema = api::schema<CheckRequest>(),
                                    .pouch = api::PouchScope::read,
        .role = model::Role::write};
inline const api::Route kUploadBlob{.method = "PUT",
                                    .pattern = "/v1/pouches/{pouchId:uuid}/blobs/{blobId:blobid}",
                                    .who = api::Who::any,
                                    .body = http::BodyKind::stream,
                                    .body_limit = 64 * http::kMiB,
                                    .content_type = "application/octet-stream",
                                    .pouch = api::PouchScope::read,
        .role = model::Role::write};
inline const api::Route kDownloadBlob{.method = "GET",
                                      .pattern = "/v1/pouches/{pouchId:uuid}/blobs/{blobId:blobid}",
                                      .who = api::Who::any,
                                      .pouch = api::PouchScope::read};

http::Response list_pouches(api::Call& call);
api::Created<Pouch> create_pouch(api::Call& call);
Pouch get_pouch(api::Call& call);
http::Response list_key_envelopes(api::Call& call);
EnvelopesAnswer add_key_envelopes(api::Call& call);
http::Response commit(api::Call& call, const CommitRequest& body);
http::Response events(api::Call& call);
http::Response list_artifacts(api::Call& call);
http::Response list_revisions(api::Call& call);
CheckAnswer check_blobs(api::Call& call, const CheckRequest& body);
http::Response upload_blob(api::Call& call);
http::Response download_blob(api::Call& call);

// The group's one route table: main.cpp installs it, the unit tests read it.
inline const api::Entry kRoutes[] = {
    {kListPouches, list_pouches},
    {kCreatePouch, api::typed(create_pouch)},
    {kGetPouch, api::typed(get_pouch)},
    {kListEnvelopes, list_key_envelopes},
    {kAddEnvelopes, api::typed(add_key_envelopes)},
    {kCommit, api::typed(commit)},
    {kEvents, events},
    {kArtifacts, list_artifacts},
    {kRevisions, list_revisions},
    {kCheckBlobs, api::typed(check_blobs)},
    {kUploadBlob, upload_blob},
    {kDownloadBlob, download_blob},
};

}  // namespace pouch::sync
