// types.h -- the sync group's requests and answers (besides the commit's, commit_types.h), each
// described once (json/described.h: schema, decoder, writer) and, where a statement returns
// one, read as its row (db/query.h: a described struct's JSON names are its columns).
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "common/crypto/b64url.h"
#include "common/db/query.h"
#include "common/json/described.h"

namespace pouch::sync {

namespace js = json::schema;

inline constexpr long long kMaxBlobSize =
    64LL * 1024 * 1024;  // decisions §5.5, = upload body limit

// A blob id names 32 bytes (BLAKE3-256): 43 b64url characters whose unused bits are zero, so
// every blob has exactly one id.
inline bool is_canonical_blob_id(std::string_view id) {
    if (id.size() != 43) return false;
    auto raw = crypto::b64url_decode(id);
    return raw && raw->size() == 32;
}

// ---- pouches -----------------------------------------------------------------------------------

// The pouch object of decisions §5.1.
// The caller's `role`, the owner (who pays) and whether the pouch has an access list
// (docs/SHARING.md §9).
struct Pouch {
    std::string id{}, epoch{};
    long long key_gen = 0, high_water = 0;
    long long file_changes = 0;  // revision events in the log (sql/013): a person's "changes"
    std::string created_at{};
    std::string role{}, owner_account_id{};
    bool shared = false;
    static auto json_fields() {
        return std::tuple{json::field("id", &Pouch::id), json::field("epoch", &Pouch::epoch),
                          json::field("key_gen", &Pouch::key_gen),
                          json::field("high_water", &Pouch::high_water),
                          json::field("file_changes", &Pouch::file_changes),
                          json::field("created_at", &Pouch::created_at),
                          json::field("role", &Pouch::role),
                          json::field("owner_account_id", &Pouch::owner_account_id),
                          json::field("shared", &Pouch::shared)};
    }
};

// POST key-envelopes: the pouch's key_gen after the request, and whether some active member
// still lacks an envelope at it (decisions §5.6).
struct EnvelopesAnswer {
    long long key_gen = 0;
    bool rotation_pending = false;
    static auto json_fields() {
        return std::tuple{json::field("key_gen", &EnvelopesAnswer::key_gen),
                          json::field("rotation_pending", &EnvelopesAnswer::rotation_pending)};
    }
};

// A stored key envelope as GET key-envelopes lists it (interface "Key envelope").
struct KeyEnvelope {
    std::string pouch_id{}, member_id{};
    long long key_gen = 0;
    std::string hpke_enc{}, ciphertext{}, created_by_member{}, signature{}, created_at{};
    static auto json_fields() {
        return std::tuple{json::field("pouch_id", &KeyEnvelope::pouch_id),
                          json::field("member_id", &KeyEnvelope::member_id),
                          json::field("key_gen", &KeyEnvelope::key_gen),
                          json::field("hpke_enc", &KeyEnvelope::hpke_enc),
                          json::field("ciphertext", &KeyEnvelope::ciphertext),
                          json::field("created_by_member", &KeyEnvelope::created_by_member),
                          json::field("signature", &KeyEnvelope::signature),
                          json::field("created_at", &KeyEnvelope::created_at)};
    }
};

// ---- artifacts and revisions -------------------------------------------------------------------

// The Revision object (interface "Revision", plus the additive fields seq, kind,
// base_revision_id, merge_parent_id, conflict_id). Read from the rev_* columns of
// POUCH_REVISION_COLUMNS (sql_reads.h) by revision_columns().
struct Revision {
    std::string id{}, artifact_id{}, envelope{}, envelope_hash{}, signature{},
        signer_member_id{};
    long long key_gen = 0, stored_size = 0;
    std::string origin{};
    json::Raw blob_ids{};  // a JSON array of b64url ids, as PostgreSQL writes the text[]
    std::string created_at{};
    long long seq = 0;
    std::string kind{};
    std::optional<std::string> base_revision_id{}, merge_parent_id{}, conflict_id{};

