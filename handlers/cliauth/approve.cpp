// approve.cpp -- approve (op 3) and deny a CLI login, web only (decisions §6). Approval is
// one transaction: roster entry, member, device, welcome, key envelopes, request state; the
// waiting CLI is woken after COMMIT.
#include "common/auth/caller.h"
#include "common/crypto/confirm_code.h"
#include "common/crypto/random.h"
#include "common/model/identity.h"
#include "common/model/ids_in_use.h"
#include "common/model/key_envelopes.h"
#include "common/model/pouch_events.h"
#include "common/model/roster.h"
#include "common/model/schemas.h"
#include "common/model/usage.h"
#include "common/wakeup/wakeup.h"
#include "handlers/cliauth/routes.h"
#include "handlers/cliauth/sql.h"

namespace pouch::cliauth {

namespace {

// The locked request, checked for this caller: found, not foreign, and `event` allowed by the
// login state machine (common/rules/login.h).
sql::LockedRequest lock_for(db::Conn& conn, const std::string& id, const auth::Caller& c,
                            rules::LoginEvent event) {
    auto r = conn.maybe_one(sql::kLockRequest, {.id = id});
    if (!r) throw http::not_found();
    if (r->connect_account_id && *r->connect_account_id != c.account_id) throw http::not_found();
    rules::LoginStep step = rules::transition(login_state(r->status), event);
    if (step.refusal) throw *step.refusal;
    return *r;
}

// The account's identity sealed to the new member (docs/SHARING.md §1): required once the
// account has an identity, refused before; made by the approving (genesis) member for the new
// member of this approval. Runs after append_roster took the roster lock, so an identity
// stored at the same time either sees this member or is seen here.
void store_identity_envelope(db::Conn& conn, const rapidjson::Document& doc,
                             const auth::Caller& c, const std::string& member_id) {
    const char* kField = "/identity_envelope";
    bool given = doc.HasMember("identity_envelope");
    if (!model::identity_of(conn, c.account_id)) {
        if (given) throw invalid_field(kField, "the account has no identity yet");
        return;
    }
    if (!given)
        throw validation_failed(kField, "is required: the account has an identity, sealed to "
                                        "every member");
    const rapidjson::Value& e = doc["identity_envelope"];
    model::check_identity_envelope(e, kField, c.account_id,
                                   model::genesis_member(conn, c.account_id));
    if (json::text(e["member_id"]) != member_id)
        throw invalid_field(std::string(kField) + "/member_id",
                            "must be the new member " + member_id);
    rapidjson::Document one(rapidjson::kArrayType);
    one.PushBack(rapidjson::Value(e, one.GetAllocator()), one.GetAllocator());
    model::insert_identity_envelopes(conn, one);
}

}  // namespace

ApproveAnswer approve(api::Call& call) {
    http::Request& req = call.req;
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    rapidjson::Document& doc = call.body;
    const auto& envelopes = doc["key_envelopes"];
    std::string member_id = json::text(envelopes[0]["member_id"]);
    for (rapidjson::SizeType i = 1; i < envelopes.Size(); ++i)
        if (json::text(envelopes[i]["member_id"]) != member_id)
            throw validation_failed("/key_envelopes/" + std::to_string(i) + "/member_id",
                                    "every envelope must name the same new member");

    std::string id = req.param("id");
    std::string device_id = crypto::uuid_v4();
    model::StoredEnvelopes stored;
    std::vector<std::string> pouches;
    {
        auto conn = s.db.acquire();
        db::Transaction tx(*conn);
        sql::LockedRequest r = lock_for(*conn, id, c, rules::LoginEvent::approve);
        if (doc.HasMember("confirm_code") &&
            !crypto::confirm_code_matches(json::text(doc["confirm_code"]),
                                          crypto::confirm_code(id, r.sign_jkt)))
            throw Error(Code::confirm_code_mismatch);
        if (c.member_id.empty()) throw Error(Code::genesis_required);
        model::Usage before = model::lock_account_usage(*conn, c.account_id);
        if (model::member_id_in_use(*conn, member_id))
            throw validation_failed("/key_envelopes/0/member_id", "must be a new member id");

        rapidjson::Value one(rapidjson::kArrayType);
        one.PushBack(rapidjson::Value(doc["statement"], doc.GetAllocator()), doc.GetAllocator());
        long long appended = 0;
        long long index = model::append_roster(*conn, c.account_id, one, &appended);
        // The new member's roster_index must name its own statement, not an older one.
        if (appended != 1)
            throw validation_failed("/statement/statement", "is already in the roster");
        conn->run(sql::kInsertMember, {.id = member_id,
                                       .account_id = c.account_id,
                                       .device_id = device_id,
                                       .roster_index = index});
        conn->run(sql::kInsertDevice, {.id = device_id,
                                       .account_id = c.account_id,
                                       .member_id = member_id,
                                       .welcome = json::text(doc["welcome"]),
                                       .request_id = id});
        store_identity_envelope(*conn, doc, c, member_id);
        stored = model::store_key_envelopes(*conn, c.account_id, envelopes, "/key_envelopes",
                                            c.member_id, "", true, model::KeyGenRule::history);
        pouches = model::append_roster_events(*conn, c.account_id, "");
        conn->run(sql::kMarkApproved,
                  {.id = id, .account_id = c.account_id, .device_id = device_id});
        model::require_within_quota(*conn, c.account_id, before);
        tx.commit();
    }
    wakeup::publish(s.redis, wakeup::Topic::login, id);
    wakeup::publish(s.redis, wakeup::Topic::events, pouches);

    return {.device_id = device_id};
}

StatusAnswer deny(api::Call& call) {
    http::Request& req = call.req;
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    std::string id = req.param("id");
    {
        auto conn = s.db.acquire();
        db::Transaction tx(*conn);
        lock_for(*conn, id, c, rules::LoginEvent::deny);
        conn->run(sql::kMarkDenied, {.id = id, .account_id = c.account_id});
        tx.commit();
    }
    wakeup::publish(s.redis, wakeup::Topic::login, id);
    return {.status = "denied"};
}

}  // namespace pouch::cliauth
