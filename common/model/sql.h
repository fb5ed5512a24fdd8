// sql.h -- every statement of common/model, typed by its parameter and row structs
// (common/db/query.h), in one header so tests/unit/db_statements_test.cpp checks them all.
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "common/db/keys.h"
#include "common/db/query.h"

namespace pouch::model::sql {

using db::ById;
using db::ByAccount;

// ---- parameters and rows ------------------------------------------------------------------------

struct ByDevice {
    std::string device_id;
    static auto db_params() { return std::tuple{db::col("device_id", &ByDevice::device_id)}; }
};

struct One {
    int one = 1;
    static auto db_columns() { return std::tuple{db::col("one", &One::one)}; }
};

struct PouchId {
    std::string id;
    static auto db_columns() { return std::tuple{db::col("id", &PouchId::id)}; }
};

// A request's key envelopes as one jsonb array (their JSON as validated), and whose they are.
struct Envelopes {
    json::Raw envelopes;
    static auto db_params() { return std::tuple{db::col("envelopes", &Envelopes::envelopes)}; }
};

struct EnvelopesOfAccount {
    json::Raw envelopes;
    std::string account_id;
    static auto db_params() {
        return std::tuple{db::col("envelopes", &EnvelopesOfAccount::envelopes),
                          db::col("account_id", &EnvelopesOfAccount::account_id)};
    }
};

struct EnvelopesUnderRule {
    json::Raw envelopes;
    std::string account_id;
    std::string rule;  // rotation | history
    static auto db_params() {
        return std::tuple{db::col("envelopes", &EnvelopesUnderRule::envelopes),
                          db::col("account_id", &EnvelopesUnderRule::account_id),
                          db::col("rule", &EnvelopesUnderRule::rule)};
    }
};

// The 0-based index of the first envelope that fails a check; NULL when none does.
struct FirstBad {
    std::optional<long long> bad;
    static auto db_columns() { return std::tuple{db::col("bad", &FirstBad::bad)}; }
};

struct KeyGenProblem {
    long long bad = 0;
    std::string pouch_id;
    long long current_key_gen = 0;
    std::string problem;  // repeat | key_gen | stored
    static auto db_columns() {
        return std::tuple{db::col("bad", &KeyGenProblem::bad),
                          db::col("pouch_id", &KeyGenProblem::pouch_id),
                          db::col("current_key_gen", &KeyGenProblem::current_key_gen),
                          db::col("problem", &KeyGenProblem::problem)};
    }
};

struct CreatorOfAccount {
    std::string account_id, member_id;
    static auto db_params() {
        return std::tuple{db::col("account_id", &CreatorOfAccount::account_id),
                          db::col("member_id", &CreatorOfAccount::member_id)};
    }
};

struct PouchIds {
    std::vector<std::string> ids;
    static auto db_params() { return std::tuple{db::col("ids", &PouchIds::ids)}; }
};

struct NewEvents {
    std::vector<std::string> pouch_ids;
    std::string kind;
    std::optional<std::string> device_id;  // NULL: no device (a web session)
    static auto db_params() {
        return std::tuple{db::col("pouch_ids", &NewEvents::pouch_ids),
                          db::col("kind", &NewEvents::kind),
                          db::col("device_id", &NewEvents::device_id)};
    }
};

struct Locked {
    bool locked = true;
    static auto db_columns() { return std::tuple{db::col("locked", &Locked::locked)}; }
};

struct RosterStatement {
    std::string account_id, statement, signature;
    static auto db_params() {
        return std::tuple{db::col("account_id", &RosterStatement::account_id),
                          db::col("statement", &RosterStatement::statement),
                          db::col("signature", &RosterStatement::signature)};
    }
};

struct RosterIndex {
    long long idx = 0;
    static auto db_columns() { return std::tuple{db::col("idx", &RosterIndex::idx)}; }
};

struct NextIndex {
    long long next = 0;
    static auto db_columns() { return std::tuple{db::col("next", &NextIndex::next)}; }
};

struct UsageRow {
    long long limit_bytes = 0, stored_bytes = 0, reserved_bytes = 0;
    static auto db_columns() {
        return std::tuple{db::col("limit_bytes", &UsageRow::limit_bytes),
                          db::col("stored_bytes", &UsageRow::stored_bytes),
                          db::col("reserved_bytes", &UsageRow::reserved_bytes)};
    }
};

// ---- device tokens (device_tokens.cpp) ----------------------------------------------------------

inline const db::Query<ByDevice> kRevokeAccessTokens{
    "model_revoke_device_access_tokens",
    "UPDATE access_tokens SET revoked_at = now() WHERE device_id = $1 AND revoked_at IS NULL"};

inline const db::Query<ByDevice> kRevokeRefreshTokens{
    "model_revoke_device_refresh_tokens",
    "UPDATE refresh_tokens SET revoked_at = now() WHERE device_id = $1 AND revoked_at IS NULL"};

// ---- ids in use (ids_in_use.cpp) ----------------------------------------------------------------

inline const db::Query<ById, One> kPouchIdInUse{"model_pouch_id_in_use",
                                               "SELECT 1 AS one FROM pouches WHERE id = $1"};

inline const db::Query<ById, One> kMemberIdInUse{"model_member_id_in_use",
                                                "SELECT 1 AS one FROM members WHERE id = $1"};

// ---- key envelopes (key_envelopes.cpp) ----------------------------------------------------------

inline const db::Query<EnvelopesOfAccount, FirstBad> kFirstForeignPouch{
    "model_env_first_foreign_pouch",
    "SELECT min(e.ord) - 1 AS bad FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY e(v, ord)"
    " WHERE NOT EXISTS (SELECT 1 FROM pouch_access a"
    "                    WHERE a.pouch_id = (e.v->>'pouch_id')::uuid AND a.account_id = $2"
    "                      AND a.state = 'active')"};

inline const db::Query<EnvelopesOfAccount, FirstBad> kFirstInactiveMember{
    "model_env_first_inactive_member",
    "SELECT min(e.ord) - 1 AS bad FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY e(v, ord)"
    " WHERE NOT EXISTS (SELECT 1 FROM members m WHERE m.id = (e.v->>'member_id')::uuid"
    "                      AND m.account_id = $2 AND m.removed_at IS NULL)"};

// The first envelope (0-based index `bad`) that repeats an earlier one's (pouch, member,
// key_gen), breaks the key generation rule ($3: rotation | history) for its pouch, or differs
// from an envelope already stored under its (pouch, member, key_gen), with what is wrong and
// the pouch's current key_gen. The pouches are locked and the account's (kFirstForeignPouch).
inline const db::Query<EnvelopesUnderRule, KeyGenProblem> kFirstKeyGenProblem{
    "model_env_first_key_gen_problem",
    "WITH e AS ("
    "  SELECT x.ord - 1 AS i, (x.v->>'pouch_id')::uuid AS pouch_id,"
    "         (x.v->>'member_id')::uuid AS member_id, (x.v->>'key_gen')::bigint AS key_gen,"
    "         x.v->>'hpke_enc' AS hpke_enc, x.v->>'ciphertext' AS ciphertext,"
    "         (x.v->>'created_by_member')::uuid AS created_by_member, x.v->>'signature' AS "
    "signature"
    "    FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY x(v, ord)),"
    " checked AS ("
    "  SELECT e.i, e.pouch_id, p.key_gen AS current_key_gen,"
    "         CASE"
    "           WHEN row_number() OVER (PARTITION BY e.pouch_id, e.member_id, e.key_gen"
    "                                   ORDER BY e.i) > 1 THEN 'repeat'"
    "           WHEN $3 = 'rotation' AND (e.key_gen NOT IN (p.key_gen, p.key_gen + 1)"
    "                OR e.key_gen <> first_value(e.key_gen) OVER (PARTITION BY e.pouch_id"
    "                                                             ORDER BY e.i)) THEN 'key_gen'"
    "           WHEN $3 = 'history' AND e.key_gen > p.key_gen THEN 'key_gen'"
    "           WHEN k.pouch_id IS NOT NULL AND (k.hpke_enc, k.ciphertext, k.created_by_member,"
    "                k.signature) IS DISTINCT FROM (e.hpke_enc, e.ciphertext,"
    "                e.created_by_member, e.signature) THEN 'stored'"
    "         END AS problem"
    "    FROM e JOIN pouches p ON p.id = e.pouch_id"
    "    JOIN pouch_access a ON a.pouch_id = p.id AND a.account_id = $2 AND a.state = 'active'"
    "    LEFT JOIN key_envelopes k ON k.pouch_id = e.pouch_id AND k.member_id = e.member_id"
    "                             AND k.key_gen = e.key_gen)"
    " SELECT i AS bad, pouch_id, current_key_gen, problem FROM checked"
    "  WHERE problem IS NOT NULL ORDER BY i LIMIT 1"};

inline const db::Query<CreatorOfAccount> kDropAboveCurrent{
    "model_env_drop_above_current",
    "DELETE FROM key_envelopes k USING pouches p"
    " WHERE p.id = k.pouch_id AND k.created_by_member = $2"
    "   AND EXISTS (SELECT 1 FROM pouch_access a WHERE a.pouch_id = p.id AND a.account_id = $1"
    "                  AND a.state = 'active')"
    "   AND k.key_gen > p.key_gen"};

inline const db::Query<Envelopes> kInsertEnvelopes{
    "model_env_insert",
    "INSERT INTO key_envelopes (pouch_id, member_id, key_gen, hpke_enc, ciphertext,"
    "                           created_by_member, signature)"
    " SELECT pouch_id, member_id, key_gen, hpke_enc, ciphertext, created_by_member, signature"
    "   FROM jsonb_to_recordset($1::jsonb) AS e(pouch_id uuid, member_id uuid, key_gen bigint,"
    "        hpke_enc text, ciphertext text, created_by_member uuid, signature text)"
    " ON CONFLICT (pouch_id, member_id, key_gen) DO NOTHING"};

inline const db::Query<EnvelopesOfAccount, PouchId> kRaiseKeyGen{
    "model_env_raise_key_gen",
    "UPDATE pouches p SET key_gen = g.max_gen"
    "  FROM (SELECT (v->>'pouch_id')::uuid AS pouch_id, max((v->>'key_gen')::bigint) AS max_gen"
    "          FROM jsonb_array_elements($1::jsonb) v GROUP BY 1) g"
    " WHERE p.id = g.pouch_id AND g.max_gen > p.key_gen"
    "   AND EXISTS (SELECT 1 FROM pouch_access a WHERE a.pouch_id = p.id AND a.account_id = $2"
    "                  AND a.state = 'active')"
    " RETURNING p.id"};

inline const db::Query<EnvelopesOfAccount, PouchId> kLockEnvelopePouches{
    "model_env_lock_pouches",
    "SELECT id FROM pouches WHERE id IN"
    " (SELECT (v->>'pouch_id')::uuid FROM jsonb_array_elements($1::jsonb) v)"
    "   AND id IN (SELECT pouch_id FROM pouch_access WHERE account_id = $2 AND state = 'active')"
    " ORDER BY id FOR UPDATE"};

// ---- pouch events (pouch_events.cpp) ------------------------------------------------------------

inline const db::Query<PouchIds, PouchId> kLockPouches{
    "model_lock_pouches",
    "SELECT id FROM pouches WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE"};

inline const db::Query<NewEvents> kAppendEvents{
    "model_append_events",
    "WITH bumped AS ("
    "  UPDATE pouches SET high_water = high_water + 1 WHERE id = ANY($1::uuid[])"
    "  RETURNING id, epoch, high_water, key_gen)"
    " INSERT INTO events (pouch_id, epoch, seq, kind, device_id, key_gen)"
    " SELECT id, epoch, high_water, $2, $3::uuid, key_gen FROM bumped"};

inline const db::Query<ByAccount, PouchId> kAccountPouches{
    "model_account_pouches",
    "SELECT pouch_id AS id FROM pouch_access WHERE account_id = $1 AND state = 'active'"
    " ORDER BY pouch_id"};

// ---- roster (roster.cpp) ------------------------------------------------------------------------

inline const db::Query<ByAccount, Locked> kRosterLock{
    "model_roster_lock",
    "SELECT true AS locked FROM pg_advisory_xact_lock(hashtextextended('roster:' || $1, 0))"};

inline const db::Query<RosterStatement, RosterIndex> kAppendRoster{
    "model_append_roster",
    "INSERT INTO roster_entries (account_id, idx, statement, signature)"
    " SELECT $1, coalesce((SELECT max(idx) + 1 FROM roster_entries WHERE account_id = $1), 0),"
    "        $2, $3"
    " WHERE NOT EXISTS (SELECT 1 FROM roster_entries WHERE account_id = $1 AND statement = $2)"
    " RETURNING idx"};

inline const db::Query<ByAccount, NextIndex> kNextRosterIndex{
    "model_next_roster_index",
    "SELECT coalesce(max(idx) + 1, 0) AS next FROM roster_entries WHERE account_id = $1"};

// ---- usage (usage.cpp) --------------------------------------------------------------------------

inline const db::Query<ByAccount, UsageRow> kLockUsage{
    "model_usage_lock",
    "SELECT p.storage_bytes AS limit_bytes, account_stored_bytes(a.id) AS stored_bytes,"
    "       account_reserved_bytes(a.id) AS reserved_bytes"
    "  FROM storage_accounts a JOIN plans p ON p.id = a.plan_id"
    " WHERE a.id = $1 FOR UPDATE OF a"};

inline const db::Query<ByAccount, UsageRow> kUsage{
    "model_usage",
    "SELECT p.storage_bytes AS limit_bytes, account_stored_bytes(a.id) AS stored_bytes,"
    "       account_reserved_bytes(a.id) AS reserved_bytes"
    "  FROM storage_accounts a JOIN plans p ON p.id = a.plan_id WHERE a.id = $1"};

}  // namespace pouch::model::sql
