// sql_access.h -- the statements of common/model/access.cpp (shared pouches, docs/SHARING.md
// §4-§8), typed by their parameter and row structs; tests/unit/db_statements_test.cpp checks
// them all.
#pragma once

#include <optional>
#include <string>
#include <tuple>

#include "common/db/keys.h"
#include "common/db/query.h"

namespace pouch::model::sql {

struct ByPouch {
    std::string pouch_id;
    static auto db_params() { return std::tuple{db::col("pouch_id", &ByPouch::pouch_id)}; }
};

struct AccessRow {
    long long idx = 0;
    std::string statement, signature;
    static auto db_columns() {
        return std::tuple{db::col("idx", &AccessRow::idx), db::col("statement", &AccessRow::statement),
                          db::col("signature", &AccessRow::signature)};
    }
};

struct InsertAccess {
    std::string pouch_id;
    long long idx = 0;
    std::string kind, account_id;
    long long key_gen = 0;
    std::string statement, signature;
    static auto db_params() {
        return std::tuple{db::col("pouch_id", &InsertAccess::pouch_id), db::col("idx", &InsertAccess::idx),
                          db::col("kind", &InsertAccess::kind),
                          db::col("account_id", &InsertAccess::account_id),
                          db::col("key_gen", &InsertAccess::key_gen),
                          db::col("statement", &InsertAccess::statement),
                          db::col("signature", &InsertAccess::signature)};
    }
};

struct AccessChange {
    std::string pouch_id, account_id, role, state;
    long long access_index = 0;
    static auto db_params() {
        return std::tuple{db::col("pouch_id", &AccessChange::pouch_id),
                          db::col("account_id", &AccessChange::account_id),
                          db::col("role", &AccessChange::role), db::col("state", &AccessChange::state),
                          db::col("access_index", &AccessChange::access_index)};
    }
};

struct GrantRow {
    std::string pouch_id, account_id;
    long long key_gen = 0;
    std::string hpke_enc, ciphertext, granted_by, signature;
    static auto db_params() {
        return std::tuple{db::col("pouch_id", &GrantRow::pouch_id),
                          db::col("account_id", &GrantRow::account_id),
                          db::col("key_gen", &GrantRow::key_gen), db::col("hpke_enc", &GrantRow::hpke_enc),
                          db::col("ciphertext", &GrantRow::ciphertext),
                          db::col("granted_by", &GrantRow::granted_by),
                          db::col("signature", &GrantRow::signature)};
    }
};

struct Inserted {
    bool inserted = false;
    static auto db_columns() { return std::tuple{db::col("inserted", &Inserted::inserted)}; }
};

struct SharingAudit {
    std::string owner;
    std::optional<std::string> actor_user;
    std::string action, pouch_id, after, request_id;
    static auto db_params() {
        return std::tuple{db::col("owner", &SharingAudit::owner),
                          db::col("actor_user", &SharingAudit::actor_user),
                          db::col("action", &SharingAudit::action),
                          db::col("pouch_id", &SharingAudit::pouch_id),
                          db::col("after", &SharingAudit::after),
                          db::col("request_id", &SharingAudit::request_id)};
    }
};

struct AccountExists {
    bool found = false;
    static auto db_columns() { return std::tuple{db::col("found", &AccountExists::found)}; }
};

struct KeyGenRow {
    long long key_gen = 0;
    static auto db_columns() { return std::tuple{db::col("key_gen", &KeyGenRow::key_gen)}; }
};

struct ExpireParams {
    std::optional<std::string> account_id, pouch_id;
    static auto db_params() {
        return std::tuple{db::col("account_id", &ExpireParams::account_id),
                          db::col("pouch_id", &ExpireParams::pouch_id)};
    }
};

// ---- statements ---------------------------------------------------------------------------------

inline const db::Query<ByPouch, AccessRow> kAccessStatements{
    "model_access_statements",
    "SELECT idx, statement, signature FROM access_statements WHERE pouch_id = $1 ORDER BY idx"};

inline const db::Query<InsertAccess> kInsertAccess{
    "model_access_insert",
    "INSERT INTO access_statements (pouch_id, idx, kind, account_id, key_gen, statement, signature)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7)"};

// A share: the account's row becomes `state` ($4) with the role, its latest share now.
inline const db::Query<AccessChange> kAccessShare{
    "model_access_share",
    "INSERT INTO pouch_access (pouch_id, account_id, role, state, access_index)"
    " VALUES ($1, $2, $3, $4, $5)"
    " ON CONFLICT (pouch_id, account_id) DO UPDATE SET role = $3, state = $4, since = now(),"
    "   shared_at = now(), access_index = $5"};

inline const db::Query<AccessChange> kAccessRole{
    "model_access_role",
    "UPDATE pouch_access SET role = $3, access_index = $5"
    " WHERE pouch_id = $1 AND account_id = $2 AND $4::text IS NOT NULL"};

inline const db::Query<AccessChange> kAccessState{
    "model_access_state",
    "UPDATE pouch_access SET state = $4, since = now(), access_index = $5"
    " WHERE pouch_id = $1 AND account_id = $2 AND $3::text IS NOT NULL"};

inline const db::Query<db::PouchOfAccount> kActivateAccess{
    "model_access_activate",
    "UPDATE pouch_access SET state = 'active', since = now()"
    " WHERE pouch_id = $1 AND account_id = $2 AND state = 'invited'"};

// true when the grant was stored; false when the same (pouch, account, key_gen) is stored
// already with exactly these values (a retry). A different stored grant is neither: no row.
inline const db::Query<GrantRow, Inserted> kInsertGrant{
    "model_access_insert_grant",
    "WITH ins AS ("
    "  INSERT INTO key_grants (pouch_id, account_id, key_gen, hpke_enc, ciphertext, granted_by,"
    "                          signature)"
    "  VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING 1)"
    " SELECT true AS inserted FROM ins"
    " UNION ALL"
    " SELECT false FROM key_grants g WHERE NOT EXISTS (SELECT 1 FROM ins)"
    "    AND g.pouch_id = $1 AND g.account_id = $2 AND g.key_gen = $3 AND g.hpke_enc = $4"
    "    AND g.ciphertext = $5 AND g.granted_by = $6 AND g.signature = $7"};

// The owner's account is audit_log.account_id (SHARING.md §8: the owner reads its entries).
inline const db::Query<SharingAudit> kSharingAudit{
    "model_access_audit",
    "INSERT INTO audit_log (actor_user_id, action, target, after, request_id, account_id)"
    " VALUES ($2, $3, 'pouch:' || $4, $5::text::jsonb, $6, $1)"};

// Pending invitations past expires_at of account $1 (inviter or invitee) or of pouch $2 become
// expired, with their pouch_access rows still `invited`, and leave an audit entry each.
inline const db::Query<ExpireParams> kExpireInvitations{
    "model_access_expire_invitations",
    "WITH x AS ("
    "  UPDATE invitations SET state = 'expired', decided_at = expires_at"
    "   WHERE state = 'pending' AND expires_at <= now()"
    "     AND (inviter_account_id = $1::uuid OR invitee_account_id = $1::uuid"
    "          OR pouch_id = $2::uuid)"
    "  RETURNING id, pouch_id, invitee_account_id),"
    " a AS ("
    "  UPDATE pouch_access pa SET state = 'expired', since = now() FROM x"
    "   WHERE pa.pouch_id = x.pouch_id AND pa.account_id = x.invitee_account_id"
    "     AND pa.state = 'invited' RETURNING pa.pouch_id)"
    " INSERT INTO audit_log (actor_user_id, action, target, after, account_id)"
    " SELECT NULL, 'sharing.expire', 'pouch:' || x.pouch_id,"
    "        jsonb_build_object('invitation_id', x.id, 'account_id', x.invitee_account_id),"
    "        p.account_id"
    "   FROM x JOIN pouches p ON p.id = x.pouch_id"};


inline const db::Query<ByPouch, KeyGenRow> kPouchKeyGen{
    "model_access_pouch_key_gen", "SELECT key_gen FROM pouches WHERE id = $1"};

inline const db::Query<db::ByAccount, AccountExists> kAccountExists{
    "model_access_account_exists",
    "SELECT EXISTS (SELECT 1 FROM storage_accounts WHERE id = $1) AS found"};

}  // namespace pouch::model::sql
