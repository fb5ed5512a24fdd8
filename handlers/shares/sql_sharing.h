// sql_sharing.h -- the statements of the sharing endpoints of the shares group (docs/SHARING.md
// §6-§9): invitations, the access list and members of a pouch, other accounts' rosters and the
// key grants to an account. The list's own writes are common/model/access.h's.
#pragma once

#include <optional>
#include <string>
#include <tuple>

#include "common/db/keys.h"
#include "common/db/query.h"
#include "common/model/sql.h"
#include "common/paging/paging.h"
#include "handlers/shares/sharing_types.h"

namespace pouch::shares::sql {

struct CountRow {
    long long n = 0;
    static auto db_columns() { return std::tuple{db::col("n", &CountRow::n)}; }
};

struct NewInvitation {
    std::string id, pouch_id, inviter_account_id, invitee_account_id, email, role;
    long long expires_in = 0, access_index = 0;
    static auto db_params() {
        return std::tuple{db::col("id", &NewInvitation::id),
                          db::col("pouch_id", &NewInvitation::pouch_id),
                          db::col("inviter_account_id", &NewInvitation::inviter_account_id),
                          db::col("invitee_account_id", &NewInvitation::invitee_account_id),
                          db::col("email", &NewInvitation::email),
                          db::col("role", &NewInvitation::role),
                          db::col("expires_in", &NewInvitation::expires_in),
                          db::col("access_index", &NewInvitation::access_index)};
    }
};

struct IdRow {
    std::string id;
    static auto db_columns() { return std::tuple{db::col("id", &IdRow::id)}; }
};

struct Decide {
    std::string id, state;
    static auto db_params() {
        return std::tuple{db::col("id", &Decide::id), db::col("state", &Decide::state)};
    }
};

struct PouchPage {
    std::string pouch_id;
    std::optional<long long> after_us;
    std::optional<std::string> after_id;
    long long limit = 0;
    static auto db_params() {
        return std::tuple{
            db::col("pouch_id", &PouchPage::pouch_id), db::col("after_us", &PouchPage::after_us),
            db::col("after_id", &PouchPage::after_id), db::col("limit", &PouchPage::limit)};
    }
};

struct AccountPage {
    std::string account_id, direction;
    std::optional<std::string> state;
    std::optional<long long> after_us;
    std::optional<std::string> after_id;
    long long limit = 0;
    static auto db_params() {
        return std::tuple{db::col("account_id", &AccountPage::account_id),
                          db::col("direction", &AccountPage::direction),
                          db::col("state", &AccountPage::state),
                          db::col("after_us", &AccountPage::after_us),
                          db::col("after_id", &AccountPage::after_id),
                          db::col("limit", &AccountPage::limit)};
    }
};

struct IndexPage {
    std::string id;  // a pouch (access list) or an account (roster)
    std::optional<long long> after;
    long long limit = 0;
    static auto db_params() {
        return std::tuple{db::col("id", &IndexPage::id), db::col("after", &IndexPage::after),
                          db::col("limit", &IndexPage::limit)};
    }
};

struct IndexedRow : IndexedStatement {
    static auto db_columns() { return IndexedStatement::json_fields(); }
};

struct GrantPage {
    std::string pouch_id, account_id;
    std::optional<long long> key_gen;
    std::optional<long long> after;
    long long limit = 0;
    static auto db_params() {
        return std::tuple{db::col("pouch_id", &GrantPage::pouch_id),
                          db::col("account_id", &GrantPage::account_id),
                          db::col("key_gen", &GrantPage::key_gen),
                          db::col("after", &GrantPage::after), db::col("limit", &GrantPage::limit)};
    }
};

struct GrantRow : GrantOut {
    static auto db_columns() { return GrantOut::json_fields(); }
};

struct AccessState {
    std::string role, state;
    static auto db_columns() {
        return std::tuple{db::col("role", &AccessState::role),
                          db::col("state", &AccessState::state)};
    }
};

struct PouchOwner {
    std::string account_id;
    long long key_gen = 0;
    static auto db_columns() {
        return std::tuple{db::col("account_id", &PouchOwner::account_id),
                          db::col("key_gen", &PouchOwner::key_gen)};
    }
};

// ---- statements ---------------------------------------------------------------------------------

#define POUCH_INVITATION_COLUMNS                                                                   \
    "i.id, i.pouch_id, i.inviter_account_id,"                                                      \
    " (SELECT u.email FROM storage_accounts sa JOIN users u ON u.id = sa.owner_user_id"            \
    "   WHERE sa.id = i.inviter_account_id) AS inviter_email,"                                     \
    " i.invitee_account_id, i.email, i.role, i.state, iso(i.created_at) AS created_at,"            \
    " iso(i.expires_at) AS expires_at, iso(i.decided_at) AS decided_at, i.access_index,"           \
    " (SELECT jsonb_build_object('statement', ai.statement, 'signature', ai.signature, 'genesis'," \
    "         (SELECT jsonb_build_object('statement', r.statement, 'signature', r.signature)"      \
    "            FROM roster_entries r WHERE r.account_id = ai.account_id AND r.idx = 0))::text"   \
    "    FROM account_identities ai WHERE ai.account_id = i.inviter_account_id)"                   \
    "   AS inviter_identity,"                                                                      \
    " " POUCH_PAGING_MICROS("i.created_at") " AS created_us"

// SHARING.md §6: at most 100 pending invitations per inviting account.
// Two invitations of one account at the same moment (on different pouches) count its pending
// ones one after the other: the limit of 100 holds under concurrency. Only invite takes it.
inline const db::Query<db::ByAccount, model::sql::Locked> kInviterLock{
    "sharing_inviter_lock",
    "SELECT true AS locked FROM pg_advisory_xact_lock(hashtextextended('invite:' || $1, 0))"};

inline const db::Query<db::ByAccount, CountRow> kPendingOfInviter{
    "sharing_pending_of_inviter",
    "SELECT count(*) AS n FROM invitations WHERE inviter_account_id = $1 AND state = 'pending'"};

// No row: the id is taken.
inline const db::Query<NewInvitation, IdRow> kInsertInvitation{
    "sharing_insert_invitation",
    "INSERT INTO invitations (id, pouch_id, inviter_account_id, invitee_account_id, email, role,"
    "                         expires_at, access_index)"
    " VALUES ($1, $2, $3, $4, $5, $6, now() + $7::bigint * interval '1 second', $8)"
    " ON CONFLICT (id) DO NOTHING RETURNING id"};

inline const db::Query<db::ById, InvitationRow> kInvitation{
    "sharing_invitation", "SELECT " POUCH_INVITATION_COLUMNS " FROM invitations i WHERE i.id = $1"};

inline const db::Query<db::ById, InvitationRow> kLockInvitation{
    "sharing_lock_invitation",
    "SELECT " POUCH_INVITATION_COLUMNS " FROM invitations i WHERE i.id = $1 FOR UPDATE OF i"};

inline const db::Query<Decide> kDecideInvitation{
    "sharing_decide_invitation",
    "UPDATE invitations SET state = $2, decided_at = now() WHERE id = $1 AND state = 'pending'"};

// The pending invitation of account $2 to pouch $1, if any (a remove withdraws it).
inline const db::Query<db::PouchOfAccount, IdRow> kPendingInvitationOf{
    "sharing_pending_invitation_of",
    "SELECT id FROM invitations WHERE pouch_id = $1 AND invitee_account_id = $2"
    "   AND state = 'pending'"};

// One page, newest first, after ($2 µs, $3 id).
inline const db::Query<PouchPage, InvitationRow> kPouchInvitations{
    "sharing_pouch_invitations",
    "SELECT " POUCH_INVITATION_COLUMNS " FROM invitations i WHERE i.pouch_id = $1"
    "   AND ($2::bigint IS NULL"
    "        OR (i.created_at, i.id) < (" POUCH_PAGING_FROM_MICROS("$2") ", $3::uuid))"
    " ORDER BY i.created_at DESC, i.id DESC LIMIT $4"};

// $2 received | sent, $3 a state or NULL; one page newest first after ($4 µs, $5 id).
inline const db::Query<AccountPage, InvitationRow> kAccountInvitations{
    "sharing_account_invitations",
    "SELECT " POUCH_INVITATION_COLUMNS " FROM invitations i"
    " WHERE (CASE WHEN $2 = 'sent' THEN i.inviter_account_id ELSE i.invitee_account_id END) = $1"
    "   AND ($3::text IS NULL OR i.state = $3)"
    "   AND ($4::bigint IS NULL"
    "        OR (i.created_at, i.id) < (" POUCH_PAGING_FROM_MICROS("$4") ", $5::uuid))"
    " ORDER BY i.created_at DESC, i.id DESC LIMIT $6"};

inline const db::Query<IndexPage, IndexedRow> kAccessPage{
    "sharing_access_page",
    "SELECT idx AS index, statement, signature FROM access_statements WHERE pouch_id = $1"
    "   AND ($2::bigint IS NULL OR idx > $2) ORDER BY idx LIMIT $3"};

inline const db::Query<IndexPage, IndexedRow> kRosterPage{
    "sharing_roster_page",
    "SELECT idx AS index, statement, signature FROM roster_entries WHERE account_id = $1"
    "   AND ($2::bigint IS NULL OR idx > $2) ORDER BY idx LIMIT $3"};

// SHARING.md §9: the accounts of the pouch that are in it, invited or whose invitation expired.
inline const db::Query<PouchPage, MemberRow> kMembers{
    "sharing_members",
    "SELECT a.account_id,"
    "       coalesce((SELECT u.email FROM storage_accounts sa JOIN users u ON u.id = sa.owner_user_id"
    "                  WHERE sa.id = a.account_id),"
    "                (SELECT i.email FROM invitations i WHERE i.pouch_id = a.pouch_id"
    "                    AND i.invitee_account_id = a.account_id"
    "                  ORDER BY i.created_at DESC LIMIT 1)) AS email,"
    "       a.role, a.state, iso(a.since) AS since,"
    "       ai.statement AS identity_statement, ai.signature AS identity_signature,"
    "       " POUCH_PAGING_MICROS("a.shared_at") " AS shared_us"
    "  FROM pouch_access a LEFT JOIN account_identities ai ON ai.account_id = a.account_id"
    " WHERE a.pouch_id = $1 AND a.state IN ('active', 'invited', 'expired')"
    "   AND ($2::bigint IS NULL"
    "        OR (a.shared_at, a.account_id) > (" POUCH_PAGING_FROM_MICROS("$2") ", $3::uuid))"
    " ORDER BY a.shared_at, a.account_id LIMIT $4"};

// The caller's row of a pouch in any state (an invitee reads the access list before accepting).
inline const db::Query<db::PouchOfAccount, AccessState> kAccessStateOf{
    "sharing_access_state_of",
    "SELECT role, state FROM pouch_access WHERE pouch_id = $1 AND account_id = $2"};

inline const db::Query<GrantPage, GrantRow> kGrants{
    "sharing_grants",
    "SELECT pouch_id, account_id, key_gen, hpke_enc, ciphertext, granted_by, signature,"
    "       iso(created_at) AS created_at FROM key_grants"
    " WHERE pouch_id = $1 AND account_id = $2 AND ($3::bigint IS NULL OR key_gen = $3)"
    "   AND ($4::bigint IS NULL OR key_gen > $4) ORDER BY key_gen LIMIT $5"};

inline const db::Query<db::ById, PouchOwner> kPouchOwner{
    "sharing_pouch_owner", "SELECT account_id, key_gen FROM pouches WHERE id = $1"};
inline const db::Query<db::ById, PouchOwner> kLockPouchOwner{
    "sharing_lock_pouch_owner", "SELECT account_id, key_gen FROM pouches WHERE id = $1 FOR UPDATE"};

}  // namespace pouch::shares::sql
