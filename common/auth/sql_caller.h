// sql_caller.h -- the statements that resolve a credential to a Caller (caller.cpp). In a
// header so `make bench` builds its commit baseline (tools/loadgen/commit_sql.cpp) from the
// very token lookup the handlers run.
#pragma once

#include "common/db/pool.h"

namespace pouch::auth::sql {

inline const db::Statement kSessionByHash{
    "auth_session_by_hash",
    "SELECT s.id, s.user_id, u.role, a.id AS account_id, a.web_member_id,"
    "       (s.expires_at <= now() OR s.last_used_at <= now() - interval '14 days') AS expired,"
    "       s.last_used_at < now() - interval '1 minute' AS stale"
    "  FROM web_sessions s"
    "  JOIN users u ON u.id = s.user_id"
    "  JOIN storage_accounts a ON a.owner_user_id = u.id"
    " WHERE s.token_hash = $1"};

inline const db::Statement kTouchSession{
    "auth_touch_session", "UPDATE web_sessions SET last_used_at = now() WHERE id = $1"};

inline const db::Statement kAccessToken{
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

inline const db::Statement kTouchDevice{"auth_touch_device",
                                        "UPDATE devices SET last_seen_at = now() WHERE id = $1"};

// An access token's first use, once: a refresh retried after a lost answer may replace only a
// pair neither of whose tokens was used (common/rules/refresh.h).
inline const db::Statement kMarkAccessTokenUsed{
    "auth_mark_access_token_used",
    "UPDATE access_tokens SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL"};

}  // namespace pouch::auth::sql
