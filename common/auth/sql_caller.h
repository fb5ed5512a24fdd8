// sql_caller.h -- the statements that resolve a credential to a Caller (caller.cpp). In a
// header so `make bench` builds its commit baseline (tools/loadgen/commit_sql.cpp) from the
// very token lookup the handlers run.
#pragma once

#include <optional>
#include <string>
#include <tuple>

#include "common/db/keys.h"
#include "common/db/query.h"
#include "common/model/pouch.h"

namespace pouch::auth::sql {

using db::ById;

// ---- parameters and rows ------------------------------------------------------------------------

struct ByHash {
    std::string token_hash;
    static auto db_params() { return std::tuple{db::col("token_hash", &ByHash::token_hash)}; }
};

struct SessionRow {
    std::string id, user_id, role, account_id;
    std::optional<std::string> web_member_id;  // none before genesis
    bool expired = false, stale = false;
    static auto db_columns() {
        return std::tuple{db::col("id", &SessionRow::id),
                          db::col("user_id", &SessionRow::user_id),
                          db::col("role", &SessionRow::role),
                          db::col("account_id", &SessionRow::account_id),
                          db::col("web_member_id", &SessionRow::web_member_id),
                          db::col("expired", &SessionRow::expired),
                          db::col("stale", &SessionRow::stale)};
    }
};

// A session and, read in the same statement, the pouch `pouch_id` as the session's account
// reaches it (common/model/pouch.h: nullopt when it does not exist or the account has no
// active access): what a web caller's GET under a pouch read scope needs, in one round trip.
struct SessionPouchParams {
    std::string token_hash, pouch_id;
    static auto db_params() {
        return std::tuple{db::col("token_hash", &SessionPouchParams::token_hash),
                          db::col("pouch_id", &SessionPouchParams::pouch_id)};
    }
};

struct SessionPouchRow : SessionRow {
    std::optional<model::PouchRow> pouch;
    static auto db_columns() {
        return std::tuple_cat(
            SessionRow::db_columns(),
            std::tuple{db::group(&SessionPouchRow::pouch, model::PouchRow::db_columns())});
    }
};

struct AccessTokenRow {
    std::string device_id, jkt;
    bool expired = false, token_revoked = false, device_revoked = false;
    std::string member_id, account_id, sign_x, sign_y, owner_user_id, role;
    bool stale = false, first_use = false;
    static auto db_columns() {
        return std::tuple{db::col("device_id", &AccessTokenRow::device_id),
                          db::col("jkt", &AccessTokenRow::jkt),
                          db::col("expired", &AccessTokenRow::expired),
                          db::col("token_revoked", &AccessTokenRow::token_revoked),
                          db::col("device_revoked", &AccessTokenRow::device_revoked),
                          db::col("member_id", &AccessTokenRow::member_id),
                          db::col("account_id", &AccessTokenRow::account_id),
                          db::col("sign_x", &AccessTokenRow::sign_x),
                          db::col("sign_y", &AccessTokenRow::sign_y),
                          db::col("owner_user_id", &AccessTokenRow::owner_user_id),
                          db::col("role", &AccessTokenRow::role),
                          db::col("stale", &AccessTokenRow::stale),
                          db::col("first_use", &AccessTokenRow::first_use)};
    }
};

// ---- statements ---------------------------------------------------------------------------------

// The session row's columns and tables, shared by the two lookups below so that they cannot
// drift apart (decisions §13: expired 30 days after it began or after 14 days unused).
#define SESSION_ROW_COLUMNS                                                                \
    "s.id, s.user_id, u.role, acct.id AS account_id, acct.web_member_id,"                  \
    " (s.expires_at <= now() OR s.last_used_at <= now() - interval '14 days') AS expired," \
    " s.last_used_at < now() - interval '1 minute' AS stale"
#define SESSION_ROW_FROM                \
    " FROM web_sessions s"              \
    " JOIN users u ON u.id = s.user_id" \
    " JOIN storage_accounts acct ON acct.owner_user_id = u.id"

inline const db::Query<ByHash, SessionRow> kSessionByHash{
    "auth_session_by_hash",
    "SELECT " SESSION_ROW_COLUMNS SESSION_ROW_FROM " WHERE s.token_hash = $1"};

// $1 the token hash, $2 the pouch id: the session as above plus model::sql::kPouch's row of
// the session's account, its columns NULL when that pouch is not found (the row's `id` first).
inline const db::Query<SessionPouchParams, SessionPouchRow> kSessionWithPouch{
    "auth_session_with_pouch",
    "SELECT " SESSION_ROW_COLUMNS ", p.*" SESSION_ROW_FROM
    " LEFT JOIN LATERAL (SELECT " POUCH_ROW_COLUMNS POUCH_ROW_FROM("$2", "acct.id") ") p ON true"
    " WHERE s.token_hash = $1"};

inline const db::Query<ById> kTouchSession{
    "auth_touch_session", "UPDATE web_sessions SET last_used_at = now() WHERE id = $1"};

inline const db::Query<ByHash, AccessTokenRow> kAccessToken{
    "auth_access_token",
    "SELECT t.device_id, t.jkt, t.expires_at <= now() AS expired,"
    "       t.revoked_at IS NOT NULL AS token_revoked, d.revoked_at IS NOT NULL AS device_revoked,"
    "       d.member_id, d.account_id, d.sign_x, d.sign_y, a.owner_user_id, u.role,"
    "       (d.last_seen_at IS NULL OR d.last_seen_at < now() - interval '1 minute') AS stale,"
    "       t.used_at IS NULL AS first_use"
    "  FROM access_tokens t"
    "  JOIN devices d ON d.id = t.device_id"
    "  JOIN storage_accounts a ON a.id = d.account_id"
    "  JOIN users u ON u.id = a.owner_user_id"
    " WHERE t.token_hash = $1"};

inline const db::Query<ById> kTouchDevice{"auth_touch_device",
                                          "UPDATE devices SET last_seen_at = now() WHERE id = $1"};

// An access token's first use, once: a refresh retried after a lost answer may replace only a
// pair neither of whose tokens was used (common/rules/refresh.h).
inline const db::Query<ByHash> kMarkAccessTokenUsed{
    "auth_mark_access_token_used",
    "UPDATE access_tokens SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL"};

}  // namespace pouch::auth::sql
