// key_envelopes.cpp -- envelope storage for the groups that change keys. The envelope array goes to
// PostgreSQL as one jsonb parameter (jsonb_to_recordset), so 2,000 envelopes are a few statements,
// not 2,000 round trips: the key generation rule and the stored-envelope check are one set query
// before the insert (sql_key_envelopes.h).
#include "common/model/key_envelopes.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "common/json/out.h"
#include "common/json/value.h"
#include "common/model/pouch_events.h"
#include "common/model/sql_key_envelopes.h"
#include "common/types/error.h"

namespace pouch::model {

namespace {

std::string to_json(const rapidjson::Value& v) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    v.Accept(w);
    return std::string(buf.GetString(), buf.GetSize());
}

void fail_at(const sql::FirstBad& r, const std::string& pointer, const char* member,
             const std::string& message) {
    if (!r.bad) return;
    throw validation_failed(pointer + "/" + std::to_string(*r.bad) + "/" + member, message);
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
    const sql::EnvelopesOfAccount of{.envelopes = {to_json(envelopes)}, .account_id = account_id};
    fail_at(conn.one(sql::kFirstForeignPouch, of), pointer, "pouch_id",
            "names no pouch of this account");
    if (require_active_member)
        fail_at(conn.one(sql::kFirstInactiveMember, of), pointer, "member_id",
                "names no active member of this account");
    conn.run(sql::kLockEnvelopePouches, of);  // id order, as every writer locks
    std::optional<sql::KeyGenProblem> bad = conn.maybe_one(
        sql::kFirstKeyGenProblem, {.envelopes = of.envelopes,
                                   .account_id = account_id,
                                   .rule = rule == KeyGenRule::rotation ? "rotation" : "history"});
    if (bad) {
        std::string at = pointer + "/" + std::to_string(bad->bad);
        const std::string& problem = bad->problem;
        if (problem == "repeat")
            throw validation_failed(at,
                                    "repeats the pouch, member and key_gen of an earlier envelope");
        long long current = bad->current_key_gen;
        json::Out d;
        d.kv("current_key_gen", current).kv("pouch_id", bad->pouch_id);
        std::string message =
            problem == "stored"
                ? "another envelope is already stored for this pouch, member and key_gen"
            : rule == KeyGenRule::rotation
                ? "a request's envelopes for one pouch must share one key_gen, the pouch's "
                  "current " +
                      std::to_string(current) + " or the next"
                : "key_gen must not be above the pouch's current " + std::to_string(current);
        throw Error(Fault::conflict, "key_gen_conflict", message, at + "/key_gen")
            .with_details(d.done());
    }
    conn.run(sql::kInsertEnvelopes, {.envelopes = of.envelopes});
    for (const sql::PouchRow& p : conn.rows(sql::kRaiseKeyGen, of))
        out.rotated_pouches.push_back(p.id);
    append_pouch_events(conn, out.rotated_pouches, "key_rotation", device_id);
    return out;
}

void drop_envelopes_above_current(db::Conn& conn, const std::string& account_id,
                                  const std::string& member_id) {
    conn.run(sql::kDropAboveCurrent, {.account_id = account_id, .member_id = member_id});
}

}  // namespace pouch::model
