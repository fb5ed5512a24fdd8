// approve.cpp -- approve (op 3) and deny a CLI login, web only (decisions §6). Approval is
// one transaction: roster entry, member, device, welcome, key envelopes, request state; the
// waiting CLI is woken after COMMIT.
#include "common/auth/caller.h"
#include "common/crypto/confirm_code.h"
#include "common/crypto/random.h"
#include "common/json/parse.h"
#include "common/json/schema.h"
#include "common/model/ids_in_use.h"
#include "common/model/key_envelopes.h"
#include "common/model/schemas.h"
#include "common/model/usage.h"
#include "handlers/cliauth/routes.h"
#include "handlers/cliauth/sql.h"

namespace pouch::cliauth {

namespace {

namespace js = json::schema;

bool is_confirm_code(const std::string& s) {
    auto digits = [&](size_t from, size_t n) {
        return s.find_first_not_of("0123456789", from) >= from + n;
    };
    if (s.size() == 8) return digits(0, 8);
    return s.size() == 9 && s[4] == '-' && digits(0, 4) && digits(5, 4);
}

const js::Node kApprove = js::object({
    js::req("statement", model::roster_statement()),
    js::req("welcome", js::b64url().min_chars(1).max_chars(349526)),
    js::req("key_envelopes", js::array(model::key_envelope()).min_items(1).max_items(2000)),
    js::opt("confirm_code", js::string().check(is_confirm_code, "dddd-dddd or dddddddd")),
});

std::string str(const rapidjson::Value& v) { return std::string(v.GetString(), v.GetStringLength()); }

// The locked request, checked for this caller: found, not foreign, pending.
db::Result lock_pending(db::Conn& conn, const std::string& id, const auth::Caller& c) {
    db::Result r = conn.exec(sql::kLockRequest, {id});
    if (r.rows() == 0) throw not_found();
    auto bound = r.opt(0, "connect_account_id");
    if (bound && *bound != c.account_id) throw not_found();
    std::string status = r.text(0, "status");
    if (status == "expired") throw ApiError(410, "expired_token", "the login request expired");
    if (status != "pending")
        throw ApiError(409, "already_decided", "the login request is already " + status);
    return r;
}

void wake(Services& s, const std::string& channel) { s.redis.publish(channel, "1"); }

}  // namespace

Response approve(Request& req, Services& s) {
    auth::Caller c = auth::require_web(req, s);
    rapidjson::Document doc = json::parse_strict(req.body);
    js::validate(doc, kApprove);
    const auto& envelopes = doc["key_envelopes"];
    std::string member_id = str(envelopes[0]["member_id"]);
    for (rapidjson::SizeType i = 1; i < envelopes.Size(); ++i)
        if (str(envelopes[i]["member_id"]) != member_id)
            throw validation_failed("/key_envelopes/" + std::to_string(i) + "/member_id",
                                    "every envelope must name the same new member");

    std::string id = req.param("id");
    std::string device_id = crypto::uuid_v4();
    model::StoredEnvelopes stored;
    std::vector<std::string> pouches;
    {
        auto conn = s.db.acquire();
        db::Transaction tx(*conn);
        db::Result r = lock_pending(*conn, id, c);
        if (doc.HasMember("confirm_code") &&
            !crypto::confirm_code_matches(str(doc["confirm_code"]),
                                          crypto::confirm_code(id, r.text(0, "sign_jkt"))))
            throw ApiError(400, "confirm_code_mismatch",
                           "the confirm code does not match the one the CLI shows");
        if (c.member_id.empty())
            throw ApiError(409, "genesis_required", "the account has no roster yet");
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
        conn->exec(sql::kInsertMember, {member_id, c.account_id, device_id, std::to_string(index)});
        conn->exec(sql::kInsertDevice, {device_id, c.account_id, member_id, str(doc["welcome"]), id});
        stored = model::store_key_envelopes(*conn, c.account_id, envelopes, "/key_envelopes",
                                            c.member_id, "", true, model::KeyGenRule::history);
        pouches = model::account_pouches(*conn, c.account_id);
        model::append_pouch_events(*conn, pouches, "roster", "");
        conn->exec(sql::kMarkApproved, {id, c.account_id, device_id});
        model::require_within_quota(*conn, c.account_id, before);
        tx.commit();
    }
    wake(s, login_channel(id));
    model::wake_pouches(s.redis, pouches);

    json::Out o;
    o.kv("device_id", device_id);
    Response resp;
    resp.data = o.done();
    return resp;
}

Response deny(Request& req, Services& s) {
    auth::Caller c = auth::require_web(req, s);
    js::validate_empty_body(req.body);
    std::string id = req.param("id");
    {
        auto conn = s.db.acquire();
        db::Transaction tx(*conn);
        lock_pending(*conn, id, c);
        conn->exec(sql::kMarkDenied, {id, c.account_id});
        tx.commit();
    }
    wake(s, login_channel(id));
    json::Out o;
    o.kv("status", "denied");
    Response resp;
    resp.data = o.done();
    return resp;
}

}  // namespace pouch::cliauth
