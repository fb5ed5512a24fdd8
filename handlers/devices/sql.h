// sql.h -- every statement of the devices group.
#pragma once

#include "common/db/keys.h"
#include "common/db/query.h"
#include "common/paging/paging.h"
#include "handlers/devices/types.h"

namespace pouch::devices::sql {

using db::ById;
using db::PouchOfAccount;

// ---- parameters and rows ------------------------------------------------------------------------

struct ListParams {
    std::string account_id;
    std::optional<long long> after_us;  // the page key (paging.h); both NULL from the start
    std::optional<std::string> after_id;
    long long limit = 0;
    static auto db_params() {
        return std::tuple{db::col("account_id", &ListParams::account_id),
                          db::col("after_us", &ListParams::after_us),
                          db::col("after_id", &ListParams::after_id),
                          db::col("limit", &ListParams::limit)};
    }
};

struct DeviceOfAccount {
    std::string id, account_id;
    static auto db_params() {
        return std::tuple{db::col("id", &DeviceOfAccount::id),
                          db::col("account_id", &DeviceOfAccount::account_id)};
    }
};

struct RenameParams {
    std::string id, account_id, name;
    static auto db_params() {
        return std::tuple{db::col("id", &RenameParams::id),
                          db::col("account_id", &RenameParams::account_id),
                          db::col("name", &RenameParams::name)};
    }
};

struct LockedDevice {
    std::string id, member_id;
    bool revoked = false;
    static auto db_columns() {
        return std::tuple{db::col("id", &LockedDevice::id),
                          db::col("member_id", &LockedDevice::member_id),
                          db::col("revoked", &LockedDevice::revoked)};
    }
};

struct MemberOfAccount {
    std::string member_id, account_id;
    static auto db_params() {
        return std::tuple{db::col("member_id", &MemberOfAccount::member_id),
                          db::col("account_id", &MemberOfAccount::account_id)};
    }
};

struct Pending {
    bool pending = false;
    static auto db_columns() { return std::tuple{db::col("pending", &Pending::pending)}; }
};

struct PouchLog {
    std::string epoch;
    long long high_water = 0;
    static auto db_columns() {
        return std::tuple{db::col("epoch", &PouchLog::epoch),
                          db::col("high_water", &PouchLog::high_water)};
    }
};

struct CursorParams {
    std::string device_id, pouch_id, epoch;
    long long acked_seq = 0;
    static auto db_params() {
        return std::tuple{db::col("device_id", &CursorParams::device_id),
                          db::col("pouch_id", &CursorParams::pouch_id),
                          db::col("epoch", &CursorParams::epoch),
                          db::col("acked_seq", &CursorParams::acked_seq)};
    }
};

struct AckedSeq {
    long long acked_seq = 0;
    static auto db_columns() { return std::tuple{db::col("acked_seq", &AckedSeq::acked_seq)}; }
};

// ---- statements ---------------------------------------------------------------------------------

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
inline const db::Query<ListParams, DeviceRow> kListDevices{
    "devices_list",
    "SELECT id, name, member_id, os, arch, cli_version, key_storage, iso(created_at) AS created_at,"
    "       iso(last_seen_at) AS last_seen_at, iso(revoked_at) AS revoked_at,"
    "       revoked_at IS NOT NULL AND " POUCH_ROTATION_PENDING("devices.member_id", "$1") " AS rotation_pending,"
    "       " POUCH_PAGING_MICROS("created_at") " AS created_us"
    "  FROM devices WHERE account_id = $1"
    "   AND ($2::bigint IS NULL OR (created_at, id) > (" POUCH_PAGING_FROM_MICROS("$2") ", $3::uuid))"
    " ORDER BY created_at, id LIMIT $4"};

inline const db::Query<RenameParams, DeviceName> kRenameDevice{
    "devices_rename",
    "UPDATE devices SET name = $3 WHERE id = $1 AND account_id = $2 RETURNING id, name"};

inline const db::Query<DeviceOfAccount, LockedDevice> kLockDevice{
    "devices_lock",
    "SELECT id, member_id, revoked_at IS NOT NULL AS revoked FROM devices"
    " WHERE id = $1 AND account_id = $2 FOR UPDATE"};

inline const db::Query<ById> kRevokeDevice{
    "devices_revoke", "UPDATE devices SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL"};

inline const db::Query<ById> kRemoveMember{
    "devices_remove_member",
    "UPDATE members SET removed_at = now() WHERE id = $1 AND removed_at IS NULL"};

// decisions §6, for the revoked member $1 of account $2 (POUCH_ROTATION_PENDING above).
inline const db::Query<MemberOfAccount, Pending> kRotationPending{
    "devices_rotation_pending", "SELECT " POUCH_ROTATION_PENDING("$1", "$2") " AS pending"};

inline const db::Query<PouchOfAccount, PouchLog> kPouchForCursor{
    "devices_pouch_for_cursor",
    "SELECT p.epoch, p.high_water FROM pouches p JOIN pouch_access a ON a.pouch_id = p.id"
    " WHERE p.id = $1 AND a.account_id = $2 AND a.state = 'active'"};

// Only ever moves forward: a stale or repeated report keeps the stored value.
inline const db::Query<CursorParams, AckedSeq> kStoreCursor{
    "devices_store_cursor",
    "INSERT INTO device_cursors (device_id, pouch_id, epoch, acked_seq) VALUES ($1, $2, $3, $4)"
    " ON CONFLICT (device_id, pouch_id, epoch) DO UPDATE"
    "   SET acked_seq = greatest(device_cursors.acked_seq, EXCLUDED.acked_seq),"
    "       updated_at = now()"
    " RETURNING acked_seq"};

}  // namespace pouch::devices::sql
