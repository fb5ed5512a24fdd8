// key_envelopes.cpp -- GET and POST /v1/pouches/{pouchId}/key-envelopes (decisions §5.6).
// A CLI caller sees only its own member's envelopes; the list is paged (decisions §13) in
// (key_gen, member_id) order. Storing follows the rotation rule of common/model/
// key_envelopes.h: one key_gen per request, the current or the next (which raises it and
// appends a key_rotation event); the bytes count against the plan (common/model/usage.h).
#include "common/model/key_envelopes.h"
#include "common/model/access.h"
#include "common/auth/caller.h"
#include "common/http/query.h"
#include "common/json/described.h"
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
    std::optional<std::string> member = q.text("member_id");
    if (c.is_cli()) {
        if (member && *member != c.member_id)
            throw http::forbidden("a CLI device sees only its own envelopes");
        member = c.member_id;
    }
    std::optional<long long> gen;
    if (q.has("key_gen")) gen = q.integer("key_gen");
    long long limit = q.integer("limit");
    auto conn = s.db.acquire();
    const PouchRow& p = call.pouch();
    // The filters are part of the scope: a cursor continues only the list it came from.
    const paging::List list("key-envelopes/" + p.id + "/" + member.value_or("*") + "/" +
                                (gen ? std::to_string(*gen) : "*"),
                            {paging::Key::positive, paging::Key::uuid});
    auto after = list.read(q);
    std::vector<sql::EnvelopeRow> rows =
        conn->rows(sql::kListEnvelopes, {.pouch_id = p.id,
                                         .member_id = member,
                                         .key_gen = gen,
                                         .after_gen = paging::after_number(after, 0),
                                         .after_member = paging::after_key(after, 1),
                                         .limit = limit + 1,
                                         .budget = static_cast<long long>(paging::kPageBudget)});
    int n = static_cast<int>(rows.size());
    long long fetched = rows.empty() ? 0 : rows[0].fetched;
    return list.page(limit, n, fetched, [&](json::Out& o, int i) {
        const sql::EnvelopeRow& e = rows[static_cast<size_t>(i)];
        o.obj();
        json::write_members(o, static_cast<const KeyEnvelope&>(e));
        o.end_obj();
        return paging::Keys{std::to_string(e.key_gen), e.member_id};
    });
}

EnvelopesAnswer add_key_envelopes(api::Call& call) {
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
    sql::RotationState state;
    {
        auto conn = s.db.acquire();
        db::Transaction tx(*conn);
        // The envelopes' bytes count against the owner (docs/SHARING.md §8).
        const PouchRow& p = call.pouch();
        const std::string& owner = p.owner();
        model::Usage before = model::lock_account_usage(*conn, owner);
        // An account that accepted fills its members in at every generation the pouch had: for
        // a shared pouch, envelopes all at or below the current generation follow the history
        // rule; anything else is a rotation (the current generation or the next).
        bool history = p.shared;
        for (rapidjson::SizeType i = 0; i < envelopes.Size(); ++i)
            if (envelopes[i]["key_gen"].GetInt64() > p.key_gen) history = false;
        stored = model::store_key_envelopes(
            *conn, c.account_id, envelopes, "/key_envelopes", c.member_id, c.device_id, true,
            history ? model::KeyGenRule::history : model::KeyGenRule::rotation);
        const rapidjson::Value* grants = doc.HasMember("key_grants") ? &doc["key_grants"] : nullptr;
        if (!stored.rotated_pouches.empty())
            model::store_rotation_grants(*conn, stored.rotated_pouches, c.account_id, grants,
                                         "/key_grants");
        else if (grants)
            throw validation_failed("/key_grants",
                                    "key grants come only with a rotation (key_gen + 1)");
        model::require_within_quota(*conn, owner, before);
        state = conn->one(sql::kPouchRotationPending, {.pouch_id = pouch_id});
        tx.commit();
    }
    wakeup::publish(s.redis, wakeup::Topic::events, stored.rotated_pouches);
    return {.key_gen = state.key_gen, .rotation_pending = state.pending};
}

}  // namespace pouch::sync
