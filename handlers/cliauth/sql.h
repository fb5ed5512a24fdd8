// sql.h -- every statement of the cliauth group, named for what it does, typed by its
// parameter and row structs (common/db/query.h). A request's visible status folds in expiry:
// pending/approved past expires_at reads as "expired".
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include "common/db/keys.h"
#include "common/db/query.h"
#include "common/rules/login.h"

namespace pouch::cliauth::sql {

using db::ById;

// ---- parameters and rows ------------------------------------------------------------------------

struct ByTokenHash {
    std::string token_hash;
    static auto db_params() { return std::tuple{db::col("token_hash", &ByTokenHash::token_hash)}; }
};

struct AccountId {
    std::string account_id;
    static auto db_columns() { return std::tuple{db::col("account_id", &AccountId::account_id)}; }
};

struct ConnectTokenParams {
    std::string token_hash, account_id, user_id;
    int seconds = 0;  // until it expires
    static auto db_params() {
        return std::tuple{db::col("token_hash", &ConnectTokenParams::token_hash),
                          db::col("account_id", &ConnectTokenParams::account_id),
                          db::col("user_id", &ConnectTokenParams::user_id),
                          db::col("seconds", &ConnectTokenParams::seconds)};
    }
};

struct RequestParams {
    std::string id, code_challenge, sign_x, sign_y, sign_jkt, enc_x, enc_y, device_name, os, arch,
        cli_version;
    db::Json<std::vector<std::string>> assistants;
    std::string key_storage;
    std::optional<std::string> connect_account_id;
    int ttl_seconds = 0;
    std::optional<std::string> started_ip;
    static auto db_params() {
        return std::tuple{db::col("id", &RequestParams::id),
                          db::col("code_challenge", &RequestParams::code_challenge),
                          db::col("sign_x", &RequestParams::sign_x),
                          db::col("sign_y", &RequestParams::sign_y),
                          db::col("sign_jkt", &RequestParams::sign_jkt),
                          db::col("enc_x", &RequestParams::enc_x),
                          db::col("enc_y", &RequestParams::enc_y),
                          db::col("device_name", &RequestParams::device_name),
                          db::col("os", &RequestParams::os),
                          db::col("arch", &RequestParams::arch),
                          db::col("cli_version", &RequestParams::cli_version),
                          db::col("assistants", &RequestParams::assistants),
                          db::col("key_storage", &RequestParams::key_storage),
                          db::col("connect_account_id", &RequestParams::connect_account_id),
                          db::col("ttl_seconds", &RequestParams::ttl_seconds),
                          db::col("started_ip", &RequestParams::started_ip)};
    }
};

// A login request as the approving browser is shown it.
struct RequestDetails {
    std::string id, device_name, os, arch, cli_version;
    json::Raw assistants;
    std::string key_storage, sign_jkt, sign_x, sign_y, enc_x, enc_y, status, created_at,
        expires_at;
    std::optional<std::string> connect_account_id, started_ip;
    bool connect_token_used = false;
    static auto db_columns() {
        return std::tuple{db::col("id", &RequestDetails::id),
                          db::col("device_name", &RequestDetails::device_name),
                          db::col("os", &RequestDetails::os),
                          db::col("arch", &RequestDetails::arch),
                          db::col("cli_version", &RequestDetails::cli_version),
                          db::col("assistants", &RequestDetails::assistants),
                          db::col("key_storage", &RequestDetails::key_storage),
                          db::col("sign_jkt", &RequestDetails::sign_jkt),
                          db::col("sign_x", &RequestDetails::sign_x),
                          db::col("sign_y", &RequestDetails::sign_y),
                          db::col("enc_x", &RequestDetails::enc_x),
                          db::col("enc_y", &RequestDetails::enc_y),
                          db::col("status", &RequestDetails::status),
                          db::col("created_at", &RequestDetails::created_at),
                          db::col("expires_at", &RequestDetails::expires_at),
                          db::col("connect_account_id", &RequestDetails::connect_account_id),
                          db::col("started_ip", &RequestDetails::started_ip),
                          db::col("connect_token_used", &RequestDetails::connect_token_used)};
    }
};

// A login request locked for a decision.
struct LockedRequest {
    std::string id, sign_jkt, status;
    std::optional<std::string> connect_account_id;
    static auto db_columns() {
        return std::tuple{db::col("id", &LockedRequest::id),
                          db::col("sign_jkt", &LockedRequest::sign_jkt),
                          db::col("status", &LockedRequest::status),
                          db::col("connect_account_id", &LockedRequest::connect_account_id)};
    }
};

struct ApprovedParams {
    std::string id, account_id, device_id;
    static auto db_params() {
        return std::tuple{db::col("id", &ApprovedParams::id),
                          db::col("account_id", &ApprovedParams::account_id),
                          db::col("device_id", &ApprovedParams::device_id)};
    }
};

struct DeniedParams {
    std::string id, account_id;
    static auto db_params() {
        return std::tuple{db::col("id", &DeniedParams::id),
                          db::col("account_id", &DeniedParams::account_id)};
    }
};

struct MemberParams {
    std::string id, account_id, device_id;
    long long roster_index = 0;
    static auto db_params() {
        return std::tuple{db::col("id", &MemberParams::id),
                          db::col("account_id", &MemberParams::account_id),
                          db::col("device_id", &MemberParams::device_id),
                          db::col("roster_index", &MemberParams::roster_index)};
    }
};

struct DeviceParams {
    std::string id, account_id, member_id, welcome, request_id;
    static auto db_params() {
        return std::tuple{db::col("id", &DeviceParams::id),
                          db::col("account_id", &DeviceParams::account_id),
                          db::col("member_id", &DeviceParams::member_id),
                          db::col("welcome", &DeviceParams::welcome),
                          db::col("request_id", &DeviceParams::request_id)};
    }
};

// What a token request checks before anything else.
struct RequestForToken {
    std::string code_challenge, sign_jkt, status;
    bool too_soon = false;  // polled within the last 5 seconds
    static auto db_columns() {
        return std::tuple{db::col("code_challenge", &RequestForToken::code_challenge),
                          db::col("sign_jkt", &RequestForToken::sign_jkt),
                          db::col("status", &RequestForToken::status),
                          db::col("too_soon", &RequestForToken::too_soon)};
    }
};

struct Status {
    std::string status;
    static auto db_columns() { return std::tuple{db::col("status", &Status::status)}; }
};

struct DeviceId {
    std::string device_id;
    static auto db_columns() { return std::tuple{db::col("device_id", &DeviceId::device_id)}; }
};

struct DeviceForTokens {
    std::string id, account_id, member_id, welcome, sign_jkt;
    bool revoked = false;
    static auto db_columns() {
        return std::tuple{db::col("id", &DeviceForTokens::id),
                          db::col("account_id", &DeviceForTokens::account_id),
                          db::col("member_id", &DeviceForTokens::member_id),
                          db::col("welcome", &DeviceForTokens::welcome),
                          db::col("sign_jkt", &DeviceForTokens::sign_jkt),
                          db::col("revoked", &DeviceForTokens::revoked)};
    }
};

struct AccessTokenParams {
    std::string token_hash, device_id, jkt;
    int seconds = 0;  // until it expires
    static auto db_params() {
        return std::tuple{db::col("token_hash", &AccessTokenParams::token_hash),
                          db::col("device_id", &AccessTokenParams::device_id),
                          db::col("jkt", &AccessTokenParams::jkt),
                          db::col("seconds", &AccessTokenParams::seconds)};
    }
};

struct RefreshTokenParams {
    std::string token_hash, device_id, jkt, access_token_hash;
    static auto db_params() {
        return std::tuple{db::col("token_hash", &RefreshTokenParams::token_hash),
                          db::col("device_id", &RefreshTokenParams::device_id),
                          db::col("jkt", &RefreshTokenParams::jkt),
                          db::col("access_token_hash", &RefreshTokenParams::access_token_hash)};
    }
};

struct Jkt {
    std::string jkt;
    static auto db_columns() { return std::tuple{db::col("jkt", &Jkt::jkt)}; }
};

struct LockRefreshParams {
    std::string token_hash;
    int grace_seconds = 0;  // rules::kRefreshGraceSeconds
    static auto db_params() {
        return std::tuple{db::col("token_hash", &LockRefreshParams::token_hash),
                          db::col("grace_seconds", &LockRefreshParams::grace_seconds)};
    }
};

// A presented refresh token, locked, with what common/rules/refresh.h decides on.
struct LockedRefresh {
    std::string device_id, jkt;
    bool used = false, within_grace = false, retried = false;
    std::optional<std::string> replaced_by;
    bool expired = false, revoked = false, device_revoked = false;
    static auto db_columns() {
        return std::tuple{db::col("device_id", &LockedRefresh::device_id),
                          db::col("jkt", &LockedRefresh::jkt),
                          db::col("used", &LockedRefresh::used),
                          db::col("within_grace", &LockedRefresh::within_grace),
                          db::col("retried", &LockedRefresh::retried),
                          db::col("replaced_by", &LockedRefresh::replaced_by),
                          db::col("expired", &LockedRefresh::expired),
                          db::col("revoked", &LockedRefresh::revoked),
                          db::col("device_revoked", &LockedRefresh::device_revoked)};
    }
};

struct Successor {
    std::string access_token_hash;
    bool untouched = false;
    static auto db_columns() {
        return std::tuple{db::col("access_token_hash", &Successor::access_token_hash),
                          db::col("untouched", &Successor::untouched)};
    }
};

struct ReplacedParams {
    std::string token_hash, replaced_by;
    static auto db_params() {
        return std::tuple{db::col("token_hash", &ReplacedParams::token_hash),
                          db::col("replaced_by", &ReplacedParams::replaced_by)};
    }
};

// ---- statements ---------------------------------------------------------------------------------

#define POUCH_LOGIN_STATUS                                                                 \
    "CASE WHEN status IN ('pending', 'approved') AND expires_at <= now() THEN 'expired'"   \
    " ELSE status END AS status"

inline const db::Query<ByTokenHash, AccountId> kUseConnectToken{
    "cliauth_use_connect_token",
    "UPDATE connect_tokens SET used_at = now()"
    " WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING account_id"};

inline const db::Query<ConnectTokenParams> kInsertConnectToken{
    "cliauth_insert_connect_token",
    "INSERT INTO connect_tokens (token_hash, account_id, user_id, expires_at)"
    " VALUES ($1, $2, $3, now() + make_interval(secs => $4::int))"};

inline const db::Query<RequestParams> kInsertRequest{
    "cliauth_insert_request",
    "INSERT INTO cli_login_requests (id, code_challenge, sign_x, sign_y, sign_jkt, enc_x, enc_y,"
    "  device_name, os, arch, cli_version, assistants, key_storage, connect_account_id,"
    "  expires_at, started_ip)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13, $14,"
    "         now() + make_interval(secs => $15::int), $16)"};

inline const db::Query<ById, RequestDetails> kRequestDetails{
    "cliauth_request_details",
    "SELECT id, device_name, os, arch, cli_version, assistants, key_storage,"
    "       sign_jkt, sign_x, sign_y, enc_x, enc_y, " POUCH_LOGIN_STATUS ","
    "       iso(created_at) AS created_at, iso(expires_at) AS expires_at, connect_account_id,"
    "       started_ip, connect_account_id IS NOT NULL AS connect_token_used"
    "  FROM cli_login_requests WHERE id = $1"};

inline const db::Query<ById, LockedRequest> kLockRequest{
    "cliauth_lock_request",
    "SELECT id, sign_jkt, " POUCH_LOGIN_STATUS ", connect_account_id"
    "  FROM cli_login_requests WHERE id = $1 FOR UPDATE"};

inline const db::Query<ApprovedParams> kMarkApproved{
    "cliauth_mark_approved",
    "UPDATE cli_login_requests SET status = 'approved', account_id = $2, device_id = $3,"
    "       decided_at = now() WHERE id = $1"};

inline const db::Query<DeniedParams> kMarkDenied{
    "cliauth_mark_denied",
    "UPDATE cli_login_requests SET status = 'denied', account_id = $2, decided_at = now()"
    " WHERE id = $1"};

inline const db::Query<MemberParams> kInsertMember{
    "cliauth_insert_member",
    "INSERT INTO members (id, account_id, kind, device_id, roster_index)"
    " VALUES ($1, $2, 'device', $3, $4)"};

inline const db::Query<DeviceParams> kInsertDevice{
    "cliauth_insert_device",
    "INSERT INTO devices (id, account_id, member_id, name, os, arch, cli_version, key_storage,"
    "  assistants, sign_x, sign_y, sign_jkt, enc_x, enc_y, welcome)"
    " SELECT $1, $2, $3, device_name, os, arch, cli_version, key_storage, assistants,"
    "        sign_x, sign_y, sign_jkt, enc_x, enc_y, $4"
    "   FROM cli_login_requests WHERE id = $5"};

inline const db::Query<ById, RequestForToken> kRequestForToken{
    "cliauth_request_for_token",
    "SELECT code_challenge, sign_jkt, " POUCH_LOGIN_STATUS ","
    "       coalesce(last_poll_at > now() - interval '5 seconds', false) AS too_soon"
    "  FROM cli_login_requests WHERE id = $1"};

inline const db::Query<ById, Status> kRequestStatus{
    "cliauth_request_status",
    "SELECT " POUCH_LOGIN_STATUS " FROM cli_login_requests WHERE id = $1"};

inline const db::Query<ById> kTouchPoll{
    "cliauth_touch_poll", "UPDATE cli_login_requests SET last_poll_at = now() WHERE id = $1"};

inline const db::Query<ById, DeviceId> kRedeem{
    "cliauth_redeem",
    "UPDATE cli_login_requests SET status = 'redeemed', redeemed_at = now()"
    " WHERE id = $1 AND status = 'approved' AND expires_at > now() RETURNING device_id"};

inline const db::Query<ById, DeviceForTokens> kDeviceForTokens{
    "cliauth_device_for_tokens",
    "SELECT id, account_id, member_id, welcome, sign_jkt, revoked_at IS NOT NULL AS revoked"
    "  FROM devices WHERE id = $1"};

inline const db::Query<AccessTokenParams> kInsertAccessToken{
    "cliauth_insert_access_token",
    "INSERT INTO access_tokens (token_hash, device_id, jkt, expires_at)"
    " VALUES ($1, $2, $3, now() + make_interval(secs => $4::int))"};

// access_token_hash: the access token issued with it, revoked with it when a retry of a lost
// refresh answer replaces the pair (common/rules/refresh.h).
inline const db::Query<RefreshTokenParams> kInsertRefreshToken{
    "cliauth_insert_refresh_token",
    "INSERT INTO refresh_tokens (token_hash, device_id, jkt, expires_at, access_token_hash)"
    " VALUES ($1, $2, $3, now() + interval '30 days', $4)"};

inline const db::Query<ByTokenHash, Jkt> kRefreshTokenKey{
    "cliauth_refresh_token_key", "SELECT jkt FROM refresh_tokens WHERE token_hash = $1"};

// $2: the grace window in seconds (rules::kRefreshGraceSeconds).
inline const db::Query<LockRefreshParams, LockedRefresh> kLockRefreshToken{
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
inline const db::Query<ByTokenHash, Successor> kLockSuccessor{
    "cliauth_lock_successor",
    "SELECT n.access_token_hash,"
    "       n.used_at IS NULL AND n.revoked_at IS NULL AND a.used_at IS NULL"
    "       AND a.revoked_at IS NULL AS untouched"
    "  FROM refresh_tokens n JOIN access_tokens a ON a.token_hash = n.access_token_hash"
    " WHERE n.token_hash = $1 FOR UPDATE OF n, a"};

inline const db::Query<ByTokenHash> kRevokeRefreshToken{
    "cliauth_revoke_refresh_token",
    "UPDATE refresh_tokens SET revoked_at = now() WHERE token_hash = $1"};

inline const db::Query<ByTokenHash> kRevokeAccessToken{
    "cliauth_revoke_access_token",
    "UPDATE access_tokens SET revoked_at = now() WHERE token_hash = $1"};

inline const db::Query<ReplacedParams> kMarkRefreshUsed{
    "cliauth_mark_refresh_used",
    "UPDATE refresh_tokens SET used_at = now(), replaced_by = $2 WHERE token_hash = $1"};

inline const db::Query<ReplacedParams> kMarkRefreshRetried{
    "cliauth_mark_refresh_retried",
    "UPDATE refresh_tokens SET retried_at = now(), replaced_by = $2 WHERE token_hash = $1"};

}  // namespace pouch::cliauth::sql

namespace pouch::cliauth {

// The `status` a statement above selects with POUCH_LOGIN_STATUS, as the state machine's
// enum. Any other text is a bug (500), never a client's fault.
inline rules::LoginState login_state(const std::string& status) {
    auto s = rules::parse_login_state(status);
    if (!s) throw std::runtime_error("unknown login request status " + status);
    return *s;
}

}  // namespace pouch::cliauth
