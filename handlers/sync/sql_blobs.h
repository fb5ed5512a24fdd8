// sql_blobs.h -- every statement of the blob endpoints (decisions §5.5), named for what it
// does and typed by its parameter and row structs (common/db/query.h). Blob checks and uploads
// of one account serialise on its storage_accounts row; the usage they compare with the plan is
// read after that lock, so it includes every committed check and upload before it. Id lists
// travel as text[] of b64url ids, reservations as one jsonb array of BlobSize.
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "common/db/query.h"
#include "handlers/sync/types.h"

namespace pouch::sync::sql {

// ---- parameters and rows ------------------------------------------------------------------------

struct AccountParam {
    std::string account_id;
    static auto db_params() { return std::tuple{db::col("account_id", &AccountParam::account_id)}; }
};

struct AccountRow {
    std::string id;
    static auto db_columns() { return std::tuple{db::col("id", &AccountRow::id)}; }
};

struct BlobsOfAccount {
    std::string account_id;
    std::vector<std::string> blob_ids;
    static auto db_params() {
        return std::tuple{db::col("account_id", &BlobsOfAccount::account_id),
                          db::col("blob_ids", &BlobsOfAccount::blob_ids)};
    }
};

struct BlobId {
    std::string id;
    static auto db_columns() { return std::tuple{db::col("id", &BlobId::id)}; }
};

struct Reservation {
    std::string blob_id;
    long long stored_size = 0;
    static auto db_columns() {
        return std::tuple{db::col("blob_id", &Reservation::blob_id),
                          db::col("stored_size", &Reservation::stored_size)};
    }
};

struct ReserveParams {
    std::string account_id;
    db::Json<std::vector<BlobSize>> blobs;
    static auto db_params() {
        return std::tuple{db::col("account_id", &ReserveParams::account_id),
                          db::col("blobs", &ReserveParams::blobs)};
    }
};

struct BlobOfAccount {
    std::string account_id, blob_id;
    static auto db_params() {
        return std::tuple{db::col("account_id", &BlobOfAccount::account_id),
                          db::col("blob_id", &BlobOfAccount::blob_id)};
    }
};

struct StoredSize {
    long long stored_size = 0;
    static auto db_columns() {
        return std::tuple{db::col("stored_size", &StoredSize::stored_size)};
    }
};

struct BlobOrReservation {
    std::optional<long long> blob_size;      // stored: its size
    std::optional<long long> reserved_size;  // otherwise its active reservation's
    // and that reservation's created_at in microseconds since the epoch: the same value twice
    // means the same reservation row all along (a row deleted and made again, or renewed once
    // expired, gets a later one: kReserve)
    std::optional<long long> reserved_since;
    static auto db_columns() {
        return std::tuple{db::col("blob_size", &BlobOrReservation::blob_size),
                          db::col("reserved_size", &BlobOrReservation::reserved_size),
                          db::col("reserved_since", &BlobOrReservation::reserved_since)};
    }
};

struct RecordBlob {
    std::string account_id, blob_id;
    long long stored_size = 0;
    long long reserved_since = 0;
    static auto db_params() {
        return std::tuple{db::col("account_id", &RecordBlob::account_id),
                          db::col("blob_id", &RecordBlob::blob_id),
                          db::col("stored_size", &RecordBlob::stored_size),
                          db::col("reserved_since", &RecordBlob::reserved_since)};
    }
};

struct Recorded {
    std::string outcome;  // sql/016_blob_record.sql
    std::optional<long long> stored_size;
    static auto db_columns() {
        return std::tuple{db::col("outcome", &Recorded::outcome),
                          db::col("stored_size", &Recorded::stored_size)};
    }
};

// ---- statements ---------------------------------------------------------------------------------

inline const db::Query<AccountParam, AccountRow> kLockAccount{
    "blobs_lock_account", "SELECT id FROM storage_accounts WHERE id = $1 FOR UPDATE"};

inline const db::Query<BlobsOfAccount, BlobId> kPresentBlobs{
    "blobs_present", "SELECT id FROM blobs WHERE account_id = $1 AND id = ANY($2::text[])"};

inline const db::Query<BlobsOfAccount, Reservation> kActiveReservations{
    "blobs_active_reservations",
    "SELECT blob_id, stored_size FROM blob_reservations"
    " WHERE account_id = $1 AND blob_id = ANY($2::text[]) AND expires_at > now()"};

// Reserves (or re-reserves) each blob of the jsonb array $2 (BlobSize) for 24 h from now. An
// existing row takes the new size and expiry; it keeps its created_at unless it had already
// expired.
#define POUCH_BLOB_SIZE_RECORD "id text, stored_size bigint"
inline const db::Query<ReserveParams> kReserve{
    "blobs_reserve",
    "INSERT INTO blob_reservations (account_id, blob_id, stored_size, expires_at)"
    " SELECT $1, u.id, u.stored_size, now() + interval '24 hours'"
    "   FROM jsonb_to_recordset($2::jsonb) AS u(" POUCH_BLOB_SIZE_RECORD
    ")"
    " ON CONFLICT (account_id, blob_id) DO UPDATE"
    "   SET stored_size = EXCLUDED.stored_size, expires_at = EXCLUDED.expires_at,"
    "       created_at = CASE WHEN blob_reservations.expires_at > now()"
    "                         THEN blob_reservations.created_at ELSE now() END"};

inline const db::Query<BlobOfAccount, StoredSize> kBlob{
    "blobs_blob", "SELECT stored_size FROM blobs WHERE account_id = $1 AND id = $2"};

// Whether the blob is stored and, if not, its active reservation -- in one statement, so both
// come from one snapshot: read separately, an upload committing in between (which inserts the
// blob and deletes the reservation) would make the blob look neither stored nor reserved.
inline const db::Query<BlobOfAccount, BlobOrReservation> kBlobOrReservation{
    "blobs_blob_or_reservation",
    "SELECT (SELECT stored_size FROM blobs WHERE account_id = $1 AND id = $2) AS blob_size,"
    "       r.stored_size AS reserved_size,"
    "       (extract(epoch FROM r.created_at) * 1000000)::bigint AS reserved_since"
    "  FROM (SELECT 1) AS one LEFT JOIN blob_reservations r"
    "    ON r.account_id = $1 AND r.blob_id = $2 AND r.expires_at > now()"};

// An upload's row once its bytes are stored: under the account's lock, the blob and its
// reservation read again, and unless something changed (outcomes in sql/016_blob_record.sql;
// 'renewed': the reservation is not the one read before the bytes were sent, nothing
// written) the blob inserted, its reservation deleted and its bytes counted. One round trip,
// in its own transaction or in the caller's.
inline const db::Query<RecordBlob, Recorded> kRecordBlob{
    "blobs_record_blob", "SELECT outcome, stored_size FROM blob_record($1, $2, $3, $4)"};

}  // namespace pouch::sync::sql
