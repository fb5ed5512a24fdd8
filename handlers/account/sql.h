// sql.h -- every statement of the account group, named for what it does.
#pragma once

#include "common/db/pool.h"
#include "common/model/plan.h"

namespace pouch::account::sql {

inline const db::Statement kInsertUser{
    "account_insert_user",
    "INSERT INTO users (id, email, password_hash) VALUES ($1, $2, $3)"
    " ON CONFLICT (email) DO NOTHING RETURNING id"};

inline const db::Statement kInsertAccount{
    "account_insert_account",
    "INSERT INTO storage_accounts (id, owner_user_id, plan_id)"
    " SELECT $1, $2, id FROM plans WHERE is_default RETURNING id"};

inline const db::Statement kInsertSession{
    "account_insert_session",
    "INSERT INTO web_sessions (id, user_id, token_hash, expires_at, last_used_at)"
    " VALUES ($1, $2, $3, now() + interval '30 days', now()) RETURNING iso(expires_at) AS expires_at"};

inline const db::Statement kUserByEmail{
    "account_user_by_email", "SELECT id, password_hash FROM users WHERE email = $1"};

inline const db::Statement kDeleteSession{
    "account_delete_session", "DELETE FROM web_sessions WHERE id = $1"};

inline const db::Statement kAccountOverview{
    "account_overview",
    "SELECT u.id AS user_id, u.email, u.role, a.id AS account_id, a.web_member_id,"
    "       account_stored_bytes(a.id) AS stored_bytes,"
    "       account_reserved_bytes(a.id) AS reserved_bytes,"
    "       (SELECT count(*) FROM pouches po WHERE po.account_id = a.id) AS pouches, " POUCH_PLAN_COLUMNS
    "  FROM users u JOIN storage_accounts a ON a.owner_user_id = u.id"
    "  JOIN plans p ON p.id = a.plan_id"
    " WHERE u.id = $1"};

inline const db::Statement kHasGenesis{
    "account_has_genesis", "SELECT 1 FROM roster_entries WHERE account_id = $1 AND idx = 0"};

inline const db::Statement kInsertWebMember{
    "account_insert_web_member",
    "INSERT INTO members (id, account_id, kind, user_id, roster_index)"
    " VALUES ($1, $2, 'web', $3, 0)"};

inline const db::Statement kSetWebMember{
    "account_set_web_member", "UPDATE storage_accounts SET web_member_id = $2 WHERE id = $1"};

inline const db::Statement kInsertPouch{
    "account_insert_pouch",
    "INSERT INTO pouches (id, account_id, epoch, key_gen) VALUES ($1, $2, $3, $4)"};

// One roster page after index $2, at most $3 rows, and only while the stored bytes of the rows
// before stay within $4 (a statement may be 87 KB: a page never reads 1,000 of them);
// `fetched` counts the rows before that cut.
inline const db::Statement kRosterPage{
    "account_roster_page",
    "SELECT * FROM ("
    "  SELECT idx, statement, signature, iso(created_at) AS created_at,"
    "         coalesce(sum(statement_bytes(statement, signature)) OVER w, 0)"
    "           - statement_bytes(statement, signature) AS bytes_before,"
    "         count(*) OVER () AS fetched"
    "    FROM (SELECT * FROM roster_entries WHERE account_id = $1 AND idx > $2"
    "           ORDER BY idx LIMIT $3) e"
    "  WINDOW w AS (ORDER BY idx ROWS UNBOUNDED PRECEDING)) page"
    " WHERE bytes_before <= $4::bigint ORDER BY idx"};

}  // namespace pouch::account::sql
