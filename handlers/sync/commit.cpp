// commit.cpp -- POST /v1/pouches/{pouchId}/operations (op 1, decisions §5.3). Checks in
// order: auth (a CLI also proves the body with Service-Signature), pouch access, body
// validation, epoch, idempotency. Then, under the pouch row lock, each op is checked in the
// decided order and, if it passes, written inside its own savepoint with the next seq; one
// durable COMMIT precedes the response, which is stored for replays of its operation_id.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/auth/caller.h"
#include "common/crypto/b64url.h"
#include "common/crypto/es256.h"
#include "common/crypto/hash.h"
#include "common/crypto/service_signature.h"
#include "common/json/jcs.h"
#include "common/json/out.h"
#include "common/json/parse.h"
#include "common/json/schema.h"
#include "common/model/key_envelopes.h"
#include "handlers/sync/commit_schema.h"
#include "handlers/sync/pouch_access.h"
#include "handlers/sync/routes.h"
#include "handlers/sync/sql_commit.h"

namespace pouch::sync {

namespace {

namespace js = json::schema;

std::string str(const rapidjson::Value& v) { return std::string(v.GetString(), v.GetStringLength()); }

std::optional<std::string> opt_str(const rapidjson::Value& op, const char* name) {
    auto it = op.FindMember(name);
    if (it == op.MemberEnd() || it->value.IsNull()) return std::nullopt;
    return str(it->value);
}

db::Param param(const std::optional<std::string>& v) { return v ? db::Param(*v) : db::Param(); }

// One op, decoded once.
struct Op {
    std::string type, artifact_id, revision_id, envelope, signature, signer, envelope_hash;
    std::optional<std::string> base, merge_parent, name_index, conflict_id;
    long long key_gen = 0;
    long long stored_size = 0;
    std::vector<std::string> blob_ids;
};

Op decode(const rapidjson::Value& v) {
    Op op;
    op.type = str(v["type"]);
    op.artifact_id = str(v["artifact_id"]);
    op.revision_id = str(v["revision_id"]);
    op.base = opt_str(v, "base_revision_id");
    op.merge_parent = opt_str(v, "merge_parent_id");
    op.name_index = opt_str(v, "name_index");
    op.conflict_id = opt_str(v, "conflict_id");
    op.key_gen = v["key_gen"].GetInt64();
    op.envelope = str(v["envelope"]);
    op.signature = str(v["signature"]);
    op.signer = str(v["signer_member_id"]);
    for (const auto& b : v["blob_ids"].GetArray()) op.blob_ids.push_back(str(b));
    op.envelope_hash = crypto::b64url_encode(crypto::blake3_256(op.envelope));
    op.stored_size = static_cast<long long>(op.envelope.size() + op.signature.size());
    return op;
}

std::string pg_text_array(const std::vector<std::string>& items) {
    std::string out = "{";  // blob ids are b64url: no character needs quoting
    for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + items[i];
    return out + "}";
}

// The outcome of one op, in the shape of the results array.
struct Result {
    std::string status;  // applied | conflict | rejected
    long long seq = 0;
    std::string code, message, head_revision_id;
};

Result applied(long long seq) { return Result{"applied", seq, "", "", ""}; }
Result conflict(std::string code, std::string message, std::string head = "") {
    return Result{"conflict", 0, std::move(code), std::move(message), std::move(head)};
}
Result rejected(std::string code, std::string message) {
    return Result{"rejected", 0, std::move(code), std::move(message), ""};
}

// The running state of one commit inside its transaction.
class Batch {
public:
    Batch(db::Conn& conn, const auth::Caller& caller, const PouchRow& pouch, long long limit,
          long long committed)
        : conn_(conn), caller_(caller), pouch_(pouch), high_water_(pouch.high_water),
          limit_(limit), committed_(committed) {}

