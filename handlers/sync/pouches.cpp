// pouches.cpp -- list, get and create pouches (decisions §5.1). Creating one needs the
// caller's member (genesis first) and respects the plan's pouch_limit, checked under the
// account row lock so two creates cannot both take the last slot.
#include "common/auth/caller.h"
#include "common/crypto/random.h"
#include "common/http/query.h"
#include "common/json/described.h"
#include "common/model/ids_in_use.h"
#include "common/model/key_envelopes.h"
#include "common/model/schemas.h"
#include "common/model/usage.h"
#include "common/paging/paging.h"
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
    std::vector<sql::PouchListRow> rows =
        conn->rows(sql::kListPouches, {.account_id = c.account_id,
                                       .after_us = paging::after_number(after, 0),
                                       .after_id = paging::after_key(after, 1),
                                       .limit = limit + 1});
    int n = static_cast<int>(rows.size());
    return list.page(limit, n, n, [&](json::Out& o, int i) {
        const sql::PouchListRow& p = rows[static_cast<size_t>(i)];
        o.obj();
        json::write_members(o, static_cast<const Pouch&>(p));
        o.end_obj();
        return paging::Keys{std::to_string(p.created_us), p.id};
    });
}

Pouch get_pouch(api::Call& call) {
    const PouchRow& p = call.pouch();
    return {.id = p.id,
            .epoch = p.epoch,
            .key_gen = p.key_gen,
            .high_water = p.high_water,
            .file_changes = p.file_changes,
            .created_at = p.created_at,
            .role = p.role,
            .owner_account_id = p.owner(),
            .shared = p.shared};
}

api::Created<Pouch> create_pouch(api::Call& call) {
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
    sql::PouchSlots plan = conn->one(sql::kLockAccountPlan, {.account_id = c.account_id});
    if (plan.pouches >= plan.pouch_limit)
        throw Error(Code::pouch_limit_reached,
                    "the plan allows " + std::to_string(plan.pouch_limit) + " pouches");
    if (model::pouch_id_in_use(*conn, id))
        throw validation_failed("/id", "this pouch id is already in use");
    model::Usage before = model::account_usage(*conn, c.account_id);  // row locked above
    Pouch created = conn->one(sql::kInsertPouch, {.id = id,
                                                  .account_id = c.account_id,
                                                  .epoch = crypto::uuid_v4(),
                                                  .key_gen = key_gen});
    model::store_key_envelopes(*conn, c.account_id, envelopes, "/key_envelopes", c.member_id,
                               c.device_id, true, model::KeyGenRule::rotation);
    model::require_within_quota(*conn, c.account_id, before);
    tx.commit();
    return {created};
}

}  // namespace pouch::sync