    static auto json_fields() {
        return std::tuple{
            json::field("id", &Revision::id),
            json::field("artifact_id", &Revision::artifact_id),
            json::field("envelope", &Revision::envelope),
            json::field("envelope_hash", &Revision::envelope_hash),
            json::field("signature", &Revision::signature),
            json::field("signer_member_id", &Revision::signer_member_id),
            json::field("key_gen", &Revision::key_gen),
            json::field("stored_size", &Revision::stored_size),
            json::field("origin", &Revision::origin),
            json::field("blob_ids", &Revision::blob_ids, js::array(js::string())),
            json::field("created_at", &Revision::created_at),
            json::field("seq", &Revision::seq),
            json::field("kind", &Revision::kind),
            json::field("base_revision_id", &Revision::base_revision_id),
            json::field("merge_parent_id", &Revision::merge_parent_id),
            json::field("conflict_id", &Revision::conflict_id),
        };
    }
    // The same members under the column names POUCH_REVISION_COLUMNS gives them.
    static auto revision_columns() {
        return std::tuple{
            db::col("rev_id", &Revision::id),
            db::col("rev_artifact_id", &Revision::artifact_id),
            db::col("rev_envelope", &Revision::envelope),
            db::col("rev_envelope_hash", &Revision::envelope_hash),
            db::col("rev_signature", &Revision::signature),
            db::col("rev_signer_member_id", &Revision::signer_member_id),
            db::col("rev_key_gen", &Revision::key_gen),
            db::col("rev_stored_size", &Revision::stored_size),
            db::col("rev_origin", &Revision::origin),
            db::col("rev_blob_ids", &Revision::blob_ids),
            db::col("rev_created_at", &Revision::created_at),
            db::col("rev_seq", &Revision::seq),
            db::col("rev_kind", &Revision::kind),
            db::col("rev_base_revision_id", &Revision::base_revision_id),
            db::col("rev_merge_parent_id", &Revision::merge_parent_id),
            db::col("rev_conflict_id", &Revision::conflict_id),
        };
    }
};

// An event as GET .../events lists it (decisions §5.2); key_gen and, on a revision event,
// revision (null past the page's inline budget) are the extension of docs/SYNC.md.
struct Event {
    long long seq = 0;
    std::string kind{};
    std::optional<std::string> artifact_id{}, revision_id{}, device_id{};
    std::string created_at{};
    std::optional<long long> key_gen{};
    std::optional<std::optional<Revision>> revision{};  // absent unless kind is revision
    static auto json_fields() {
        return std::tuple{json::field("seq", &Event::seq),
                          json::field("kind", &Event::kind),
                          json::field("artifact_id", &Event::artifact_id),
                          json::field("revision_id", &Event::revision_id),
                          json::field("device_id", &Event::device_id),
                          json::field("created_at", &Event::created_at),
                          json::field("key_gen", &Event::key_gen),
                          json::field("revision", &Event::revision).omit()};
    }
};

struct EventsPage {
    std::vector<Event> items{};
    long long high_water = 0;
    static auto json_fields() {
        return std::tuple{json::field("items", &EventsPage::items),
                          json::field("high_water", &EventsPage::high_water)};
    }
};

// An artifact as GET .../artifacts lists it. head is never null in practice: artifacts_head_fk
// keeps every head revision stored (sql/001_init.sql).
struct Artifact {
    std::string id{}, name_index{}, updated_at{};
    std::optional<Revision> head{};
    static auto json_fields() {
        return std::tuple{json::field("id", &Artifact::id),
                          json::field("name_index", &Artifact::name_index),
                          json::field("updated_at", &Artifact::updated_at),
                          json::field("head", &Artifact::head)};
    }
};

// ---- blobs -------------------------------------------------------------------------------------

// A blob id with its size: an item of a check request, a reservation to store, and the answer of
// an upload.
struct BlobSize {
    std::string id{};
    long long stored_size = 0;
    static auto json_fields() {
        return std::tuple{
            json::field("id", &BlobSize::id,
                        js::b64url().check(is_canonical_blob_id,
                                           "a blob id (43 b64url characters encoding 32 bytes)")),
            json::field("stored_size", &BlobSize::stored_size,
                        js::integer().min(1).max(kMaxBlobSize)),
        };
    }
};

// 1,000 ids at most.
struct CheckRequest {
    std::vector<BlobSize> blobs{};
    static auto json_fields() {
        return std::tuple{json::field("blobs", &CheckRequest::blobs,
                                      js::array(json::schema_of<BlobSize>()).max_items(1000))};
    }
};

// The ids the account has neither stored nor reserved before this check (now reserved).
struct CheckAnswer {
    std::vector<std::string> missing{};
    static auto json_fields() { return std::tuple{json::field("missing", &CheckAnswer::missing)}; }
};

}  // namespace pouch::sync