    Result run(const Op& op) {
        if (op.type != "put" && op.type != "delete")
            return rejected("invalid_type", "type must be put or delete");

        db::Result existing = conn_.exec(sql::kRevision, {pouch_.id, op.revision_id});
        if (existing.rows() == 1 && existing.text(0, "artifact_id") == op.artifact_id &&
            existing.text(0, "envelope_hash") == op.envelope_hash)
            return applied(existing.int64(0, "seq"));  // a retry of a stored revision

        if (caller_.is_cli()) {
            if (op.signer != caller_.member_id)
                return rejected("signer_mismatch", "a device signs only as its own member");
        } else if (!active_member(op.signer)) {
            return rejected("unknown_member", "signer is not an active member of the account");
        }
        if (op.key_gen != pouch_.key_gen)
            return rejected("stale_key_gen",
                            "key_gen must be the pouch's current " + std::to_string(pouch_.key_gen));
        if (!op.blob_ids.empty()) {
            db::Result n = conn_.exec(sql::kUploadedBlobs, {caller_.account_id, pg_text_array(op.blob_ids)});
            if (n.rows() != static_cast<int>(op.blob_ids.size()))
                return rejected("missing_blob", "a referenced blob has not been uploaded");
        }
        if (existing.rows() == 1)
            return rejected("revision_exists", "revision_id already names a different revision");

        db::Result artifact = conn_.exec(sql::kArtifact, {pouch_.id, op.artifact_id});
        bool exists = artifact.rows() == 1;
        std::string head = exists ? artifact.text(0, "head_revision_id") : "";
        if (op.base && !exists) return rejected("not_found", "the artifact does not exist");
        if (op.merge_parent && !revision_of_artifact(*op.merge_parent, op.artifact_id))
            return rejected("not_found", "merge_parent_id is not a revision of this artifact");
        if (!op.base) {
            if (op.type == "put" && exists)
                return conflict("artifact_exists", "the artifact already exists", head);
            if (op.type == "delete") {
                if (!exists) return rejected("not_found", "the artifact does not exist");
                return conflict("stale_base", "base_revision_id is not the current head", head);
            }
        } else if (*op.base != head) {
            return conflict("stale_base", "base_revision_id is not the current head", head);
        }
        if (committed_ + delta_ + op.stored_size > limit_)
            return rejected("quota_exceeded", "the revision would exceed the plan's storage");

        write(op);
        return applied(high_water_);
    }

    long long high_water() const { return high_water_; }
    long long delta() const { return delta_; }
    bool wrote() const { return high_water_ != pouch_.high_water; }

private:
    // By primary key, the artifact compared here: a lookup only the primary key can serve.
    bool revision_of_artifact(const std::string& revision_id, const std::string& artifact_id) {
        db::Result r = conn_.exec(sql::kRevision, {pouch_.id, revision_id});
        return r.rows() == 1 && r.text(0, "artifact_id") == artifact_id;
    }

    bool active_member(const std::string& id) {
        if (members_ok_.count(id)) return true;
        if (conn_.exec(sql::kActiveMember, {id, caller_.account_id}).rows() == 0) return false;
        members_ok_.insert(id);
        return true;
    }

    // Writes inside a savepoint: if a statement fails, the batch's earlier ops stay.
    void write(const Op& op) {
        long long seq = high_water_ + 1;
        db::Param device = caller_.is_cli() ? db::Param(caller_.device_id) : db::Param();
        conn_.exec_sql("SAVEPOINT op");
        try {
            conn_.exec(sql::kInsertRevision,
                       {pouch_.id, op.revision_id, op.artifact_id, std::to_string(seq), op.type,
                        param(op.base), param(op.merge_parent), param(op.conflict_id),
                        std::to_string(op.key_gen), op.envelope, op.envelope_hash, op.signature,
                        op.signer, std::to_string(op.stored_size), caller_.is_cli() ? "cli" : "web",
                        pg_text_array(op.blob_ids), device});
            conn_.exec(sql::kUpsertArtifact,
                       {pouch_.id, op.artifact_id, op.revision_id, std::to_string(seq),
                        param(op.name_index), op.type == "delete" ? "true" : "false"});
            conn_.exec(sql::kInsertEvent,
                       {pouch_.id, pouch_.epoch, std::to_string(seq), op.artifact_id,
                        op.revision_id, device});
            conn_.exec_sql("RELEASE SAVEPOINT op");
        } catch (const db::Error& e) {
            if (!e.connection_lost) conn_.exec_sql("ROLLBACK TO SAVEPOINT op");
            throw;
        }
        high_water_ = seq;
        delta_ += op.stored_size;
    }

