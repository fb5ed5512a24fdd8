// sql_key_envelopes.h -- the statements of envelope storage (key_envelopes.cpp): the envelope
// array goes to PostgreSQL as one jsonb parameter (jsonb_to_recordset), so the checks are a few
// set queries. In a header so tests/unit/db_statements_test.cpp checks them against the schema.
#pragma once

#include <optional>
#include <string>
#include <tuple>

#include "common/db/query.h"
#include "common/json/described.h"

namespace pouch::model::sql {

// ---- parameters and rows ------------------------------------------------------------------------

// The request's envelope array as it came (JSON text), and the account it must belong to.
struct EnvelopesOfAccount {
    json::Raw envelopes;
    std::string account_id;
    static auto db_params() {
        return std::tuple{db::col("envelopes", &EnvelopesOfAccount::envelopes),
                          db::col("account_id", &EnvelopesOfAccount::account_id)};
    }
};

struct KeyGenCheck {
    json::Raw envelopes;
    std::string account_id;
    std::string rule;  // rotation | history
    static auto db_params() {
        return std::tuple{db::col("envelopes", &KeyGenCheck::envelopes),
                          db::col("account_id", &KeyGenCheck::account_id),
                          db::col("rule", &KeyGenCheck::rule)};
    }
};

struct Envelopes {
    json::Raw envelopes;
    static auto db_params() { return std::tuple{db::col("envelopes", &Envelopes::envelopes)}; }
};

struct CreatorOfAccount {
    std::string account_id, member_id;
    static auto db_params() {
        return std::tuple{db::col("account_id", &CreatorOfAccount::account_id),
                          db::col("member_id", &CreatorOfAccount::member_id)};
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

struct PouchRow {
    std::string id;
    static auto db_columns() { return std::tuple{db::col("id", &PouchRow::id)}; }
};

// ---- statements ---------------------------------------------------------------------------------

inline const db::Query<EnvelopesOfAccount, FirstBad> kFirstForeignPouch{
    "model_env_first_foreign_pouch",
    "SELECT min(e.ord) - 1 AS bad FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY e(v, ord)"
    " WHERE NOT EXISTS (SELECT 1 FROM pouches p"
    "                    WHERE p.id = (e.v->>'pouch_id')::uuid AND p.account_id = $2)"};

inline const db::Query<EnvelopesOfAccount, FirstBad> kFirstInactiveMember{
    "model_env_first_inactive_member",
    "SELECT min(e.ord) - 1 AS bad FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY e(v, ord)"
    " WHERE NOT EXISTS (SELECT 1 FROM members m WHERE m.id = (e.v->>'member_id')::uuid"
    "                      AND m.account_id = $2 AND m.removed_at IS NULL)"};

// The first envelope (0-based index `bad`) that repeats an earlier one's (pouch, member,
// key_gen), breaks the key generation rule ($3: rotation | history) for its pouch, or differs
// from an envelope already stored under its (pouch, member, key_gen), with what is wrong and
// the pouch's current key_gen. The pouches are locked and the account's (kFirstForeignPouch).
inline const db::Query<KeyGenCheck, KeyGenProblem> kFirstKeyGenProblem{
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
    "    FROM e JOIN pouches p ON p.id = e.pouch_id AND p.account_id = $2"
    "    LEFT JOIN key_envelopes k ON k.pouch_id = e.pouch_id AND k.member_id = e.member_id"
    "                             AND k.key_gen = e.key_gen)"
    " SELECT i AS bad, pouch_id, current_key_gen, problem FROM checked"
    "  WHERE problem IS NOT NULL ORDER BY i LIMIT 1"};

inline const db::Query<CreatorOfAccount> kDropAboveCurrent{
    "model_env_drop_above_current",
    "DELETE FROM key_envelopes k USING pouches p"
    " WHERE p.id = k.pouch_id AND p.account_id = $1 AND k.created_by_member = $2"
    "   AND k.key_gen > p.key_gen"};

inline const db::Query<Envelopes> kInsertEnvelopes{
    "model_env_insert",
    "INSERT INTO key_envelopes (pouch_id, member_id, key_gen, hpke_enc, ciphertext,"
    "                           created_by_member, signature)"
    " SELECT pouch_id, member_id, key_gen, hpke_enc, ciphertext, created_by_member, signature"
    "   FROM jsonb_to_recordset($1::jsonb) AS e(pouch_id uuid, member_id uuid, key_gen bigint,"
    "        hpke_enc text, ciphertext text, created_by_member uuid, signature text)"
    " ON CONFLICT (pouch_id, member_id, key_gen) DO NOTHING"};

// Raises key_gen where an envelope is newer; returns the pouches that rotated.
inline const db::Query<EnvelopesOfAccount, PouchRow> kRaiseKeyGen{
    "model_env_raise_key_gen",
    "UPDATE pouches p SET key_gen = g.max_gen"
    "  FROM (SELECT (v->>'pouch_id')::uuid AS pouch_id, max((v->>'key_gen')::bigint) AS max_gen"
    "          FROM jsonb_array_elements($1::jsonb) v GROUP BY 1) g"
    " WHERE p.id = g.pouch_id AND p.account_id = $2 AND g.max_gen > p.key_gen"
    " RETURNING p.id"};

inline const db::Query<EnvelopesOfAccount, PouchRow> kLockEnvelopePouches{
    "model_env_lock_pouches",
    "SELECT id FROM pouches WHERE account_id = $2 AND id IN"
    " (SELECT (v->>'pouch_id')::uuid FROM jsonb_array_elements($1::jsonb) v)"
    " ORDER BY id FOR UPDATE"};

}  // namespace pouch::model::sql
