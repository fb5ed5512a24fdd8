// commit.cpp -- decide() of commit.h: the checks of decisions §5.3 in their order, each a
// lookup in PouchState, and the state change of an applied op.
#include "common/rules/commit.h"

#include "common/rules/quota.h"

namespace pouch::rules {

namespace {

Decision result(Decision::Status s, std::string code, std::string message, std::string head = "") {
    Decision d;
    d.status = s;
    d.code = std::move(code);
    d.message = std::move(message);
    d.head_revision_id = std::move(head);
    return d;
}

Decision rejected(std::string code, std::string message) {
    return result(Decision::Status::rejected, std::move(code), std::move(message));
}

Decision conflict(std::string code, std::string message, std::string head) {
    return result(Decision::Status::conflict, std::move(code), std::move(message), std::move(head));
}

Decision applied(long long seq, bool fresh) {
    Decision d;
    d.status = Decision::Status::applied;
    d.seq = seq;
    d.fresh = fresh;
    return d;
}

}  // namespace

const char* status_name(Decision::Status s) {
    switch (s) {
        case Decision::Status::applied: return "applied";
        case Decision::Status::conflict: return "conflict";
        case Decision::Status::rejected: return "rejected";
    }
    return "rejected";
}

Decision decide(const CommitOp& op, PouchState& st) {
    if (op.type != "put" && op.type != "delete")
        return rejected("invalid_type", "type must be put or delete");

    auto existing = st.revisions.find(op.revision_id);
    bool stored = existing != st.revisions.end();
    if (stored && existing->second.artifact_id == op.artifact_id &&
        existing->second.envelope_hash == op.envelope_hash)
        return applied(existing->second.seq, false);  // a retry of a stored revision

    if (st.cli) {
        if (op.signer != st.caller_member)
            return rejected("signer_mismatch", "a device signs only as its own member");
    } else if (!st.active_members.count(op.signer)) {
        return rejected("unknown_member", "signer is not an active member of the account");
    }
    if (op.key_gen != st.key_gen)
        return rejected("stale_key_gen",
                        "key_gen must be the pouch's current " + std::to_string(st.key_gen));
    for (const auto& b : op.blob_ids)
        if (!st.blobs.count(b))
            return rejected("missing_blob", "a referenced blob has not been uploaded");
    if (stored) return rejected("revision_exists", "revision_id already names a different revision");

    auto head_it = st.heads.find(op.artifact_id);
    bool exists = head_it != st.heads.end();
    std::string head = exists ? head_it->second : "";
    if (op.base && !exists) return rejected("not_found", "the artifact does not exist");
    if (op.merge_parent) {
        auto parent = st.revisions.find(*op.merge_parent);
        if (parent == st.revisions.end() || parent->second.artifact_id != op.artifact_id)
            return rejected("not_found", "merge_parent_id is not a revision of this artifact");
    }
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
    if (check_request(Usage{st.limit_bytes, st.used_bytes, 0}, op.stored_size))
        return rejected("quota_exceeded", "the revision would exceed the plan's storage");

    long long seq = ++st.high_water;
    st.revisions[op.revision_id] = StoredRevision{op.artifact_id, op.envelope_hash, seq};
    st.heads[op.artifact_id] = op.revision_id;
    st.used_bytes += op.stored_size;
    return applied(seq, true);
}

}  // namespace pouch::rules
