// sql.h -- every statement of the account group, named for what it does, typed by its
// parameter and row structs (common/db/query.h).
#pragma once

#include "common/db/keys.h"
#include "common/db/query.h"
#include "common/model/plan.h"
#include "handlers/account/types.h"

namespace pouch::account::sql {

using db::ById;
using db::ByAccount;

// ---- parameters and rows ------------------------------------------------------------------------

struct Id {
    std::string id;
    static auto db_columns() { return std::tuple{db::col("id", &Id::id)}; }
};

struct UserParams {
    std::string id, email, password_hash;
    static auto db_params() {
        return std::tuple{db::col("id", &UserParams::id), db::col("email", &UserParams::email),
                          db::col("password_hash", &UserParams::password_hash)};
    }
};

struct AccountParams {
    std::string id, owner_user_id;
    static auto db_params() {
        return std::tuple{db::col("id", &AccountParams::id),
                          db::col("owner_user_id", &AccountParams::owner_user_id)};
    }
};

struct SessionParams {
    std::string id, user_id, token_hash;
    static auto db_params() {
        return std::tuple{db::col("id", &SessionParams::id),
                          db::col("user_id", &SessionParams::user_id),
                          db::col("token_hash", &SessionParams::token_hash)};
    }
};

struct ExpiresAt {
    std::string expires_at;
    static auto db_columns() { return std::tuple{db::col("expires_at", &ExpiresAt::expires_at)}; }
};

struct ByEmail {
    std::string email;
    static auto db_params() { return std::tuple{db::col("email", &ByEmail::email)}; }
};

struct UserLogin {
    std::string id, password_hash;
    static auto db_columns() {
        return std::tuple{db::col("id", &UserLogin::id),
                          db::col("password_hash", &UserLogin::password_hash)};
    }
};

struct ByUser {
    std::string user_id;
    static auto db_params() { return std::tuple{db::col("user_id", &ByUser::user_id)}; }
};

struct HasGenesis {
    bool has_genesis = false;
    static auto db_columns() {
        return std::tuple{db::col("has_genesis", &HasGenesis::has_genesis)};
    }
};

struct WebMemberParams {
    std::string id, account_id, user_id;
    static auto db_params() {
        return std::tuple{db::col("id", &WebMemberParams::id),
                          db::col("account_id", &WebMemberParams::account_id),
                          db::col("user_id", &WebMemberParams::user_id)};
    }
};

struct SetWebMemberParams {
    std::string account_id, web_member_id;
    static auto db_params() {
        return std::tuple{db::col("account_id", &SetWebMemberParams::account_id),
                          db::col("web_member_id", &SetWebMemberParams::web_member_id)};
    }
};

struct PouchParams {
    std::string id, account_id, epoch;
    long long key_gen = 0;
    static auto db_params() {
        return std::tuple{db::col("id", &PouchParams::id),
                          db::col("account_id", &PouchParams::account_id),
                          db::col("epoch", &PouchParams::epoch),
                          db::col("key_gen", &PouchParams::key_gen)};
    }
};

struct RosterPageParams {
    std::string account_id;
    long long after = -1;  // the last index seen; -1 from the start
    long long limit = 0;
    long long budget = 0;  // bytes (paging::kPageBudget)
    static auto db_params() {
        return std::tuple{db::col("account_id", &RosterPageParams::account_id),
                          db::col("after", &RosterPageParams::after),
                          db::col("limit", &RosterPageParams::limit),
                          db::col("budget", &RosterPageParams::budget)};
    }
};

// ---- statements ---------------------------------------------------------------------------------

// No row: the email is taken.
inline const db::Query<UserParams, Id> kInsertUser{
    "account_insert_user",
    "INSERT INTO users (id, email, password_hash) VALUES ($1, $2, $3)"
    " ON CONFLICT (email) DO NOTHING RETURNING id"};

// No row: no default plan is configured.
inline const db::Query<AccountParams, Id> kInsertAccount{
    "account_insert_account",
    "INSERT INTO storage_accounts (id, owner_user_id, plan_id)"
    " SELECT $1, $2, id FROM plans WHERE is_default RETURNING id"};

inline const db::Query<SessionParams, ExpiresAt> kInsertSession{
    "account_insert_session",
    "INSERT INTO web_sessions (id, user_id, token_hash, expires_at, last_used_at)"
    " VALUES ($1, $2, $3, now() + interval '30 days', now()) RETURNING iso(expires_at) AS expires_at"};

inline const db::Query<ByEmail, UserLogin> kUserByEmail{
    "account_user_by_email", "SELECT id, password_hash FROM users WHERE email = $1"};

inline const db::Query<ById> kDeleteSession{
    "account_delete_session", "DELETE FROM web_sessions WHERE id = $1"};

inline const db::Query<ByUser, OverviewRow> kAccountOverview{
    "account_overview",
    "SELECT u.id AS user_id, u.email, u.role, a.id AS account_id, a.web_member_id,"
    "       account_stored_bytes(a.id) AS stored_bytes,"
    "       account_reserved_bytes(a.id) AS reserved_bytes,"
    "       (SELECT count(*) FROM pouches po WHERE po.account_id = a.id) AS pouches,"
    "       " POUCH_PLAN_FIELDS
    "  FROM users u JOIN storage_accounts a ON a.owner_user_id = u.id"
    "  JOIN plans p ON p.id = a.plan_id"
    " WHERE u.id = $1"};

inline const db::Query<ByAccount, HasGenesis> kHasGenesis{
    "account_has_genesis",
    "SELECT EXISTS (SELECT 1 FROM roster_entries WHERE account_id = $1 AND idx = 0)"
    "       AS has_genesis"};

inline const db::Query<WebMemberParams> kInsertWebMember{
    "account_insert_web_member",
    "INSERT INTO members (id, account_id, kind, user_id, roster_index)"
    " VALUES ($1, $2, 'web', $3, 0)"};

inline const db::Query<SetWebMemberParams> kSetWebMember{
    "account_set_web_member", "UPDATE storage_accounts SET web_member_id = $2 WHERE id = $1"};

inline const db::Query<PouchParams> kInsertPouch{
    "account_insert_pouch",
    "INSERT INTO pouches (id, account_id, epoch, key_gen) VALUES ($1, $2, $3, $4)"};

// One roster page after index $2, at most $3 rows, and only while the stored bytes of the rows
// before stay within $4 (a statement may be 87 KB: a page never reads 1,000 of them);
// `fetched` counts the rows before that cut.
inline const db::Query<RosterPageParams, RosterRow> kRosterPage{
    "account_roster_page",
    "SELECT idx AS index, statement, signature, created_at, bytes_before, fetched FROM ("
    "  SELECT idx, statement, signature, iso(created_at) AS created_at,"
    "         (coalesce(sum(statement_bytes(statement, signature)) OVER w, 0)"
    "           - statement_bytes(statement, signature))::bigint AS bytes_before,"
    "         count(*) OVER () AS fetched"
    "    FROM (SELECT * FROM roster_entries WHERE account_id = $1 AND idx > $2"
    "           ORDER BY idx LIMIT $3) e"
    "  WINDOW w AS (ORDER BY idx ROWS UNBOUNDED PRECEDING)) page"
    " WHERE bytes_before <= $4::bigint ORDER BY idx"};

// ---- identities and the account's audit log (docs/SHARING.md §1, §2, §8) -------------------

struct ByEmailForLookup {
    std::string email;
    static auto db_params() { return std::tuple{db::col("email", &ByEmailForLookup::email)}; }
};

struct AccountAuditPageParams {
    std::string account_id;
    long long before_id = 0;  // the last id seen, exclusive
    long long limit = 0;
    static auto db_params() {
        return std::tuple{db::col("account_id", &AccountAuditPageParams::account_id),
                          db::col("before_id", &AccountAuditPageParams::before_id),
                          db::col("limit", &AccountAuditPageParams::limit)};
    }
};

// An address whose account has an identity: the account, the identity statement and roster
// statement 0 it is bound to. No row: no account, or none with an identity (a stand-in then).
inline const db::Query<ByEmailForLookup, LookupRow> kLookupIdentity{
    "account_lookup_identity",
    "SELECT a.id AS account_id, i.statement AS identity_statement,"
    "       i.signature AS identity_signature, r.statement AS genesis_statement,"
    "       r.signature AS genesis_signature"
    "  FROM users u JOIN storage_accounts a ON a.owner_user_id = u.id"
    "  JOIN account_identities i ON i.account_id = a.id"
    "  JOIN roster_entries r ON r.account_id = a.id AND r.idx = 0"
    " WHERE u.email = $1"};

// The account's own audit entries, newest first by id; one row more than the page.
inline const db::Query<AccountAuditPageParams, AccountAuditEntry> kAccountAuditPage{
    "account_audit_page",
    "SELECT l.id, coalesce(l.actor_user_id::text, 'operator') AS actor, u.email AS actor_email,"
    "       l.action, l.target, l.before, l.after, l.request_id, iso(l.at) AS at"
    "  FROM audit_log l LEFT JOIN users u ON u.id = l.actor_user_id"
    " WHERE l.account_id = $1 AND l.id < $2 ORDER BY l.id DESC LIMIT $3"};

}  // namespace pouch::account::sql
