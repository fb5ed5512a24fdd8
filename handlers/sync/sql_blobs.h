// sql_blobs.h -- every statement of the blob endpoints (decisions §5.5), named for what it
// does. Blob checks and uploads of one account serialise on its storage_accounts row; the
// usage they compare with the plan is read after that lock, so it includes every committed
// check and upload before it. Id lists travel as text[] literals of b64url ids.
#pragma once

#include "common/db/pool.h"

namespace pouch::sync::sql {

inline const db::Statement kLockAccount{"blobs_lock_account",
                                        "SELECT id FROM storage_accounts WHERE id = $1 FOR UPDATE"};

inline const db::Statement kPresentBlobs{
    "blobs_present", "SELECT id FROM blobs WHERE account_id = $1 AND id = ANY($2::text[])"};

inline const db::Statement kActiveReservations{
    "blobs_active_reservations",
    "SELECT blob_id, stored_size FROM blob_reservations"
    " WHERE account_id = $1 AND blob_id = ANY($2::text[]) AND expires_at > now()"};

// Reserves (or re-reserves) each id for 24 h from now. An existing row takes the new size and
// expiry; it keeps its created_at unless it had already expired.
inline const db::Statement kReserve{
    "blobs_reserve",
    "INSERT INTO blob_reservations (account_id, blob_id, stored_size, expires_at)"
    " SELECT $1, u.id, u.size, now() + interval '24 hours'"
    "   FROM unnest($2::text[], $3::bigint[]) AS u(id, size)"
    " ON CONFLICT (account_id, blob_id) DO UPDATE"
    "   SET stored_size = EXCLUDED.stored_size, expires_at = EXCLUDED.expires_at,"
    "       created_at = CASE WHEN blob_reservations.expires_at > now()"
    "                         THEN blob_reservations.created_at ELSE now() END"};

inline const db::Statement kBlob{"blobs_blob",
                                 "SELECT stored_size FROM blobs WHERE account_id = $1 AND id = $2"};

// Whether the blob is stored and, if not, its active reservation -- in one statement, so both
// come from one snapshot: read separately, an upload committing in between (which inserts the
// blob and deletes the reservation) would make the blob look neither stored nor reserved.
inline const db::Statement kBlobOrReservation{
    "blobs_blob_or_reservation",
    "SELECT (SELECT stored_size FROM blobs WHERE account_id = $1 AND id = $2) AS blob_size,"
    "       (SELECT stored_size FROM blob_reservations"
    "         WHERE account_id = $1 AND blob_id = $2 AND expires_at > now()) AS reserved_size"};

inline const db::Statement kInsertBlob{
    "blobs_insert_blob", "INSERT INTO blobs (account_id, id, stored_size) VALUES ($1, $2, $3)"};

inline const db::Statement kDeleteReservation{
    "blobs_delete_reservation",
    "DELETE FROM blob_reservations WHERE account_id = $1 AND blob_id = $2"};

inline const db::Statement kAddBlobBytes{
    "blobs_add_blob_bytes",
    "UPDATE storage_accounts SET blob_bytes = blob_bytes + $2 WHERE id = $1"};

}  // namespace pouch::sync::sql
