// sharing.cpp -- the locking, audit actor and rotation the sharing endpoints share (sharing.h).
#include "handlers/shares/sharing.h"

#include "common/http/error.h"
#include "common/json/described.h"
#include "common/model/key_envelopes.h"

namespace pouch::shares {

Locked lock_pouch(db::Conn& conn, api::Call& call, model::Role role) {
    const auth::Caller& c = call.who();
    Locked l;
    l.before = model::lock_account_usage(conn, call.pouch().owner());
    auto p = model::find_pouch(conn, call.pouch().id, c.account_id, true);
    if (!p) throw http::not_found();
    if (!p->may(role)) throw model::insufficient_role(*p, role);
    l.pouch = std::move(*p);
    return l;
}

std::optional<std::string> actor(const auth::Caller& c) {
    if (c.user_id.empty()) return std::nullopt;
    return c.user_id;
}

std::vector<std::string> rotate(db::Conn& conn, const auth::Caller& c, const PouchRow& p,
                                const model::Appended& a, const rapidjson::Value& body) {
    long long next = p.key_gen + 1;
    if (!body.HasMember("key_envelopes"))
        throw validation_failed("/key_envelopes",
                                "the statement rotates the pouch key: the new generation's key "
                                "envelopes for the caller's members are required");
    if (c.member_id.empty()) throw Error(Code::genesis_required);
    const rapidjson::Value& envelopes = body["key_envelopes"];
    for (rapidjson::SizeType i = 0; i < envelopes.Size(); ++i) {
        std::string at = "/key_envelopes/" + std::to_string(i);
        if (json::text(envelopes[i]["pouch_id"]) != p.id)
            throw validation_failed(at + "/pouch_id", "must be the pouch of the path");
        if (envelopes[i]["key_gen"].GetInt64() != next)
            throw Error(Code::key_gen_conflict,
                        "a rotation's envelopes are of the new generation " + std::to_string(next),
                        at + "/key_gen");
    }
    model::StoredEnvelopes stored =
        model::store_key_envelopes(conn, c.account_id, envelopes, "/key_envelopes", c.member_id,
                                   c.device_id, true, model::KeyGenRule::rotation);
    const rapidjson::Value* grants = body.HasMember("key_grants") ? &body["key_grants"] : nullptr;
    model::require_rotation_grants(a.list, c.account_id, next, grants, "/key_grants");
    if (grants) model::store_key_grants(conn, p.id, a.list, c.account_id, *grants, "/key_grants");
    return stored.rotated_pouches;
}

}  // namespace pouch::shares
