// sql.h -- every statement of the devices group.
#pragma once

#include "common/db/pool.h"
#include "common/paging/paging.h"

namespace pouch::devices::sql {

// decisions §6: rotation is pending while some pouch the member (SQL expression MEMBER, of
// account ACCOUNT) held a key for lacks, for some remaining member, an envelope at a higher
// key_gen than the member's newest.
#define POUCH_ROTATION_PENDING(MEMBER, ACCOUNT)                                \
    "EXISTS ("                                                                 \
    "  SELECT 1 FROM (SELECT pouch_id, max(key_gen) AS gen FROM key_envelopes" \
    "                  WHERE member_id = " MEMBER                              \
    " GROUP BY pouch_id) held"                                                 \
    "   WHERE EXISTS (SELECT 1 FROM members m"                                 \
    "                  WHERE m.account_id = " ACCOUNT                          \
    " AND m.removed_at IS NULL"                                                \
    "                    AND NOT EXISTS (SELECT 1 FROM key_envelopes k"        \
    "                                     WHERE k.pouch_id = held.pouch_id"    \
    "                                       AND k.member_id = m.id AND k.key_gen > held.gen)))"

// One page (decisions §13): after ($2 created µs, $3 id), at most $4 rows; $2 NULL = start.
// rotation_pending: for a revoked device, whether its key rotation is still owed.
inline const db::Statement kListDevices{
    "devices_list",
    "SELECT id, name, member_id, os, arch, cli_version, key_storage, iso(created_at) AS created_at,"
    "       iso(last_seen_at) AS last_seen_at, iso(revoked_at) AS revoked_at,"
    "       " POUCH_PAGING_MICROS("created_at") " AS created_us,"
    "       revoked_at IS NOT NULL AND " POUCH_ROTATION_PENDING("devices.member_id", "$1") " AS rotation_pending"
    "  FROM devices WHERE account_id = $1"
    "   AND ($2::bigint IS NULL OR (created_at, id) > (" POUCH_PAGING_FROM_MICROS("$2") ", $3::uuid))"
    " ORDER BY created_at, id LIMIT $4"};

inline const db::Statement kRenameDevice{
    "devices_rename",
    "UPDATE devices SET name = $3 WHERE id = $1 AND account_id = $2 RETURNING id, name"};

inline const db::Statement kLockDevice{
    "devices_lock",
    "SELECT id, member_id, revoked_at IS NOT NULL AS revoked FROM devices"
    " WHERE id = $1 AND account_id = $2 FOR UPDATE"};

inline const db::Statement kRevokeDevice{
    "devices_revoke", "UPDATE devices SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL"};

inline const db::Statement kRemoveMember{
    "devices_remove_member",
    "UPDATE members SET removed_at = now() WHERE id = $1 AND removed_at IS NULL"};

// decisions §6, for the revoked member $1 of account $2 (POUCH_ROTATION_PENDING above).
inline const db::Statement kRotationPending{
    "devices_rotation_pending", "SELECT " POUCH_ROTATION_PENDING("$1", "$2") " AS pending"};

inline const db::Statement kPouchForCursor{
    "devices_pouch_for_cursor",
    "SELECT epoch, high_water FROM pouches WHERE id = $1 AND account_id = $2"};

// Only ever moves forward: a stale or repeated report keeps the stored value.
inline const db::Statement kStoreCursor{
    "devices_store_cursor",
    "INSERT INTO device_cursors (device_id, pouch_id, epoch, acked_seq) VALUES ($1, $2, $3, $4)"
    " ON CONFLICT (device_id, pouch_id, epoch) DO UPDATE"
    "   SET acked_seq = greatest(device_cursors.acked_seq, EXCLUDED.acked_seq),"
    "       updated_at = now()"
    " RETURNING acked_seq"};

}  // namespace pouch::devices::sql
