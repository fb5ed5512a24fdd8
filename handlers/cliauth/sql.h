// sql.h -- every statement of the cliauth group, named for what it does. A request's
// visible status folds in expiry: pending/approved past expires_at reads as "expired".
#pragma once

#include <stdexcept>

#include "common/db/pool.h"
#include "common/rules/login.h"

namespace pouch::cliauth::sql {

#define POUCH_LOGIN_STATUS                                                                 \
    "CASE WHEN status IN ('pending', 'approved') AND expires_at <= now() THEN 'expired'"   \
    " ELSE status END AS status"

inline const db::Statement kUseConnectToken{
    "cliauth_use_connect_token",
    "UPDATE connect_tokens SET used_at = now()"
    " WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING account_id"};

inline const db::Statement kInsertConnectToken{
    "cliauth_insert_connect_token",
    "INSERT INTO connect_tokens (token_hash, account_id, user_id, expires_at)"
    " VALUES ($1, $2, $3, now() + make_interval(secs => $4::int))"};

inline const db::Statement kInsertRequest{
    "cliauth_insert_request",
    "INSERT INTO cli_login_requests (id, code_challenge, sign_x, sign_y, sign_jkt, enc_x, enc_y,"
    "  device_name, os, arch, cli_version, assistants, key_storage, connect_account_id,"
    "  expires_at, started_ip)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13, $14,"
    "         now() + make_interval(secs => $15::int), $16)"};

inline const db::Statement kRequestDetails{
    "cliauth_request_details",
    "SELECT id, device_name, os, arch, cli_version, assistants::text AS assistants, key_storage,"
    "       sign_jkt, sign_x, sign_y, enc_x, enc_y, " POUCH_LOGIN_STATUS ","
    "       iso(created_at) AS created_at, iso(expires_at) AS expires_at, connect_account_id,"
    "       started_ip, connect_account_id IS NOT NULL AS connect_token_used"
    "  FROM cli_login_requests WHERE id = $1"};

inline const db::Statement kLockRequest{
    "cliauth_lock_request",
    "SELECT id, sign_jkt, " POUCH_LOGIN_STATUS ", connect_account_id"
    "  FROM cli_login_requests WHERE id = $1 FOR UPDATE"};

inline const db::Statement kMarkApproved{
    "cliauth_mark_approved",
    "UPDATE cli_login_requests SET status = 'approved', account_id = $2, device_id = $3,"
    "       decided_at = now() WHERE id = $1"};

inline const db::Statement kMarkDenied{
    "cliauth_mark_denied",
    "UPDATE cli_login_requests SET status = 'denied', account_id = $2, decided_at = now()"
    " WHERE id = $1"};

inline const db::Statement kInsertMember{
    "cliauth_insert_member",
    "INSERT INTO members (id, account_id, kind, device_id, roster_index)"
    " VALUES ($1, $2, 'device', $3, $4)"};

inline const db::Statement kInsertDevice{
    "cliauth_insert_device",
    "INSERT INTO devices (id, account_id, member_id, name, os, arch, cli_version, key_storage,"
    "  assistants, sign_x, sign_y, sign_jkt, enc_x, enc_y, welcome)"
    " SELECT $1, $2, $3, device_name, os, arch, cli_version, key_storage, assistants,"
    "        sign_x, sign_y, sign_jkt, enc_x, enc_y, $4"
    "   FROM cli_login_requests WHERE id = $5"};

inline const db::Statement kRequestForToken{
    "cliauth_request_for_token",
    "SELECT code_challenge, sign_jkt, " POUCH_LOGIN_STATUS ","
    "       coalesce(last_poll_at > now() - interval '5 seconds', false) AS too_soon"
    "  FROM cli_login_requests WHERE id = $1"};

inline const db::Statement kRequestStatus{
    "cliauth_request_status",
    "SELECT " POUCH_LOGIN_STATUS " FROM cli_login_requests WHERE id = $1"};

inline const db::Statement kTouchPoll{
    "cliauth_touch_poll", "UPDATE cli_login_requests SET last_poll_at = now() WHERE id = $1"};

inline const db::Statement kRedeem{
    "cliauth_redeem",
    "UPDATE cli_login_requests SET status = 'redeemed', redeemed_at = now()"
    " WHERE id = $1 AND status = 'approved' AND expires_at > now() RETURNING device_id"};

inline const db::Statement kDeviceForTokens{
    "cliauth_device_for_tokens",
    "SELECT id, account_id, member_id, welcome, sign_jkt, revoked_at IS NOT NULL AS revoked"
    "  FROM devices WHERE id = $1"};

inline const db::Statement kInsertAccessToken{
    "cliauth_insert_access_token",
    "INSERT INTO access_tokens (token_hash, device_id, jkt, expires_at)"
    " VALUES ($1, $2, $3, now() + make_interval(secs => $4::int))"};

// access_token_hash: the access token issued with it, revoked with it when a retry of a lost
// refresh answer replaces the pair (common/rules/refresh.h).
inline const db::Statement kInsertRefreshToken{
    "cliauth_insert_refresh_token",
    "INSERT INTO refresh_tokens (token_hash, device_id, jkt, expires_at, access_token_hash)"
    " VALUES ($1, $2, $3, now() + interval '30 days', $4)"};

inline const db::Statement kRefreshTokenKey{
    "cliauth_refresh_token_key", "SELECT jkt FROM refresh_tokens WHERE token_hash = $1"};

// $2: the grace window in seconds (rules::kRefreshGraceSeconds).
inline const db::Statement kLockRefreshToken{
    "cliauth_lock_refresh_token",
    "SELECT r.device_id, r.jkt, r.used_at IS NOT NULL AS used,"
    "       coalesce(r.used_at >= now() - make_interval(secs => $2::int), false) AS within_grace,"
    "       r.retried_at IS NOT NULL AS retried, r.replaced_by,"
    "       r.expires_at <= now() AS expired, r.revoked_at IS NOT NULL AS revoked,"
    "       d.revoked_at IS NOT NULL AS device_revoked"
    "  FROM refresh_tokens r JOIN devices d ON d.id = r.device_id"
    " WHERE r.token_hash = $1 FOR UPDATE OF r"};

// The pair a token was rotated to, locked: untouched while neither of its tokens was used or
// revoked. No row (a pair from before migration 009, without its access token): not untouched.
inline const db::Statement kLockSuccessor{
    "cliauth_lock_successor",
    "SELECT n.access_token_hash,"
    "       n.used_at IS NULL AND n.revoked_at IS NULL AND a.used_at IS NULL"
    "       AND a.revoked_at IS NULL AS untouched"
    "  FROM refresh_tokens n JOIN access_tokens a ON a.token_hash = n.access_token_hash"
    " WHERE n.token_hash = $1 FOR UPDATE OF n, a"};

inline const db::Statement kRevokeRefreshToken{
    "cliauth_revoke_refresh_token",
    "UPDATE refresh_tokens SET revoked_at = now() WHERE token_hash = $1"};

inline const db::Statement kRevokeAccessToken{
    "cliauth_revoke_access_token",
    "UPDATE access_tokens SET revoked_at = now() WHERE token_hash = $1"};

inline const db::Statement kMarkRefreshUsed{
    "cliauth_mark_refresh_used",
    "UPDATE refresh_tokens SET used_at = now(), replaced_by = $2 WHERE token_hash = $1"};

inline const db::Statement kMarkRefreshRetried{
    "cliauth_mark_refresh_retried",
    "UPDATE refresh_tokens SET retried_at = now(), replaced_by = $2 WHERE token_hash = $1"};

}  // namespace pouch::cliauth::sql

namespace pouch::cliauth {

// The `status` column of a statement above that selects POUCH_LOGIN_STATUS, as the state
// machine's enum. Any other text is a bug (500), never a client's fault.
inline rules::LoginState login_state(const db::Result& r, int row = 0) {
    auto s = rules::parse_login_state(r.text(row, "status"));
    if (!s) throw std::runtime_error("unknown login request status " + r.text(row, "status"));
    return *s;
}

}  // namespace pouch::cliauth
