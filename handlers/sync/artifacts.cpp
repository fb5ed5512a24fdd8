// artifacts.cpp -- GET .../artifacts (op 7) and GET .../artifacts/{artifactId}/revisions
// (op 10), decisions §5.4: keyset pages of common/paging/paging.h keyed on (seq, id), scoped to
// the pouch and its epoch (and the artifact for revisions). The statements cut a page by
// stored bytes as well, so `fetched` (rows before that cut) tells whether more follow.
#include <string>
#include <vector>

#include "common/auth/caller.h"
#include "common/http/error.h"
#include "common/http/query.h"
#include "common/json/out.h"
#include "common/paging/paging.h"
#include "handlers/sync/routes.h"
#include "handlers/sync/sql_reads.h"

namespace pouch::sync {

namespace {

constexpr const char* kNoId = "00000000-0000-0000-0000-000000000000";

template <class Row>
long long fetched(const std::vector<Row>& rows) {
    return rows.empty() ? 0 : rows[0].fetched;
}

}  // namespace

http::Response list_artifacts(api::Call& call) {
    http::Services& s = call.services;
    const http::QueryValues& q = call.query;
    long long limit = q.integer("limit");
    auto conn = s.db.acquire();
    const PouchRow& p = call.pouch();
    // The epoch in the scope: a cursor from before an epoch reset is refused, not misread.
    const paging::List list("artifacts/" + p.id + "/" + p.epoch,
                            {paging::Key::positive, paging::Key::uuid});
    // head_seq is >= 0, so (-1, any id) is before every artifact.
    auto after = list.read(q);
    std::vector<sql::ArtifactRow> rows = conn->rows(
        q.boolean("include_deleted") ? sql::kAllArtifactsPage : sql::kLiveArtifactsPage,
        {.pouch_id = p.id,
         .after_seq = paging::after_number(after, 0).value_or(-1),
         .after_id = after ? (*after)[1] : kNoId,
         .limit = limit + 1,
         .budget = static_cast<long long>(paging::kPageBudget)});
    int n = static_cast<int>(rows.size());
    return list.page(limit, n, fetched(rows), [&](json::Out& o, int i) {
        sql::ArtifactRow& r = rows[static_cast<size_t>(i)];
        paging::Keys keys{std::to_string(r.head_seq), r.artifact};
        Artifact a{.id = std::move(r.artifact),
                   .name_index = std::move(r.name_index),
                   .updated_at = std::move(r.updated_at),
                   .head = std::move(static_cast<Revision&>(r))};
        o.obj();
        json::write_members(o, a);
        o.end_obj();
        return keys;
    });
}

http::Response list_revisions(api::Call& call) {
    http::Request& req = call.req;
    http::Services& s = call.services;
    const http::QueryValues& q = call.query;
    long long limit = q.integer("limit");
    auto conn = s.db.acquire();
    const PouchRow& p = call.pouch();
    const std::string& artifact_id = req.param("artifactId");
    if (!conn->maybe_one(sql::kArtifactExists, {.pouch_id = p.id, .artifact_id = artifact_id}))
        throw http::not_found();
    const paging::List list("revisions/" + p.id + "/" + p.epoch + "/" + artifact_id,
                            {paging::Key::positive, paging::Key::uuid});
    // Newest first: the page holds seqs below the cursor's; no cursor starts above them all.
    auto from = list.read(q);
    std::vector<sql::RevisionRow> rows =
        conn->rows(sql::kRevisionsPage,
                   {.pouch_id = p.id,
                    .artifact_id = artifact_id,
                    .below = paging::after_number(from, 0).value_or(kMaxSafeInt + 1),
                    .limit = limit + 1,
                    .budget = static_cast<long long>(paging::kPageBudget)});
    int n = static_cast<int>(rows.size());
    return list.page(limit, n, fetched(rows), [&](json::Out& o, int i) {
        const sql::RevisionRow& r = rows[static_cast<size_t>(i)];
        o.obj();
        json::write_members(o, static_cast<const Revision&>(r));
        o.end_obj();
        return paging::Keys{std::to_string(r.seq), r.id};
    });
}

}  // namespace pouch::sync
