// key_envelopes.cpp -- envelope storage for the groups that change keys. The envelope array goes to
// PostgreSQL as one jsonb parameter (jsonb_to_recordset), so 2,000 envelopes are a few statements,
// not 2,000 round trips: the key generation rule and the stored-envelope check are one set query
// before the insert.
#include "common/model/key_envelopes.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "common/json/out.h"
#include "common/json/value.h"
#include "common/model/pouch_events.h"
#include "common/types/error.h"

namespace pouch::model {

namespace {

const db::Statement kFirstForeignPouch{
    "model_env_first_foreign_pouch",
    "SELECT min(e.ord) - 1 AS bad FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY e(v, ord)"
    " WHERE NOT EXISTS (SELECT 1 FROM pouches p"
    "                    WHERE p.id = (e.v->>'pouch_id')::uuid AND p.account_id = $2)"};

const db::Statement kFirstInactiveMember{
    "model_env_first_inactive_member",
    "SELECT min(e.ord) - 1 AS bad FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY e(v, ord)"
    " WHERE NOT EXISTS (SELECT 1 FROM members m WHERE m.id = (e.v->>'member_id')::uuid"
    "                      AND m.account_id = $2 AND m.removed_at IS NULL)"};

// The first envelope (0-based index `bad`) that repeats an earlier one's (pouch, member,
// key_gen), breaks the key generation rule ($3: rotation | history) for its pouch, or differs
// from an envelope already stored under its (pouch, member, key_gen), with what is wrong and
// the pouch's current key_gen. The pouches are locked and the account's (kFirstForeignPouch).
const db::Statement kFirstKeyGenProblem{
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

const db::Statement kDropAboveCurrent{
    "model_env_drop_above_current",
    "DELETE FROM key_envelopes k USING pouches p"
    " WHERE p.id = k.pouch_id AND p.account_id = $1 AND k.created_by_member = $2"
    "   AND k.key_gen > p.key_gen"};

const db::Statement kInsertEnvelopes{
    "model_env_insert",
    "INSERT INTO key_envelopes (pouch_id, member_id, key_gen, hpke_enc, ciphertext,"
    "                           created_by_member, signature)"
    " SELECT pouch_id, member_id, key_gen, hpke_enc, ciphertext, created_by_member, signature"
    "   FROM jsonb_to_recordset($1::jsonb) AS e(pouch_id uuid, member_id uuid, key_gen bigint,"
    "        hpke_enc text, ciphertext text, created_by_member uuid, signature text)"
    " ON CONFLICT (pouch_id, member_id, key_gen) DO NOTHING"};

// Raises key_gen where an envelope is newer; returns the pouches that rotated.
const db::Statement kRaiseKeyGen{
    "model_env_raise_key_gen",
    "UPDATE pouches p SET key_gen = g.max_gen"
    "  FROM (SELECT (v->>'pouch_id')::uuid AS pouch_id, max((v->>'key_gen')::bigint) AS max_gen"
    "          FROM jsonb_array_elements($1::jsonb) v GROUP BY 1) g"
    " WHERE p.id = g.pouch_id AND p.account_id = $2 AND g.max_gen > p.key_gen"
    " RETURNING p.id"};

const db::Statement kLockEnvelopePouches{
    "model_env_lock_pouches",
    "SELECT id FROM pouches WHERE account_id = $2 AND id IN"
    " (SELECT (v->>'pouch_id')::uuid FROM jsonb_array_elements($1::jsonb) v)"
    " ORDER BY id FOR UPDATE"};

std::string to_json(const rapidjson::Value& v) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    v.Accept(w);
    return std::string(buf.GetString(), buf.GetSize());
}

void fail_at(const db::Result& r, const std::string& pointer, const char* member,
             const std::string& message) {
    if (r.rows() == 0 || r.is_null(0, 0)) return;
    throw validation_failed(pointer + "/" + r.text(0, "bad") + "/" + member, message);
}

}  // namespace

StoredEnvelopes store_key_envelopes(db::Conn& conn, const std::string& account_id,
                                    const rapidjson::Value& envelopes, const std::string& pointer,
                                    const std::string& creator_member_id,
                                    const std::string& device_id, bool require_active_member,
                                    KeyGenRule rule) {
    StoredEnvelopes out;
    if (!envelopes.IsArray() || envelopes.Empty()) return out;
    for (rapidjson::SizeType i = 0; i < envelopes.Size(); ++i) {
        if (json::text(envelopes[i]["created_by_member"]) != creator_member_id)
            throw validation_failed(pointer + "/" + std::to_string(i) + "/created_by_member",
                                    "must be the member id of the caller");
    }
    std::string json = to_json(envelopes);
    fail_at(conn.exec(kFirstForeignPouch, {json, account_id}), pointer, "pouch_id",
            "names no pouch of this account");
    if (require_active_member)
        fail_at(conn.exec(kFirstInactiveMember, {json, account_id}), pointer, "member_id",
                "names no active member of this account");
    conn.exec(kLockEnvelopePouches, {json, account_id});  // id order, as every writer locks
    db::Result bad =
        conn.exec(kFirstKeyGenProblem,
                  {json, account_id, rule == KeyGenRule::rotation ? "rotation" : "history"});
    if (bad.rows() == 1) {
        std::string at = pointer + "/" + bad.text(0, "bad");
        std::string problem = bad.text(0, "problem");
        if (problem == "repeat")
            throw validation_failed(at,
                                    "repeats the pouch, member and key_gen of an earlier envelope");
        long long current = bad.int64(0, "current_key_gen");
        json::Out d;
        d.kv("current_key_gen", current).kv("pouch_id", bad.text(0, "pouch_id"));
        std::string message =
            problem == "stored"
                ? "another envelope is already stored for this pouch, member and key_gen"
            : rule == KeyGenRule::rotation
                ? "a request's envelopes for one pouch must share one key_gen, the pouch's "
                  "current " +
                      std::to_string(current) + " or the next"
                : "key_gen must not be above the pouch's current " + std::to_string(current);
        throw Error(Code::key_gen_conflict, message, at + "/key_gen").with_details(d.done());
    }
    conn.exec(kInsertEnvelopes, {json});
    db::Result rotated = conn.exec(kRaiseKeyGen, {json, account_id});
    for (int i = 0; i < rotated.rows(); ++i) out.rotated_pouches.push_back(rotated.text(i, 0));
    append_pouch_events(conn, out.rotated_pouches, "key_rotation", device_id);
    return out;
}

void drop_envelopes_above_current(db::Conn& conn, const std::string& account_id,
                                  const std::string& member_id) {
    conn.exec(kDropAboveCurrent, {account_id, member_id});
}

}  // namespace pouch::model
