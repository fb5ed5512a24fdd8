// invitations.cpp -- inviting another account to a pouch and the invitee's answer (docs/
// SHARING.md §6): POST and GET /v1/pouches/{pouchId}/invitations, GET /v1/invitations,
// POST /v1/invitations/{id}/accept|decline|withdraw. Every write locks the owner's account row
// first (the owner pays, §8), then the pouch row (the lock order of every writer), appends to
// the access list through common/model/access.h and leaves an audit entry under the owner.
// Expiry is lazy: each of these calls first marks the pending invitations it could meet that are
// past their time (model::expire_invitations).
#include <set>

#include "common/auth/caller.h"
#include "common/http/query.h"
#include "common/json/out.h"
#include "common/model/access.h"
#include "common/model/key_envelopes.h"
#include "common/model/pouch.h"
#include "common/model/usage.h"
#include "common/paging/paging.h"
#include "common/wakeup/wakeup.h"
#include "handlers/shares/routes.h"
#include "handlers/shares/sharing.h"
#include "handlers/shares/sql_sharing.h"

namespace pouch::shares {

namespace {

constexpr long long kMaxPendingInvitations = 100;       // SHARING.md §6
constexpr long long kDefaultExpiresIn = 7 * 24 * 3600;  // 7 days

void write_invitation(json::Out& o, const InvitationRow& r) {
    o.obj();
    json::write_members(o, static_cast<const Invitation&>(r));
    o.key("inviter_identity");
    if (r.inviter_identity)
        o.raw(*r.inviter_identity);
    else
        o.null();
    o.end_obj();
}

std::string invitation_json(const InvitationRow& r) {
    json::Out o(json::Out::Bare{});
    write_invitation(o, r);
    return o.done();
}

Error unavailable(const std::string& state) {
    return Error(Code::invitation_unavailable, "the invitation is " + state)
        .with_details("{\"state\":\"" + state + "\"}");
}

http::Response invitation_page(const paging::List& list, long long limit,
                               const std::vector<InvitationRow>& rows) {
    int n = static_cast<int>(rows.size());
    return list.page(limit, n, n, [&](json::Out& o, int i) {
        const InvitationRow& r = rows[static_cast<size_t>(i)];
        write_invitation(o, r);
        return paging::Keys{std::to_string(r.created_us), r.id};
    });
}

// The invitation `id` locked for the invitee or an admin of its pouch, after expiring it if its
// time is past; 404 for anyone else (existence is never revealed).
InvitationRow lock_invitation(db::Conn& conn, const std::string& id) {
    auto r = conn.maybe_one(sql::kLockInvitation, {.id = id});
    if (!r) throw http::not_found();
    return *r;
}

// What an invitee's accept or decline starts from, in this order: invitations past their time
// expired; the invitation, the invitee's own (404 for anyone else); the owner's usage locked
// (the owner pays); the invitation locked and still pending (410 otherwise); the pouch locked.
struct Decision {
    InvitationRow inv;
    sql::PouchOwner owner, locked;
    model::Usage before;
};

Decision decide_as_invitee(db::Conn& conn, const auth::Caller& c, const std::string& id) {
    model::expire_invitations(conn, c.account_id, "");
    auto peek = conn.maybe_one(sql::kInvitation, {.id = id});
    if (!peek || peek->invitee_account_id != c.account_id) throw http::not_found();
    Decision d;
    d.owner = conn.one(sql::kPouchOwner, {.id = peek->pouch_id});
    d.before = model::lock_account_usage(conn, d.owner.account_id);
    d.inv = lock_invitation(conn, id);
    if (d.inv.state != "pending") throw unavailable(d.inv.state);
    d.locked = conn.one(sql::kLockPouchOwner, {.id = d.inv.pouch_id});
    return d;
}

}  // namespace

http::Response invite(api::Call& call) {
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    const rapidjson::Document& b = call.body;
    const std::string invitee = json::text(b["account_id"]);
    const std::string role = json::text(b["role"]);
    long long expires_in = b.HasMember("expires_in") ? b["expires_in"].GetInt64() : kDefaultExpiresIn;

    auto conn = s.db.acquire();
    db::Transaction tx(*conn);
    Locked l = lock_pouch(*conn, call, model::Role::admin);
    const PouchRow& p = l.pouch;
    model::expire_invitations(*conn, c.account_id, p.id);
    if (invitee == c.account_id)
        throw Error(Code::already_shared, "the inviting account is already in the pouch",
                    "/account_id");
    if (auto st = conn->maybe_one(sql::kAccessStateOf, {.pouch_id = p.id, .account_id = invitee}))
        if (st->state == "active" || st->state == "invited" || st->state == "expired")
            throw Error(Code::already_shared, "the account is already in the pouch's access list (" +
                                                  st->state + ")",
                        "/account_id");
    conn->one(sql::kInviterLock, {.account_id = c.account_id});
    long long pending = conn->one(sql::kPendingOfInviter, {.account_id = c.account_id}).n;
    if (pending >= kMaxPendingInvitations)
        throw Error(Code::invitation_limit_reached,
                    "the account holds " + std::to_string(pending) +
                        " pending invitations, the most it may");

    const auto& sts = b["statements"];
    size_t want = p.shared ? 1 : 2;
    if (sts.Size() != want)
        throw Error(Code::access_conflict,
                    p.shared ? "the pouch has an access list: one statement, the share"
                             : "the pouch has no access list yet: two statements, the owner's own "
                               "share and then the invitee's",
                    "/statements");
    std::vector<model::NewStatement> news;
    for (rapidjson::SizeType i = 0; i < sts.Size(); ++i)
        news.push_back({{json::text(sts[i]["statement"]), json::text(sts[i]["signature"])},
                        "/statements/" + std::to_string(i)});
    model::Appended a =
        model::append_access(*conn, p.id, p.owner(), c.account_id, p.key_gen, news);
    const clientfmt::AccessBody& share = a.bodies.back();
    std::string last = "/statements/" + std::to_string(want - 1) + "/statement";
    if (share.kind != "share" || share.account_id != invitee)
        throw Error(Code::access_conflict, "must be the share of account_id", last);
    if (share.role != role) throw Error(Code::access_conflict, "names another role than role", last);

    // One grant of every generation 1..current to the invitee (SHARING.md §5).
    const auto& grants = b["key_grants"];
    std::set<long long> gens;
    for (rapidjson::SizeType i = 0; i < grants.Size(); ++i) {
        std::string at = "/key_grants/" + std::to_string(i);
        if (json::text(grants[i]["account_id"]) != invitee)
            throw validation_failed(at + "/account_id", "must be the invited account");
        gens.insert(grants[i]["key_gen"].GetInt64());
    }
    if (static_cast<long long>(gens.size()) != p.key_gen || *gens.begin() != 1 ||
        *gens.rbegin() != p.key_gen)
        throw Error(Code::access_conflict,
                    "an invitation carries one grant of every generation 1 to " +
                        std::to_string(p.key_gen),
                    "/key_grants");
    model::store_key_grants(*conn, p.id, a.list, c.account_id, grants, "/key_grants");

    std::string id = json::text(b["id"]);
    if (!conn->maybe_one(sql::kInsertInvitation, {.id = id,
                                                  .pouch_id = p.id,
                                                  .inviter_account_id = c.account_id,
                                                  .invitee_account_id = invitee,
                                                  .email = json::text(b["email"]),
                                                  .role = role,
                                                  .expires_in = expires_in,
                                                  .access_index = a.first_index +
                                                                  static_cast<long long>(want) - 1}))
        throw validation_failed("/id", "must be a new invitation id");
    json::Out d;
    d.kv("invitation_id", id).kv("account_id", invitee).kv("role", role);
    model::audit_sharing(*conn, p.owner(), actor(c), "sharing.invite", p.id, d.done(),
                         call.req.request_id);
    model::require_within_quota(*conn, p.owner(), l.before);
    InvitationRow r = conn->one(sql::kInvitation, {.id = id});
    tx.commit();
    return api::created(invitation_json(r));
}

http::Response pouch_invitations(api::Call& call) {
    const http::QueryValues& q = call.query;
    long long limit = q.integer("limit");
    const PouchRow& p = call.pouch();
    const paging::List list("invitations/" + p.id, {paging::Key::natural, paging::Key::uuid});
    auto after = list.read(q);
    auto conn = call.services.db.acquire();
    {
        db::Transaction tx(*conn);
        model::expire_invitations(*conn, "", p.id);
        tx.commit();
    }
    return invitation_page(list, limit,
                           conn->rows(sql::kPouchInvitations,
                                      {.pouch_id = p.id,
                                       .after_us = paging::after_number(after, 0),
                                       .after_id = paging::after_key(after, 1),
                                       .limit = limit + 1}));
}

http::Response invitations(api::Call& call) {
    const auth::Caller& c = call.who();
    const http::QueryValues& q = call.query;
    std::string direction = q.text("direction").value_or("received");
    if (direction != "received" && direction != "sent")
        throw validation_failed("?direction", "must be received or sent");
    std::optional<std::string> state = q.text("state");
    static const std::set<std::string> kStates = {"pending", "accepted", "declined", "withdrawn",
                                                  "expired"};
    if (state && !kStates.count(*state))
        throw validation_failed("?state",
                                "must be pending, accepted, declined, withdrawn or expired");
    long long limit = q.integer("limit");
    const paging::List list("invitations/" + c.account_id + "/" + direction + "/" +
                                state.value_or("*"),
                            {paging::Key::natural, paging::Key::uuid});
    auto after = list.read(q);
    auto conn = call.services.db.acquire();
    {
        db::Transaction tx(*conn);
        model::expire_invitations(*conn, c.account_id, "");
        tx.commit();
    }
    return invitation_page(list, limit,
                           conn->rows(sql::kAccountInvitations,
                                      {.account_id = c.account_id,
                                       .direction = direction,
                                       .state = state,
                                       .after_us = paging::after_number(after, 0),
                                       .after_id = paging::after_key(after, 1),
                                       .limit = limit + 1}));
}

http::Response accept(api::Call& call) {
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    const rapidjson::Document& b = call.body;
    const std::string id = call.param("id");
    if (c.member_id.empty()) throw Error(Code::genesis_required);
    const auto& envelopes = b["key_envelopes"];

    auto conn = s.db.acquire();
    db::Transaction tx(*conn);
    Decision dec = decide_as_invitee(*conn, c, id);
    const InvitationRow& inv = dec.inv;
    const sql::PouchOwner& owner = dec.owner;
    const model::Usage& before = dec.before;
    for (rapidjson::SizeType i = 0; i < envelopes.Size(); ++i)
        if (json::text(envelopes[i]["pouch_id"]) != inv.pouch_id)
            throw validation_failed("/key_envelopes/" + std::to_string(i) + "/pouch_id",
                                    "must be the invitation's pouch");
    model::activate_access(*conn, inv.pouch_id, c.account_id);
    // The accepting account's own members get the keys of every generation (history rule).
    model::store_key_envelopes(*conn, c.account_id, envelopes, "/key_envelopes", c.member_id,
                               c.device_id, true, model::KeyGenRule::history);
    conn->run(sql::kDecideInvitation, {.id = id, .state = "accepted"});
    json::Out d;
    d.kv("invitation_id", id).kv("account_id", c.account_id).kv("role", inv.role);
    model::audit_sharing(*conn, owner.account_id, actor(c), "sharing.accept", inv.pouch_id,
                         d.done(), call.req.request_id);
    model::require_within_quota(*conn, owner.account_id, before);
    InvitationRow r = conn->one(sql::kInvitation, {.id = id});
    tx.commit();
    wakeup::publish(s.redis, wakeup::Topic::events, std::vector<std::string>{inv.pouch_id});
    return api::ok(invitation_json(r));
}

http::Response decline(api::Call& call) {
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    const rapidjson::Document& b = call.body;
    const std::string id = call.param("id");

    auto conn = s.db.acquire();
    db::Transaction tx(*conn);
    Decision dec = decide_as_invitee(*conn, c, id);
    const InvitationRow& inv = dec.inv;
    const sql::PouchOwner& owner = dec.owner;
    const model::Usage& before = dec.before;
    model::Appended a = model::append_access(
        *conn, inv.pouch_id, owner.account_id, c.account_id, dec.locked.key_gen,
        {{{json::text(b["statement"]), json::text(b["signature"])}, ""}},
        {.remove = "removed", .leave = "declined"});
    if (a.bodies[0].kind != "leave")
        throw Error(Code::access_conflict, "a decline is a leave of the invited account", "/statement");
    conn->run(sql::kDecideInvitation, {.id = id, .state = "declined"});
    json::Out d;
    d.kv("invitation_id", id).kv("account_id", c.account_id);
    model::audit_sharing(*conn, owner.account_id, actor(c), "sharing.decline", inv.pouch_id,
                         d.done(), call.req.request_id);
    model::require_within_quota(*conn, owner.account_id, before);
    InvitationRow r = conn->one(sql::kInvitation, {.id = id});
    tx.commit();
    return api::ok(invitation_json(r));
}

http::Response withdraw(api::Call& call) {
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    const rapidjson::Document& b = call.body;
    const std::string id = call.param("id");
    if (c.member_id.empty()) throw Error(Code::genesis_required);

    auto conn = s.db.acquire();
    db::Transaction tx(*conn);
    auto peek = conn->maybe_one(sql::kInvitation, {.id = id});
    if (!peek) throw http::not_found();
    auto mine = model::find_pouch(*conn, peek->pouch_id, c.account_id, false);
    if (!mine) throw http::not_found();
    if (!mine->may(model::Role::admin)) throw model::insufficient_role(*mine, model::Role::admin);
    model::Usage before = model::lock_account_usage(*conn, mine->owner());
    model::expire_invitations(*conn, "", mine->id);
    InvitationRow inv = lock_invitation(*conn, id);
    if (inv.state != "pending") throw unavailable(inv.state);
    auto p = model::find_pouch(*conn, inv.pouch_id, c.account_id, true);
    if (!p) throw http::not_found();
    model::Appended a = model::append_access(
        *conn, p->id, p->owner(), c.account_id, p->key_gen,
        {{{json::text(b["statement"]), json::text(b["signature"])}, ""}},
        {.remove = "withdrawn", .leave = "left"});
    if (a.bodies[0].kind != "remove" || a.bodies[0].account_id != inv.invitee_account_id)
        throw Error(Code::access_conflict, "a withdrawal is a remove of the invited account",
                    "/statement");
    rotate(*conn, c, *p, a, b);
    conn->run(sql::kDecideInvitation, {.id = id, .state = "withdrawn"});
    json::Out d;
    d.kv("invitation_id", id).kv("account_id", inv.invitee_account_id);
    model::audit_sharing(*conn, p->owner(), actor(c), "sharing.withdraw", p->id, d.done(),
                         call.req.request_id);
    model::require_within_quota(*conn, p->owner(), before);
    InvitationRow r = conn->one(sql::kInvitation, {.id = id});
    tx.commit();
    wakeup::publish(s.redis, wakeup::Topic::events, std::vector<std::string>{p->id});
    return api::ok(invitation_json(r));
}

}  // namespace pouch::shares
