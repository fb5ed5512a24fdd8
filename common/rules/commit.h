// commit.h -- the per-op decision of a commit (decisions §5.3) as a pure function of the op and
// what the pouch holds, so the decided check order is proved by table tests and the handler
// only loads the state (a few set queries) and writes what applied (one statement per table).
// Ops of one batch are decided in order against one PouchState that each applied op updates,
// so later ops may build on earlier ones exactly as if each had been written first.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace pouch::rules {

// One op of a commit, decoded (ids canonical).
struct CommitOp {
    std::string type, artifact_id, revision_id, envelope_hash, signer;
    std::optional<std::string> base, merge_parent;
    long long key_gen = 0;
    long long stored_size = 0;  // bytes of envelope + signature
    std::vector<std::string> blob_ids;
};

struct StoredRevision {
    std::string artifact_id, envelope_hash;
    long long seq = 0;
};

// What the decisions read: loaded once per commit under the pouch lock, then updated by every
// op that applies.
struct PouchState {
    long long key_gen = 0;
    long long high_water = 0;
    long long limit_bytes = 0;  // the plan's storage
    long long used_bytes = 0;   // stored + reserved, plus what this batch applied
    bool cli = false;
    std::string caller_member;               // a CLI signs only as this member
    std::set<std::string> active_members;    // a web caller's signers must be among them
    std::set<std::string> blobs;             // uploaded blob ids of the account (of the batch)
    std::map<std::string, StoredRevision> revisions;  // by revision id (of the batch's ids)
    std::map<std::string, std::string> heads;         // artifact id -> head revision id
};

struct Decision {
    enum class Status { applied, conflict, rejected };
    Status status = Status::rejected;
    std::string code, message;
    std::string head_revision_id;  // conflict: the current head
    long long seq = 0;             // applied: the op's seq
    bool fresh = false;            // applied now (to be written), not a retry of a stored one
};

// Decides `op` (decisions §5.3 order: invalid_type; an identical stored revision is applied
// with its seq; signer_mismatch / unknown_member; stale_key_gen; missing_blob;
// revision_exists; not_found; artifact_exists; stale_base; quota_exceeded) and, when it
// applies fresh, updates `state` as writing it will: next seq, revision, head, bytes.
Decision decide(const CommitOp& op, PouchState& state);

const char* status_name(Decision::Status s);

}  // namespace pouch::rules
