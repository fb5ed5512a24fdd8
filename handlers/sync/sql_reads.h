// sql_reads.h -- the statements of the sync group's read paths (decisions §5.2, §5.4):
// the event log page, the artifact list and an artifact's revision history. Pages are keyset
// pages (no OFFSET) that PostgreSQL answers from artifacts_keyset(_live), revisions_history
// and the events primary key, so page N costs what page 1 costs. The artifact and revision
// pages and the event page are typed statements (common/db/query.h).
#pragma once

#include "common/db/query.h"
#include "handlers/sync/types.h"

namespace pouch::sync::sql {

// ---- parameters and rows ------------------------------------------------------------------------

// The event page after `after`, at most `limit` events, only while the pouch is in `epoch`,
// inlining revisions within `inline_budget` stored bytes.
struct EventsPageParams {
    std::string pouch_id;
    long long after = 0, limit = 0;
    std::string epoch;
    long long inline_budget = 0;
    static auto db_params() {
        return std::tuple{db::col("pouch_id", &EventsPageParams::pouch_id),
                          db::col("after", &EventsPageParams::after),
                          db::col("limit", &EventsPageParams::limit),
                          db::col("epoch", &EventsPageParams::epoch),
                          db::col("inline_budget", &EventsPageParams::inline_budget)};
    }
};

// One row of the event page: the pouch's epoch and high_water on every row; the event's
// columns NULL in the one row of an empty page; the revision when it is inlined.
struct EventRow {
    std::string epoch;
    long long high_water = 0;
    std::optional<long long> seq;
    std::optional<std::string> kind, artifact_id, revision_id, device_id, created_at;
    std::optional<long long> ev_key_gen;
    std::optional<Revision> revision;
    static auto db_columns() {
        return std::tuple{db::col("epoch", &EventRow::epoch),
                          db::col("high_water", &EventRow::high_water),
                          db::col("seq", &EventRow::seq),
                          db::col("kind", &EventRow::kind),
                          db::col("artifact_id", &EventRow::artifact_id),
                          db::col("revision_id", &EventRow::revision_id),
                          db::col("device_id", &EventRow::device_id),
                          db::col("created_at", &EventRow::created_at),
                          db::col("ev_key_gen", &EventRow::ev_key_gen),
                          db::group(&EventRow::revision, Revision::revision_columns())};
    }
};

// A page of a pouch's artifacts after (after_seq, after_id), at most `limit` rows within
// `budget` stored bytes.
struct ArtifactsPageParams {
    std::string pouch_id;
    long long after_seq = 0;
    std::string after_id;
    long long limit = 0, budget = 0;
    static auto db_params() {
        return std::tuple{db::col("pouch_id", &ArtifactsPageParams::pouch_id),
                          db::col("after_seq", &ArtifactsPageParams::after_seq),
                          db::col("after_id", &ArtifactsPageParams::after_id),
                          db::col("limit", &ArtifactsPageParams::limit),
                          db::col("budget", &ArtifactsPageParams::budget)};
    }
};

// An artifact of a page with its head revision (the Revision members).
struct ArtifactRow : Revision {
    std::string artifact{}, name_index{}, updated_at{};
    long long head_seq = 0;
    long long bytes_before = 0, fetched = 0;  // the page's byte cut (paging::fetched)
    static auto db_columns() {
        return std::tuple_cat(std::tuple{db::col("id", &ArtifactRow::artifact),
                                         db::col("name_index", &ArtifactRow::name_index),
                                         db::col("updated_at", &ArtifactRow::updated_at),
                                         db::col("head_seq", &ArtifactRow::head_seq)},
                              Revision::revision_columns(),
                              std::tuple{db::col("bytes_before", &ArtifactRow::bytes_before),
                                         db::col("fetched", &ArtifactRow::fetched)});
    }
};

struct ArtifactOfPouch {
    std::string pouch_id, artifact_id;
    static auto db_params() {
        return std::tuple{db::col("pouch_id", &ArtifactOfPouch::pouch_id),
                          db::col("artifact_id", &ArtifactOfPouch::artifact_id)};
    }
};

struct Found {
    std::string id;
    static auto db_columns() { return std::tuple{db::col("id", &Found::id)}; }
};

// A page of an artifact's revisions with seq below `below`, at most `limit` rows within
// `budget` stored bytes.
struct RevisionsPageParams {
    std::string pouch_id, artifact_id;
    long long below = 0;
    long long limit = 0, budget = 0;
    static auto db_params() {
        return std::tuple{db::col("pouch_id", &RevisionsPageParams::pouch_id),
                          db::col("artifact_id", &RevisionsPageParams::artifact_id),
                          db::col("below", &RevisionsPageParams::below),
                          db::col("limit", &RevisionsPageParams::limit),
                          db::col("budget", &RevisionsPageParams::budget)};
    }
};

struct RevisionRow : Revision {
    long long bytes_before = 0, fetched = 0;
    static auto db_columns() {
        return std::tuple_cat(Revision::revision_columns(),
                              std::tuple{db::col("bytes_before", &RevisionRow::bytes_before),
                                         db::col("fetched", &RevisionRow::fetched)});
    }
};

// ---- statements ---------------------------------------------------------------------------------

// The Revision object's columns (Revision::revision_columns in types.h; the event page reads
// them as a db::group, absent when NULL) from a `revisions` row aliased `r`.
#define POUCH_REVISION_COLUMNS                                                               \
    "r.id AS rev_id, r.artifact_id AS rev_artifact_id, r.envelope AS rev_envelope,"          \
    " r.envelope_hash AS rev_envelope_hash, r.signature AS rev_signature,"                   \
    " r.signer_member_id AS rev_signer_member_id, r.key_gen AS rev_key_gen,"                 \
    " r.stored_size AS rev_stored_size, r.origin AS rev_origin,"                             \
    " array_to_json(r.blob_ids) AS rev_blob_ids, iso(r.created_at) AS rev_created_at,"       \
    " r.seq AS rev_seq, r.kind AS rev_kind, r.base_revision_id AS rev_base_revision_id,"     \
    " r.merge_parent_id AS rev_merge_parent_id, r.conflict_id AS rev_conflict_id"

// One page of the event log after $2, with the pouch's epoch and high_water read in the same
// snapshot (one statement), so high_water is never below the last seq returned. Events are
// only returned when the pouch is still in epoch $4. At least one row while the pouch exists;
// seq is NULL in it when there is no event. `ev_key_gen` is the revision's key_gen (revision
// events) or the one the event recorded (key_rotation, roster). A revision event's revision
// comes along (POUCH_REVISION_COLUMNS, NULL otherwise) while the stored bytes of the page's
// revisions up to and including it stay within $5 (the inline budget, docs/SYNC.md): only
// stored_size is read for the others, so a page of 1 MiB envelopes reads $5 bytes at most.
inline const db::Query<EventsPageParams, EventRow> kEventsPage{
    "sync_reads_events_page",
    "SELECT p.epoch, p.high_water, e.seq, e.kind, e.artifact_id, e.revision_id, e.device_id,"
    "       iso(e.created_at) AS created_at, coalesce(e.rev_key_gen, e.key_gen) AS ev_key_gen,"
    "       " POUCH_REVISION_COLUMNS
    "  FROM pouches p"
    "  LEFT JOIN LATERAL ("
    "       SELECT ev.*, s.key_gen AS rev_key_gen,"
    "              sum(s.stored_size) OVER (ORDER BY ev.seq) AS bytes_through"
    "         FROM (SELECT seq, kind, artifact_id, revision_id, device_id, created_at, key_gen"
    "                 FROM events"
    "                WHERE pouch_id = p.id AND epoch = p.epoch AND epoch = $4::uuid"
    "                  AND seq > $2::bigint"
    "                ORDER BY seq LIMIT $3::int) ev"
    "         LEFT JOIN LATERAL (SELECT stored_size, key_gen FROM revisions"
    "                             WHERE pouch_id = p.id AND id = ev.revision_id LIMIT 1) s"
    "           ON true) e ON true"
    "  LEFT JOIN LATERAL (SELECT * FROM revisions"
    "                      WHERE pouch_id = p.id AND id = e.revision_id"
    "                        AND e.bytes_through <= $5::bigint LIMIT 1) r ON true"
    " WHERE p.id = $1"
    " ORDER BY e.seq"};

// A list page of at most $4 rows (the handler asks for limit + 1 to learn whether more
// follow) from key ($2 head_seq, $3 id) on, with each artifact's head revision. Rows come
// only while the stored bytes (envelope + signature) of the rows before them stay within $5,
// so a page of 1 MiB envelopes never reads 500 MiB from the database; `fetched` counts the
// rows before that cut. The JSON of a row is never smaller than its stored bytes, so the
// handler's exact JSON budget stops no later than this cut. The head is a LATERAL lookup
// (LIMIT 1 keeps the planner from flattening it) so that even a generic plan, which cannot
// see the page size, fetches heads by primary key instead of hashing the pouch's revisions.
#define POUCH_ARTIFACTS_PAGE(LIVE)                                                         \
    "SELECT * FROM ("                                                                      \
    "  SELECT a.id, a.name_index, iso(a.updated_at) AS updated_at, a.head_seq, "           \
    POUCH_REVISION_COLUMNS ","                                                             \
    "         (coalesce(sum(r.stored_size) OVER w, 0) - coalesce(r.stored_size, 0))::bigint"\
    "           AS bytes_before,"                                                          \
    "         count(*) OVER () AS fetched"                                                 \
    "    FROM (SELECT id, name_index, updated_at, head_seq, head_revision_id"              \
    "            FROM artifacts"                                                           \
    "           WHERE pouch_id = $1" LIVE                                                  \
    "             AND (head_seq, id) > ($2::bigint, $3::uuid)"                             \
    "           ORDER BY head_seq, id LIMIT $4::int) a"                                    \
    "    LEFT JOIN LATERAL (SELECT * FROM revisions"                                       \
    "                        WHERE pouch_id = $1 AND id = a.head_revision_id LIMIT 1) r"   \
    "      ON true"                                                                        \
    "  WINDOW w AS (ORDER BY a.head_seq, a.id ROWS UNBOUNDED PRECEDING)) page"             \
    " WHERE bytes_before <= $5::bigint"                                                    \
    " ORDER BY head_seq, id"

inline const db::Query<ArtifactsPageParams, ArtifactRow> kLiveArtifactsPage{
    "sync_reads_live_artifacts_page", POUCH_ARTIFACTS_PAGE(" AND NOT deleted")};
inline const db::Query<ArtifactsPageParams, ArtifactRow> kAllArtifactsPage{
    "sync_reads_all_artifacts_page", POUCH_ARTIFACTS_PAGE("")};

inline const db::Query<ArtifactOfPouch, Found> kArtifactExists{
    "sync_reads_artifact_exists", "SELECT id FROM artifacts WHERE pouch_id = $1 AND id = $2"};

// Revisions of one artifact, newest first, with seq below $3; same row budget as above.
inline const db::Query<RevisionsPageParams, RevisionRow> kRevisionsPage{
    "sync_reads_revisions_page",
    "SELECT * FROM ("
    "  SELECT " POUCH_REVISION_COLUMNS ","
    "         (sum(r.stored_size) OVER w - r.stored_size)::bigint AS bytes_before,"
    "         count(*) OVER () AS fetched"
    "    FROM (SELECT * FROM revisions"
    "           WHERE pouch_id = $1 AND artifact_id = $2 AND seq < $3::bigint"
    "           ORDER BY seq DESC LIMIT $4::int) r"
    "  WINDOW w AS (ORDER BY r.seq DESC ROWS UNBOUNDED PRECEDING)) page"
    " WHERE bytes_before <= $5::bigint"
    " ORDER BY rev_seq DESC"};

}  // namespace pouch::sync::sql
