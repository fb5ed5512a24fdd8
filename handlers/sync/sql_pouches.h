// sql_pouches.h -- statements of the pouch and key-envelope endpoints of the sync group.
#pragma once

#include "common/db/pool.h"
#include "common/paging/paging.h"

namespace pouch::sync::sql {

#define POUCH_JSON_COLUMNS "id, epoch, key_gen, high_water, iso(created_at) AS created_at"

// One page (decisions §13): after ($2 created µs, $3 id), at most $4 rows; $2 NULL = start.
inline const db::Statement kListPouches{
    "sync_list_pouches",
    "SELECT " POUCH_JSON_COLUMNS ", " POUCH_PAGING_MICROS("created_at") " AS created_us"
    "  FROM pouches WHERE account_id = $1"
    "   AND ($2::bigint IS NULL OR (created_at, id) > (" POUCH_PAGING_FROM_MICROS("$2") ", $3::uuid))"
    " ORDER BY created_at, id LIMIT $4"};

inline const db::Statement kLockAccountPlan{
    "sync_lock_account_plan",
    "SELECT p.pouch_limit, (SELECT count(*) FROM pouches WHERE account_id = a.id) AS pouches"
    "  FROM storage_accounts a JOIN plans p ON p.id = a.plan_id"
    " WHERE a.id = $1 FOR UPDATE OF a"};

inline const db::Statement kInsertPouch{
    "sync_insert_pouch",
    "INSERT INTO pouches (id, account_id, epoch, key_gen) VALUES ($1, $2, $3, $4)"
    " RETURNING " POUCH_JSON_COLUMNS};

// One page (decisions §13) in (key_gen, member_id) order after ($4, $5), at most $6 rows;
// $4 NULL = start. $2/$3 filter by member and key_gen when not NULL. Rows come only while the
// stored bytes of the rows before them stay within $7 (the page budget), so a page never
// reads 1,000 envelopes of 6 KB; `fetched` counts the rows before that cut.
inline const db::Statement kListEnvelopes{
    "sync_list_envelopes",
    "SELECT * FROM ("
    "  SELECT pouch_id, member_id, key_gen, hpke_enc, ciphertext, created_by_member, signature,"
    "         iso(created_at) AS created_at,"
    "         coalesce(sum(envelope_bytes(hpke_enc, ciphertext, signature)) OVER w, 0)"
    "           - envelope_bytes(hpke_enc, ciphertext, signature) AS bytes_before,"
    "         count(*) OVER () AS fetched"
    "    FROM (SELECT * FROM key_envelopes"
    "           WHERE pouch_id = $1 AND ($2::uuid IS NULL OR member_id = $2)"
    "             AND ($3::bigint IS NULL OR key_gen = $3)"
    "             AND ($4::bigint IS NULL OR (key_gen, member_id) > ($4::bigint, $5::uuid))"
    "           ORDER BY key_gen, member_id LIMIT $6) k"
    "  WINDOW w AS (ORDER BY key_gen, member_id ROWS UNBOUNDED PRECEDING)) page"
    " WHERE bytes_before <= $7::bigint ORDER BY key_gen, member_id"};

// decisions §5.6: pending while some active member lacks an envelope at the current key_gen.
inline const db::Statement kPouchRotationPending{
    "sync_pouch_rotation_pending",
    "SELECT p.key_gen, EXISTS ("
    "  SELECT 1 FROM members m WHERE m.account_id = p.account_id AND m.removed_at IS NULL"
    "     AND NOT EXISTS (SELECT 1 FROM key_envelopes k WHERE k.pouch_id = p.id"
    "                        AND k.member_id = m.id AND k.key_gen = p.key_gen)) AS pending"
    "  FROM pouches p WHERE p.id = $1"};

}  // namespace pouch::sync::sql