    db::Conn& conn_;
    const auth::Caller& caller_;
    const PouchRow& pouch_;
    long long high_water_;
    long long limit_, committed_, delta_ = 0;
    std::set<std::string> members_ok_;
};

std::string render(const std::vector<Op>& ops, const std::vector<Result>& results,
                   long long high_water) {
    json::Out o;
    o.key("results").arr();
    for (size_t i = 0; i < ops.size(); ++i) {
        const Result& r = results[i];
        o.obj().kv("status", r.status);
        o.kv("artifact_id", ops[i].artifact_id).kv("revision_id", ops[i].revision_id);
        if (r.status == "applied") {
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

void verify_signature(const auth::Caller& c, const Request& req, const std::string& body_hash) {
    const std::string& header = req.header("service-signature");
    if (header.empty())
        throw ApiError(401, "invalid_signature", "a CLI commit needs a Service-Signature header");
    auto key = crypto::P256PublicKey::from_jwk(c.sign_x, c.sign_y);
    if (!key || !crypto::verify_service_signature(header, body_hash, *key))
        throw ApiError(401, "invalid_signature",
                       "Service-Signature does not verify over this body with the device key");
}

}  // namespace

Response commit(Request& req, Services& s) {
    auth::Caller c = auth::authenticate(req, s);
    rapidjson::Document doc = json::parse_strict(req.body);
    std::optional<std::string> canonical = json::jcs(doc);
    if (!canonical)
        throw validation_failed("", "the body has a value JSON canonicalization cannot represent "
                                    "exactly (non-integer or out-of-range number)");
    std::string body_hash = crypto::blake3_256(*canonical);
    if (c.is_cli()) verify_signature(c, req, body_hash);

    std::string pouch_id = req.param("pouchId");
    auto conn = s.db.acquire();
    load_pouch(*conn, pouch_id, c);  // 404 before a word about the body
    js::validate(doc, commit_schema());
    std::vector<Op> ops;
    for (const auto& v : doc["ops"].GetArray()) ops.push_back(decode(v));
    std::string operation_id = str(doc["operation_id"]);
    std::string stored_hash = crypto::b64url_encode(body_hash);

    db::Transaction tx(*conn);
    PouchRow pouch = load_pouch(*conn, pouch_id, c, true);
    if (str(doc["epoch"]) != pouch.epoch) {
        json::Out d;
        d.kv("current_epoch", pouch.epoch).kv("high_water", pouch.high_water);
        throw ApiError(409, "epoch_mismatch", "the pouch's event log has another epoch")
            .with_details(d.done());
    }
    db::Result prior = conn->exec(sql::kStoredCommit, {pouch.id, operation_id});
    if (prior.rows() == 1) {
        if (prior.text(0, "body_hash") != stored_hash)
            throw ApiError(409, "operation_id_reused",
                           "operation_id was used for a different body");
        Response replay;
        replay.data = prior.text(0, "response");
        return replay;
    }

    db::Result quota = conn->exec(sql::kQuota, {c.account_id});
    Batch batch(*conn, c, pouch, quota.int64(0, "storage_bytes"), quota.int64(0, "committed"));
    std::vector<Result> results;
    for (const Op& op : ops) results.push_back(batch.run(op));
    if (batch.wrote())
        conn->exec(sql::kAdvancePouch, {pouch.id, std::to_string(batch.high_water()),
                                        std::to_string(batch.delta())});
    std::string data = render(ops, results, batch.high_water());
    conn->exec(sql::kStoreCommit, {pouch.id, operation_id, stored_hash, data});
    tx.commit();

    if (batch.wrote()) s.redis.publish(model::events_channel(pouch.id), "1");
    Response resp;
    resp.data = std::move(data);
    return resp;
}

}  // namespace pouch::sync
