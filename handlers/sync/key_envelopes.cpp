// key_envelopes.cpp -- GET and POST /v1/pouches/{pouchId}/key-envelopes (decisions §5.6).
// A CLI caller sees only its own member's envelopes; the list is paged (decisions §13) in
// (key_gen, member_id) order. Storing follows the rotation rule of common/model/
// key_envelopes.h: one key_gen per request, the current or the next (which raises it and
// appends a key_rotation event); the bytes count against the plan (common/model/usage.h).
#include "common/model/key_envelopes.h"
#include "common/auth/caller.h"
#include "common/http/query.h"
#include "common/json/out.h"
#include "common/model/schemas.h"
#include "common/model/usage.h"
#include "common/paging/paging.h"
#include "common/wakeup/wakeup.h"
#include "handlers/sync/routes.h"
#include "handlers/sync/sql_pouches.h"

namespace pouch::sync {

http::Response list_key_envelopes(api::Call& call) {
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    const http::QueryValues& q = call.query;
    db::Param member = q.text("member_id") ? db::Param(*q.text("member_id")) : db::Param();
    if (c.is_cli()) {
        if (member && *member != c.member_id)
            throw http::forbidden("a CLI device sees only its own envelopes");
        member = c.member_id;
    }
    db::Param gen =
        q.has("key_gen") ? db::Param(std::to_string(q.integer("key_gen"))) : db::Param();
    long long limit = q.integer("limit");
    auto conn = s.db.acquire();
    const PouchRow& p = call.pouch();
    // The filters are part of the scope: a cursor continues only the list it came from.
    const paging::List list(
        "key-envelopes/" + p.id + "/" + member.value_or("*") + "/" + gen.value_or("*"),
        {paging::Key::positive, paging::Key::uuid});
    auto after = list.read(q);
    db::Result r =
        conn->exec(sql::kListEnvelopes,
                   {p.id, member, gen, paging::after_key(after, 0), paging::after_key(after, 1),
                    std::to_string(limit + 1), std::to_string(paging::kPageBudget)});
    return list.page(limit, r.rows(), paging::fetched(r), [&](json::Out& o, int i) {
        o.obj();
        o.kv("pouch_id", r.text(i, "pouch_id")).kv("member_id", r.text(i, "member_id"));
        o.kv("key_gen", r.int64(i, "key_gen")).kv("hpke_enc", r.text(i, "hpke_enc"));
        o.kv("ciphertext", r.text(i, "ciphertext"));
        o.kv("created_by_member", r.text(i, "created_by_member"));
        o.kv("signature", r.text(i, "signature")).kv("created_at", r.text(i, "created_at"));
        o.end_obj();
        return paging::Keys{r.text(i, "key_gen"), r.text(i, "member_id")};
    });
}

http::Response add_key_envelopes(api::Call& call) {
    http::Request& req = call.req;
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    const rapidjson::Document& doc = call.body;
    std::string pouch_id = req.param("pouchId");
    const auto& envelopes = doc["key_envelopes"];
    for (rapidjson::SizeType i = 0; i < envelopes.Size(); ++i)
        if (std::string(envelopes[i]["pouch_id"].GetString()) != pouch_id)
            throw validation_failed("/key_envelopes/" + std::to_string(i) + "/pouch_id",
                                    "must be the pouch of the path");
    if (c.member_id.empty()) throw Error(Code::genesis_required);

    model::StoredEnvelopes stored;
    db::Result state{nullptr};
    {
        auto conn = s.db.acquire();
        db::Transaction tx(*conn);
        model::Usage before = model::lock_account_usage(*conn, c.account_id);
        stored =
            model::store_key_envelopes(*conn, c.account_id, envelopes, "/key_envelopes",
                                       c.member_id, c.device_id, true, model::KeyGenRule::rotation);
        model::require_within_quota(*conn, c.account_id, before);
        state = conn->exec(sql::kPouchRotationPending, {pouch_id});
        tx.commit();
    }
    wakeup::publish(s.redis, wakeup::Topic::events, stored.rotated_pouches);
    json::Out o;
    o.kv("key_gen", state.int64(0, "key_gen")).kv("rotation_pending", state.boolean(0, "pending"));
    return api::ok(o.done());
}

}  // namespace pouch::sync
