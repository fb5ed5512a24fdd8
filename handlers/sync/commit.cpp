// commit.cpp -- POST /v1/pouches/{pouchId}/operations (op 1, decisions §5.3). The route's
// pipeline has run auth (a CLI also proved the body with Service-Signature), pouch access and
// body validation; here: epoch, idempotency. Then, under the pouch row lock, the batch's state is
// read in one set query, every op is decided in order by common/rules/commit.h (pure,
// table-tested), and what applied is written with one statement per table; one durable COMMIT
// precedes the response, which is stored for replays of its operation_id.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/auth/caller.h"
#include "common/crypto/b64url.h"
#include "common/crypto/hash.h"
#include "common/json/out.h"
#include "common/rules/commit.h"
#include "common/wakeup/wakeup.h"
#include "handlers/sync/commit_types.h"
#include "handlers/sync/routes.h"
#include "handlers/sync/sql_commit.h"

namespace pouch::sync {

namespace {

using rules::Decision;

// What the decision of `op` reads (common/rules/commit.h), with what it computes from the op.
rules::CommitOp rule_of(const CommitOp& op) {
    return rules::CommitOp{
        .type = op.type,
        .artifact_id = op.artifact_id,
        .revision_id = op.revision_id,
        .envelope_hash = crypto::b64url_encode(crypto::blake3_256(op.envelope)),
        .signer = op.signer_member_id,
        .base = op.base_revision_id,
        .merge_parent = op.merge_parent_id,
        .key_gen = op.key_gen,
        .stored_size = static_cast<long long>(op.envelope.size() + op.signature.size()),
        .blob_ids = op.blob_ids,
    };
}

std::vector<std::string> list(const std::set<std::string>& s) {
    return {s.begin(), s.end()};
}

// The state the batch's decisions read (sql::kCommitState), for these ops.
rules::PouchState load_state(db::Conn& conn, const auth::Caller& c, const PouchRow& pouch,
                             const std::vector<rules::CommitOp>& ops) {
    std::set<std::string> revisions, artifacts, blobs, signers;
    for (const rules::CommitOp& op : ops) {
        revisions.insert(op.revision_id);
        if (op.merge_parent) revisions.insert(*op.merge_parent);
        artifacts.insert(op.artifact_id);
        blobs.insert(op.blob_ids.begin(), op.blob_ids.end());
        signers.insert(op.signer);
    }
    std::vector<sql::StateFact> facts = conn.rows(sql::kCommitState, {.pouch_id = pouch.id,
                                                                      .revision_ids = list(revisions),
                                                                      .artifact_ids = list(artifacts),
                                                                      .account_id = c.account_id,
                                                                      .blob_ids = list(blobs),
                                                                      .signer_ids = list(signers),
                                                                      .owner_account_id = pouch.owner()});
    rules::PouchState st;
    st.key_gen = pouch.key_gen;
    st.high_water = pouch.high_water;
    st.cli = c.is_cli();
    st.caller_member = c.member_id;
    for (const sql::StateFact& f : facts) {
        if (f.kind == "rev") {
            st.revisions[f.id.value()] =
                rules::StoredRevision{f.artifact_id.value(), f.envelope_hash.value(), f.seq.value()};
        } else if (f.kind == "art") {
            st.heads[f.id.value()] = f.head_revision_id.value();
        } else if (f.kind == "blob") {
            st.blobs.insert(f.id.value());
        } else if (f.kind == "member") {
            st.active_members.insert(f.id.value());
        } else if (f.kind == "quota") {
            st.limit_bytes = f.limit_bytes.value();
            st.used_bytes = f.used_bytes.value();
        }
    }
    return st;
}

// Writes the ops that applied fresh: their revisions and events, then each artifact's final
// head (the batch's last op on it), one statement each.
void write_applied(db::Conn& conn, const auth::Caller& c, const PouchRow& pouch,
                   const std::vector<CommitOp>& ops, const std::vector<rules::CommitOp>& views,
                   const std::vector<Decision>& results) {
    std::vector<AppliedOp> applied;
    std::vector<ArtifactHead> heads;  // in first-written order
    std::map<std::string, size_t> head_of;
    for (size_t i = 0; i < ops.size(); ++i) {
        if (!results[i].fresh) continue;
        AppliedOp a{ops[i]};
        a.seq = results[i].seq;
        a.envelope_hash = views[i].envelope_hash;
        a.stored_size = views[i].stored_size;
        applied.push_back(std::move(a));
        auto [it, fresh] = head_of.try_emplace(ops[i].artifact_id, heads.size());
        if (fresh) heads.push_back({.artifact_id = ops[i].artifact_id});
        ArtifactHead& h = heads[it->second];
        h.head_revision_id = ops[i].revision_id;
        h.head_seq = results[i].seq;
        h.deleted = ops[i].type == "delete";
        if (ops[i].name_index) h.name_index = ops[i].name_index;
    }
    conn.run(sql::kInsertRevisions,
             {.pouch_id = pouch.id,
              .origin = c.is_cli() ? "cli" : "web",
              .device_id = c.is_cli() ? std::optional<std::string>(c.device_id) : std::nullopt,
              .epoch = pouch.epoch,
              .ops = {std::move(applied)}});
    conn.run(sql::kUpsertArtifacts, {.pouch_id = pouch.id, .heads = {std::move(heads)}});
}

CommitAnswer answer(const std::vector<CommitOp>& ops, const std::vector<Decision>& results,
                    long long high_water) {
    CommitAnswer a{.high_water = high_water};
    for (size_t i = 0; i < ops.size(); ++i) {
        const Decision& r = results[i];
        OpResult& o = a.results.emplace_back(OpResult{.status = rules::status_name(r.status),
                                                      .artifact_id = ops[i].artifact_id,
                                                      .revision_id = ops[i].revision_id});
        if (r.status == Decision::Status::applied) {
            o.seq = r.seq;
        } else {
            o.code = r.code;
            o.message = r.message;
            if (r.code == "stale_base") o.head_revision_id = r.head_revision_id;
        }
    }
    return a;
}

}  // namespace

// The answer is the stored one on a replay of the operation_id, so the handler returns the
// response it built (or found) rather than a CommitAnswer.
http::Response commit(api::Call& call, const CommitRequest& body) {
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    // The pipeline's transaction, holding the pouch row's lock (PouchScope::write).
    db::Conn* conn = &call.conn();
    const PouchRow& pouch = call.pouch();
    std::string stored_hash = crypto::b64url_encode(call.body_hash);

    if (body.epoch != pouch.epoch) throw http::epoch_mismatch(pouch.epoch, pouch.high_water);
    auto prior = conn->maybe_one(sql::kStoredCommit,
                                 {.pouch_id = pouch.id, .operation_id = body.operation_id});
    if (prior) {
        if (prior->body_hash != stored_hash) throw Error(Code::operation_id_reused);
        return api::ok(std::move(prior->response));
    }

    std::vector<rules::CommitOp> views;  // what each decision reads
    for (const CommitOp& op : body.ops) views.push_back(rule_of(op));
    rules::PouchState state = load_state(*conn, c, pouch, views);
    long long used_before = state.used_bytes;
    std::vector<Decision> results;
    for (const rules::CommitOp& op : views) results.push_back(rules::decide(op, state));
    bool wrote = state.high_water != pouch.high_water;
    if (wrote) {
        write_applied(*conn, c, pouch, body.ops, views, results);
        conn->run(sql::kAdvancePouch, {.pouch_id = pouch.id,
                                       .high_water = state.high_water,
                                       .added_bytes = state.used_bytes - used_before});
    }
    std::string data = json::to_json(answer(body.ops, results, state.high_water));
    conn->run(sql::kStoreCommit, {.pouch_id = pouch.id,
                                  .operation_id = body.operation_id,
                                  .body_hash = stored_hash,
                                  .response = data});
    call.tx().commit();

    if (wrote) wakeup::publish(s.redis, wakeup::Topic::events, pouch.id);
    return api::ok(std::move(data));
}

}  // namespace pouch::sync
