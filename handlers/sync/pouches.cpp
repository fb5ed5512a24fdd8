// pouches.cpp -- list, get and create pouches (decisions §5.1). Creating one needs the
// caller's member (genesis first) and respects the plan's pouch_limit, checked under the
// account row lock so two creates cannot both take the last slot.
#include "common/auth/caller.h"
#include "common/crypto/random.h"
#include "common/http/query.h"
#include "common/json/out.h"
#include "common/model/ids_in_use.h"
#include "common/model/key_envelopes.h"
#include "common/model/schemas.h"
#include "common/model/usage.h"
#include "common/paging/paging.h"
#include "handlers/sync/pouch_json.h"
#include "handlers/sync/routes.h"
#include "handlers/sync/sql_pouches.h"

namespace pouch::sync {

http::Response list_pouches(api::Call& call) {
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    const http::QueryValues& q = call.query;
    const paging::List list("pouches/" + c.account_id, {paging::Key::natural, paging::Key::uuid});
    auto after = list.read(q);
    long long limit = q.integer("limit");
    auto conn = s.db.acquire();
    db::Result r =
        conn->exec(sql::kListPouches, {c.account_id, paging::after_key(after, 0),
                                       paging::after_key(after, 1), std::to_string(limit + 1)});
    return list.page(limit, r.rows(), r.rows(), [&](json::Out& o, int i) {
        write_pouch(o, r, i);
        return paging::Keys{r.text(i, "created_us"), r.text(i, "id")};
    });
}

http::Response get_pouch(api::Call& call) {
    const PouchRow& p = call.pouch();
    json::Out o;
    o.kv("id", p.id).kv("epoch", p.epoch).kv("key_gen", p.key_gen);
    o.kv("high_water", p.high_water).kv("created_at", p.created_at);
    return api::ok(o.done());
}

http::Response create_pouch(api::Call& call) {
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    const rapidjson::Document& doc = call.body;
    std::string id = json::text(doc["id"]);
    const auto& envelopes = doc["key_envelopes"];
    long long key_gen = envelopes[0]["key_gen"].GetInt64();
    for (rapidjson::SizeType i = 0; i < envelopes.Size(); ++i) {
        std::string at = "/key_envelopes/" + std::to_string(i);
        if (json::text(envelopes[i]["pouch_id"]) != id)
            throw validation_failed(at + "/pouch_id", "must be the new pouch's id");
        if (envelopes[i]["key_gen"].GetInt64() != key_gen)
            throw validation_failed(at + "/key_gen", "every envelope must have the same key_gen");
    }
    if (c.member_id.empty()) throw Error(Code::genesis_required);

    auto conn = s.db.acquire();
    db::Transaction tx(*conn);
    db::Result plan = conn->exec(sql::kLockAccountPlan, {c.account_id});
    if (plan.int64(0, "pouches") >= plan.int64(0, "pouch_limit"))
        throw Error(Code::pouch_limit_reached,
                    "the plan allows " + plan.text(0, "pouch_limit") + " pouches");
    if (model::pouch_id_in_use(*conn, id))
        throw validation_failed("/id", "this pouch id is already in use");
    model::Usage before = model::account_usage(*conn, c.account_id);  // row locked above
    db::Result row = conn->exec(sql::kInsertPouch,
                                {id, c.account_id, crypto::uuid_v4(), std::to_string(key_gen)});
    model::store_key_envelopes(*conn, c.account_id, envelopes, "/key_envelopes", c.member_id,
                               c.device_id, true, model::KeyGenRule::rotation);
    model::require_within_quota(*conn, c.account_id, before);
    tx.commit();
    json::Out o;
    o.kv("id", row.text(0, "id")).kv("epoch", row.text(0, "epoch"));
    o.kv("key_gen", row.int64(0, "key_gen")).kv("high_water", row.int64(0, "high_water"));
    o.kv("created_at", row.text(0, "created_at"));
    return api::created(o.done());
}

}  // namespace pouch::sync
