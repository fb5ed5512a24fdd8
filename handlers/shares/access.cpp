// access.cpp -- a shared pouch's access list and who is in it (docs/SHARING.md §4, §7, §9):
// GET and POST /v1/pouches/{pouchId}/access (a role change or a removal, with its rotation),
// POST .../leave, GET .../members, GET .../rosters/{accountId} and GET .../key-grants.
#include "common/model/access.h"
#include "common/auth/caller.h"
#include "common/http/query.h"
#include "common/json/out.h"
#include "common/model/pouch.h"
#include "common/model/usage.h"
#include "common/paging/paging.h"
#include "common/wakeup/wakeup.h"
#include "handlers/shares/routes.h"
#include "handlers/shares/sharing.h"
#include "handlers/shares/sql_sharing.h"

namespace pouch::shares {

namespace {

http::Response indexed_page(const paging::List& list, long long limit,
                            const std::vector<sql::IndexedRow>& rows) {
    int n = static_cast<int>(rows.size());
    return list.page(limit, n, n, [&](json::Out& o, int i) {
        const sql::IndexedRow& r = rows[static_cast<size_t>(i)];
        o.obj();
        json::write_members(o, static_cast<const IndexedStatement&>(r));
        o.end_obj();
        return paging::Keys{std::to_string(r.index)};
    });
}

model::NewStatement statement_of(const rapidjson::Value& body) {
    return {{json::text(body["statement"]), json::text(body["signature"])}, ""};
}

}  // namespace

// An invited account reads the list before it accepts (SHARING.md §9), so the route has no
// pouch scope: this is its own, for an account active or invited.
http::Response access_list(api::Call& call) {
    const auth::Caller& c = call.who();
    const http::QueryValues& q = call.query;
    const std::string& pouch_id = call.param("pouchId");
    long long limit = q.integer("limit");
    auto conn = call.services.db.acquire();
    auto st =
        conn->maybe_one(sql::kAccessStateOf, {.pouch_id = pouch_id, .account_id = c.account_id});
    if (!st || (st->state != "active" && st->state != "invited")) throw http::not_found();
    const paging::List list("access/" + pouch_id, {paging::Key::natural});
    auto after = list.read(q);
    return indexed_page(
        list, limit,
        conn->rows(sql::kAccessPage,
                   {.id = pouch_id, .after = paging::after_number(after, 0), .limit = limit + 1}));
}

http::Response append_access(api::Call& call) {
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    const rapidjson::Document& b = call.body;
    auto conn = s.db.acquire();
    db::Transaction tx(*conn);
    Locked l = lock_pouch(*conn, call, model::Role::admin);
    const PouchRow& p = l.pouch;
    if (!p.shared)
        throw Error(Code::access_conflict,
                    "the pouch has no access list yet: it is shared by an invitation",
                    "/statement");
    model::Appended a =
        model::append_access(*conn, p.id, p.owner(), c.account_id, p.key_gen, {statement_of(b)});
    const clientfmt::AccessBody& st = a.bodies[0];
    if (st.kind != "role" && st.kind != "remove")
        throw Error(Code::access_conflict,
                    "this call takes a role or a remove (a share is an invitation, a leave is "
                    "POST leave)",
                    "/statement");
    std::vector<std::string> rotated;
    if (st.key_gen > p.key_gen) {
        rotated = rotate(*conn, c, p, a, b);
    } else if (b.HasMember("key_envelopes") || b.HasMember("key_grants")) {
        throw validation_failed(b.HasMember("key_envelopes") ? "/key_envelopes" : "/key_grants",
                                "only a statement that rotates the pouch key carries keys");
    }
    if (st.kind == "remove")
        if (auto inv = conn->maybe_one(sql::kPendingInvitationOf,
                                       {.pouch_id = p.id, .account_id = st.account_id}))
            conn->run(sql::kDecideInvitation, {.id = inv->id, .state = "withdrawn"});
    json::Out d;
    d.kv("account_id", st.account_id).kv("role", st.role).kv("index", a.first_index);
    model::audit_sharing(*conn, p.owner(), actor(c), "sharing." + st.kind, p.id, d.done(),
                         call.req.request_id);
    model::require_within_quota(*conn, p.owner(), l.before);
    long long key_gen = conn->one(sql::kPouchOwner, {.id = p.id}).key_gen;
    tx.commit();
    wakeup::publish(s.redis, wakeup::Topic::events, rotated);
    json::Out o;
    o.kv("index", a.first_index).kv("key_gen", key_gen);
    return api::created(o.done());
}

// A leave owes a rotation that the leaving account does not make (it would know the key):
// rotation_pending stays true until an admin's client rotates (SHARING.md §7). The owner hands
// the pouch over before it leaves; that move is not offered yet (docs/SHARING.md §7).
http::Response leave(api::Call& call) {
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    auto conn = s.db.acquire();
    db::Transaction tx(*conn);
    Locked l = lock_pouch(*conn, call, model::Role::read);
    const PouchRow& p = l.pouch;
    if (!p.shared)
        throw Error(Code::access_conflict, "the pouch has no access list: there is nobody to leave",
                    "/statement");
    model::Appended a = model::append_access(*conn, p.id, p.owner(), c.account_id, p.key_gen,
                                             {statement_of(call.body)});
    if (a.bodies[0].kind != "leave")
        throw Error(Code::access_conflict, "this call takes a leave", "/statement");
    if (c.account_id == p.owner())
        throw Error(Code::access_conflict,
                    "the owner cannot leave its pouch: handing a pouch over to another admin is "
                    "not offered yet",
                    "/statement");
    json::Out d;
    d.kv("account_id", c.account_id).kv("index", a.first_index);
    model::audit_sharing(*conn, p.owner(), actor(c), "sharing.leave", p.id, d.done(),
                         call.req.request_id);
    model::require_within_quota(*conn, p.owner(), l.before);
    tx.commit();
    json::Out o;
    o.kv("index", a.first_index).kv("rotation_pending", true);
    return api::ok(o.done());
}

http::Response members(api::Call& call) {
    const PouchRow& p = call.pouch();
    const http::QueryValues& q = call.query;
    long long limit = q.integer("limit");
    const paging::List list("members/" + p.id, {paging::Key::natural, paging::Key::uuid});
    auto after = list.read(q);
    auto conn = call.services.db.acquire();
    {
        db::Transaction tx(*conn);
        model::expire_invitations(*conn, "", p.id);
        tx.commit();
    }
    std::vector<MemberRow> rows =
        conn->rows(sql::kMembers, {.pouch_id = p.id,
                                   .after_us = paging::after_number(after, 0),
                                   .after_id = paging::after_key(after, 1),
                                   .limit = limit + 1});
    clientfmt::AccessList access = model::stored_access_list(*conn, p.id);
    int n = static_cast<int>(rows.size());
    return list.page(limit, n, n, [&](json::Out& o, int i) {
        const MemberRow& r = rows[static_cast<size_t>(i)];
        o.obj();
        o.kv("account_id", r.account_id).kv("email", r.email).kv("role", r.role);
        o.kv("state", r.state).kv("since", r.since);
        o.key("identity");
        if (const clientfmt::AccessEntry* e = access.find(r.account_id)) {
            o.obj().key("sign_pub").raw(e->sign_pub.json()).key("enc_pub").raw(e->enc_pub.json());
            o.end_obj();
        } else {
            o.null();  // the owner of a pouch never shared
        }
        o.key("identity_statement");
        if (r.identity_statement && r.identity_signature)
            o.obj()
                .kv("statement", *r.identity_statement)
                .kv("signature", *r.identity_signature)
                .end_obj();
        else
            o.null();  // a stand-in, or an account without an identity
        o.end_obj();
        return paging::Keys{std::to_string(r.shared_us), r.account_id};
    });
}

// Another account's roster, for any account the pouch's list names (SHARING.md §9):
// clients verify revisions signed by its members against it (SHARING.md §4).
http::Response roster_of(api::Call& call) {
    const PouchRow& p = call.pouch();
    const http::QueryValues& q = call.query;
    const std::string& account = call.param("accountId");
    long long limit = q.integer("limit");
    auto conn = call.services.db.acquire();
    auto st = conn->maybe_one(sql::kAccessStateOf, {.pouch_id = p.id, .account_id = account});
    // Any account the list names, also one removed or left: its revisions below its
    // rotated_to stay readable, and readers verify them with its roster.
    if (!st) throw http::not_found();
    const paging::List list("rosters/" + p.id + "/" + account, {paging::Key::natural});
    auto after = list.read(q);
    return indexed_page(
        list, limit,
        conn->rows(sql::kRosterPage,
                   {.id = account, .after = paging::after_number(after, 0), .limit = limit + 1}));
}

http::Response key_grants(api::Call& call) {
    const auth::Caller& c = call.who();
    const PouchRow& p = call.pouch();
    const http::QueryValues& q = call.query;
    std::optional<long long> gen;
    if (q.has("key_gen")) gen = q.integer("key_gen");
    long long limit = q.integer("limit");
    const paging::List list("key-grants/" + p.id + "/" + (gen ? std::to_string(*gen) : "*"),
                            {paging::Key::positive});
    auto after = list.read(q);
    auto conn = call.services.db.acquire();
    std::vector<sql::GrantRow> rows =
        conn->rows(sql::kGrants, {.pouch_id = p.id,
                                  .account_id = c.account_id,
                                  .key_gen = gen,
                                  .after = paging::after_number(after, 0),
                                  .limit = limit + 1});
    int n = static_cast<int>(rows.size());
    return list.page(limit, n, n, [&](json::Out& o, int i) {
        const sql::GrantRow& g = rows[static_cast<size_t>(i)];
        o.obj();
        json::write_members(o, static_cast<const GrantOut&>(g));
        o.end_obj();
        return paging::Keys{std::to_string(g.key_gen)};
    });
}

}  // namespace pouch::shares
