// artifacts.cpp -- GET .../artifacts (op 7) and GET .../artifacts/{artifactId}/revisions
// (op 10), decisions §5.4: keyset pages of common/paging/paging.h keyed on (seq, id), scoped to
// the pouch and its epoch (and the artifact for revisions). The statements cut a page by
// stored bytes as well, so `fetched` (rows before that cut) tells whether more follow.
#include <string>

#include "common/auth/caller.h"
#include "common/http/error.h"
#include "common/http/query.h"
#include "common/json/out.h"
#include "common/paging/paging.h"
#include "handlers/sync/revision_json.h"
#include "handlers/sync/routes.h"
#include "handlers/sync/sql_reads.h"

namespace pouch::sync {

namespace {

const paging::Keys kBeforeEverySeq{"-1", "00000000-0000-0000-0000-000000000000"};

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
    paging::Keys from = list.read(q).value_or(kBeforeEverySeq);
    db::Result r = conn->exec(
        q.boolean("include_deleted") ? sql::kAllArtifactsPage : sql::kLiveArtifactsPage,
        {p.id, from[0], from[1], std::to_string(limit + 1), std::to_string(paging::kPageBudget)});
    return list.page(limit, r.rows(), paging::fetched(r), [&](json::Out& o, int i) {
        o.obj();
        o.kv("id", r.text(i, "id")).kv("name_index", r.text(i, "name_index"));
        o.kv("updated_at", r.text(i, "updated_at"));
        o.key("head");
        write_revision(o, r, i);
        o.end_obj();
        return paging::Keys{r.text(i, "head_seq"), r.text(i, "id")};
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
    if (conn->exec(sql::kArtifactExists, {p.id, artifact_id}).rows() == 0) throw http::not_found();
    const paging::List list("revisions/" + p.id + "/" + p.epoch + "/" + artifact_id,
                            {paging::Key::positive, paging::Key::uuid});
    // Newest first: the page holds seqs below the cursor's; no cursor starts above them all.
    auto from = list.read(q);
    std::string below = from ? (*from)[0] : std::to_string(kMaxSafeInt + 1);
    db::Result r = conn->exec(
        sql::kRevisionsPage,
        {p.id, artifact_id, below, std::to_string(limit + 1), std::to_string(paging::kPageBudget)});
    return list.page(limit, r.rows(), paging::fetched(r), [&](json::Out& o, int i) {
        write_revision(o, r, i);
        return paging::Keys{r.text(i, "rev_seq"), r.text(i, "rev_id")};
    });
}

}  // namespace pouch::sync
