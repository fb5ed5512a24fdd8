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
#include "common/db/array.h"
#include "common/jose/service_signature.h"
#include "common/json/jcs.h"
#include "common/json/out.h"
#include "common/rules/commit.h"
#include "common/wakeup/wakeup.h"
#include "handlers/sync/commit_schema.h"
#include "handlers/sync/routes.h"
#include "handlers/sync/sql_commit.h"

namespace pouch::sync {

namespace {

using rules::Decision;

// One op, decoded once: what the decision reads, and what a write stores besides.
struct Op {
    rules::CommitOp rule;
    std::string envelope, signature;
    std::optional<std::string> name_index, conflict_id;
};

Op decode(const rapidjson::Value& v) {
    Op op;
    rules::CommitOp& r = op.rule;
    r.type = json::text(v["type"]);
    r.artifact_id = json::text(v["artifact_id"]);
    r.revision_id = json::text(v["revision_id"]);
    r.base = json::opt_text(v, "base_revision_id");
    r.merge_parent = json::opt_text(v, "merge_parent_id");
    r.key_gen = v["key_gen"].GetInt64();
    r.signer = json::text(v["signer_member_id"]);
    for (const auto& b : v["blob_ids"].GetArray()) r.blob_ids.push_back(json::text(b));
    op.envelope = json::text(v["envelope"]);
    op.signature = json::text(v["signature"]);
    op.name_index = json::opt_text(v, "name_index");
    op.conflict_id = json::opt_text(v, "conflict_id");
    r.envelope_hash = crypto::b64url_encode(crypto::blake3_256(op.envelope));
    r.stored_size = static_cast<long long>(op.envelope.size() + op.signature.size());
    return op;
}

// The state the batch's decisions read (sql::kCommitState), for these ops.
rules::PouchState load_state(db::Conn& conn, const auth::Caller& c, const PouchRow& pouch,
                             const std::vector<Op>& ops) {
    std::set<std::string> revisions, artifacts, blobs, signers;
    for (const Op& op : ops) {
        revisions.insert(op.rule.revision_id);
        if (op.rule.merge_parent) revisions.insert(*op.rule.merge_parent);
        artifacts.insert(op.rule.artifact_id);
        blobs.insert(op.rule.blob_ids.begin(), op.rule.blob_ids.end());
        signers.insert(op.rule.signer);
    }
    auto list = [](const std::set<std::string>& s) {
        return db::text_array(std::vector<std::string>(s.begin(), s.end()));
    };
    db::Result r = conn.exec(sql::kCommitState, {pouch.id, list(revisions), list(artifacts),
                                                 c.account_id, list(blobs), list(signers)});
    rules::PouchState st;
    st.key_gen = pouch.key_gen;
    st.high_water = pouch.high_water;
    st.cli = c.is_cli();
    st.caller_member = c.member_id;
    for (int i = 0; i < r.rows(); ++i) {
        std::string kind = r.text(i, "kind");
        if (kind == "rev") {
            st.revisions[r.text(i, "k")] =
                rules::StoredRevision{r.text(i, "a"), r.text(i, "h"), r.int64(i, "n")};
        } else if (kind == "art") {
            st.heads[r.text(i, "k")] = r.text(i, "a");
        } else if (kind == "blob") {
            st.blobs.insert(r.text(i, "k"));
        } else if (kind == "member") {
            st.active_members.insert(r.text(i, "k"));
        } else if (kind == "quota") {
            st.limit_bytes = r.int64(i, "n");
            st.used_bytes = r.int64(i, "m");
        }
    }
    return st;
}

// Writes the ops that applied fresh: their revisions and events, then each artifact's final
// head (the batch's last op on it), one statement each.
void write_applied(db::Conn& conn, const auth::Caller& c, const PouchRow& pouch,
                   const std::vector<Op>& ops, const std::vector<Decision>& results) {
    std::vector<std::string> ids, artifacts, seqs, kinds, key_gens, envelopes, hashes, signatures,
        signers, sizes, blob_lists;
    std::vector<std::optional<std::string>> bases, merges, conflicts;
    struct Head {
        std::string revision;
        long long seq = 0;
        std::string name_index;  // "" keeps the stored one
        bool deleted = false;
    };
    std::vector<std::string> head_order;  // artifacts in first-written order
    std::map<std::string, Head> heads;
    for (size_t i = 0; i < ops.size(); ++i) {
        if (!results[i].fresh) continue;
        const rules::CommitOp& r = ops[i].rule;
        ids.push_back(r.revision_id);
        artifacts.push_back(r.artifact_id);
        seqs.push_back(std::to_string(results[i].seq));
        kinds.push_back(r.type);
        bases.push_back(r.base);
        merges.push_back(r.merge_parent);
        conflicts.push_back(ops[i].conflict_id);
        key_gens.push_back(std::to_string(r.key_gen));
        envelopes.push_back(ops[i].envelope);
        hashes.push_back(r.envelope_hash);
        signatures.push_back(ops[i].signature);
        signers.push_back(r.signer);
        sizes.push_back(std::to_string(r.stored_size));
        blob_lists.push_back(db::text_array(r.blob_ids));
        auto [it, fresh] = heads.try_emplace(r.artifact_id);
        if (fresh) head_order.push_back(r.artifact_id);
        Head& h = it->second;
        h.revision = r.revision_id;
        h.seq = results[i].seq;
        h.deleted = r.type == "delete";
        if (ops[i].name_index) h.name_index = *ops[i].name_index;
    }
    db::Param device = c.is_cli() ? db::Param(c.device_id) : db::Param();
    conn.exec(sql::kInsertRevisions,
              {pouch.id, c.is_cli() ? "cli" : "web", device, db::text_array(ids),
               db::text_array(artifacts), db::text_array(seqs), db::text_array(kinds),
               db::text_array(bases), db::text_array(merges), db::text_array(conflicts),
               db::text_array(key_gens), db::text_array(envelopes), db::text_array(hashes),
               db::text_array(signatures), db::text_array(signers), db::text_array(sizes),
               db::text_array(blob_lists), pouch.epoch});
    std::vector<std::string> head_ids, head_revs, head_seqs, head_names, head_deleted;
    for (const auto& a : head_order) {
        const Head& h = heads[a];
        head_ids.push_back(a);
        head_revs.push_back(h.revision);
        head_seqs.push_back(std::to_string(h.seq));
        head_names.push_back(h.name_index);
        head_deleted.push_back(h.deleted ? "true" : "false");
    }
    conn.exec(sql::kUpsertArtifacts, {pouch.id, db::text_array(head_ids), db::text_array(head_revs),
                                      db::text_array(head_seqs), db::text_array(head_names),
                                      db::text_array(head_deleted)});
}

std::string render(const std::vector<Op>& ops, const std::vector<Decision>& results,
                   long long high_water) {
    json::Out o;
    o.key("results").arr();
    for (size_t i = 0; i < ops.size(); ++i) {
        const Decision& r = results[i];
        o.obj().kv("status", rules::status_name(r.status));
        o.kv("artifact_id", ops[i].rule.artifact_id).kv("revision_id", ops[i].rule.revision_id);
        if (r.status == Decision::Status::applied) {
            o.kv("seq", r.seq);
        } else {
            o.kv("code", r.code).kv("message", r.message);
            if (r.code == "stale_base") o.kv("head_revision_id", r.head_revision_id);
        }
        o.end_obj();
    }
    o.end_arr();
    o.kv("high_water", high_water);
    return o.done();
}

}  // namespace

http::Response commit(api::Call& call) {
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    const rapidjson::Document& doc = call.body;  // signed, pouch loaded, validated
    // The pipeline's transaction, holding the pouch row's lock (PouchScope::write).
    db::Conn* conn = &call.conn();
    const PouchRow& pouch = call.pouch();
    std::vector<Op> ops;
    for (const auto& v : doc["ops"].GetArray()) ops.push_back(decode(v));
    std::string operation_id = json::text(doc["operation_id"]);
    std::string stored_hash = crypto::b64url_encode(call.body_hash);

    if (json::text(doc["epoch"]) != pouch.epoch)
        throw http::epoch_mismatch(pouch.epoch, pouch.high_water);
    db::Result prior = conn->exec(sql::kStoredCommit, {pouch.id, operation_id});
    if (prior.rows() == 1) {
        if (prior.text(0, "body_hash") != stored_hash) throw Error(Code::operation_id_reused);
        return api::ok(prior.text(0, "response"));
    }

    rules::PouchState state = load_state(*conn, c, pouch, ops);
    long long used_before = state.used_bytes;
    std::vector<Decision> results;
    for (const Op& op : ops) results.push_back(rules::decide(op.rule, state));
    bool wrote = state.high_water != pouch.high_water;
    if (wrote) {
        write_applied(*conn, c, pouch, ops, results);
        conn->exec(sql::kAdvancePouch, {pouch.id, std::to_string(state.high_water),
                                        std::to_string(state.used_bytes - used_before)});
    }
    std::string data = render(ops, results, state.high_water);
    conn->exec(sql::kStoreCommit, {pouch.id, operation_id, stored_hash, data});
    call.tx().commit();

    if (wrote) wakeup::publish(s.redis, wakeup::Topic::events, pouch.id);
    return api::ok(std::move(data));
}

}  // namespace pouch::sync
