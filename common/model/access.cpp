// access.cpp -- appends to a pouch's access list after verifying it whole (clientfmt
// sharing.h), moves pouch_access, stores key grants, writes the audit of sharing changes.
#include "common/model/access.h"

#include <map>
#include <set>

#include "common/json/out.h"
#include "common/json/parse.h"
#include "common/model/identity.h"
#include "common/model/pouch.h"
#include "common/model/sql_access.h"
#include "common/types/error.h"

namespace pouch::model {

namespace {

Error conflict(const std::string& field, const std::string& message) {
    return Error(Code::access_conflict, message, field);
}

int rank(const std::string& role) {
    auto r = parse_role(role);
    return r ? static_cast<int>(*r) : -1;
}

// Whether an admin other than `account_id` is in the list.
bool other_admin(const clientfmt::AccessList& list, const std::string& account_id) {
    for (const auto& [id, e] : list.accounts)
        if (id != account_id && e.in_list && e.role == "admin") return true;
    return false;
}

}  // namespace

std::vector<clientfmt::SignedStatement> stored_access(db::Conn& conn, const std::string& pouch_id) {
    std::vector<clientfmt::SignedStatement> out;
    for (const sql::AccessRow& r : conn.rows(sql::kAccessStatements, {.pouch_id = pouch_id}))
        out.push_back({r.statement, r.signature});
    return out;
}

clientfmt::AccessList stored_access_list(db::Conn& conn, const std::string& pouch_id) {
    std::vector<clientfmt::SignedStatement> stored = stored_access(conn, pouch_id);
    if (stored.empty()) {
        clientfmt::AccessList empty;
        empty.pouch_id = pouch_id;
        return empty;
    }
    try {
        return clientfmt::verify_access_list(pouch_id, std::move(stored));
    } catch (const clientfmt::FormatError& e) {
        Error err(Code::internal);
        err.cause = std::string("stored access list of ") + pouch_id + " fails: " + e.what();
        throw err;
    }
}

std::optional<clientfmt::PublicIdentity> published_identity(db::Conn& conn,
                                                            const std::string& account_id) {
    std::optional<clientfmt::SignedStatement> st = identity_of(conn, account_id);
    if (!st) {
        if (conn.one(sql::kAccountExists, {.account_id = account_id}).found)
            throw Error(Code::identity_required,
                        "the account " + account_id + " has no identity yet");
        return std::nullopt;
    }
    clientfmt::IdentityBody b = clientfmt::decode_identity(st->statement);
    return clientfmt::PublicIdentity{account_id, b.sign_pub, b.enc_pub};
}

Appended append_access(db::Conn& conn, const std::string& pouch_id, const std::string& owner,
                       const std::string& signer_account, long long pouch_key_gen,
                       const std::vector<NewStatement>& statements, const AppendStates& states) {
    std::vector<clientfmt::SignedStatement> all = stored_access(conn, pouch_id);
    clientfmt::AccessList before;
    before.pouch_id = pouch_id;
    if (!all.empty()) before = stored_access_list(conn, pouch_id);
    long long first = static_cast<long long>(all.size());

    Appended out;
    out.first_index = first;
    for (size_t i = 0; i < statements.size(); ++i) {
        const NewStatement& n = statements[i];
        const std::string at = n.pointer + "/statement";
        clientfmt::AccessBody b;
        try {
            b = clientfmt::decode_access(n.signed_statement.statement);
        } catch (const clientfmt::FormatError& e) {
            throw invalid_field(at, std::string("not an access statement: ") + e.what());
        }
        long long want = first + static_cast<long long>(i);
        if (b.pouch_id != pouch_id) throw invalid_field(at, "names another pouch");
        if (b.seq != want)
            throw conflict(at, "seq " + std::to_string(b.seq) + " is not the list's next index " +
                                   std::to_string(want));
        if (b.by != signer_account)
            throw conflict(at, "must be signed by the caller's account (by)");
        if (want == 0 && (b.kind != "share" || b.account_id != owner))
            throw conflict(at, "statement 0 is the owner's own share as admin");
        const clientfmt::AccessEntry* e = before.find(b.account_id);
        // The service knows the pouch's generation (SHARING.md §4, step 5): a share or a raise
        // names the current one, a rotating statement the next.
        bool lowers = b.kind == "role" && e && e->in_list && rank(b.role) < rank(e->role);
        bool rotates = b.kind == "remove" || b.kind == "leave" || lowers;
        long long gen = rotates ? pouch_key_gen + 1 : pouch_key_gen;
        if (b.key_gen != gen)
            throw conflict(at, std::string("key_gen must be the pouch's ") +
                                   (rotates ? "next generation " : "current generation ") +
                                   std::to_string(gen));
        if ((rotates || b.kind == "remove") && e && e->in_list && e->role == "admin" &&
            !other_admin(before, b.account_id))
            throw Error(Code::last_admin, "the pouch would have no admin left", at);
        if (b.kind == "share") {
            std::optional<clientfmt::PublicIdentity> id = published_identity(conn, b.account_id);
            if (id && !(id->sign_pub == b.identity_sign_pub && id->enc_pub == b.identity_enc_pub))
                throw conflict(at, "identity is not the published identity of account " +
                                       b.account_id);
        }
        all.push_back(n.signed_statement);
        out.bodies.push_back(std::move(b));
    }
    try {
        out.list = clientfmt::verify_access_list(pouch_id, all);
    } catch (const clientfmt::AccessListError& e) {
        // The failing statement is one of this request's: the stored ones verified before.
        long long k = e.index - first;
        bool ours = k >= 0 && k < static_cast<long long>(statements.size());
        throw conflict(ours ? statements[static_cast<size_t>(k)].pointer + "/statement" : "",
                       e.what());
    } catch (const clientfmt::FormatError& e) {
        throw conflict(statements.empty() ? "" : statements.back().pointer + "/statement", e.what());
    }

    for (size_t i = 0; i < statements.size(); ++i) {
        const clientfmt::AccessBody& b = out.bodies[i];
        long long idx = first + static_cast<long long>(i);
        conn.run(sql::kInsertAccess, {.pouch_id = pouch_id,
                                      .idx = idx,
                                      .kind = b.kind,
                                      .account_id = b.account_id,
                                      .key_gen = b.key_gen,
                                      .statement = statements[i].signed_statement.statement,
                                      .signature = statements[i].signed_statement.signature});
        sql::AccessChange ch{.pouch_id = pouch_id,
                             .account_id = b.account_id,
                             .role = b.role,
                             .state = "",
                             .access_index = idx};
        if (b.kind == "share") {
            ch.state = b.account_id == owner && idx == 0 ? "active" : "invited";
            conn.run(sql::kAccessShare, ch);
        } else if (b.kind == "role") {
            conn.run(sql::kAccessRole, ch);
        } else {
            ch.state = b.kind == "remove" ? states.remove : states.leave;
            conn.run(sql::kAccessState, ch);
        }
    }
    return out;
}

void store_key_grants(db::Conn& conn, const std::string& pouch_id, const clientfmt::AccessList& list,
                      const std::string& granter_account, const rapidjson::Value& grants,
                      const std::string& pointer) {
    std::set<std::pair<std::string, long long>> seen;
    for (rapidjson::SizeType i = 0; i < grants.Size(); ++i) {
        const std::string at = pointer + "/" + std::to_string(i);
        clientfmt::KeyGrant g;
        try {
            g = clientfmt::KeyGrant::from_json(grants[i]);
        } catch (const clientfmt::FormatError& e) {
            throw validation_failed(at, e.what());
        }
        if (g.pouch_id != pouch_id) throw validation_failed(at + "/pouch_id", "must be the pouch of the path");
        if (g.granted_by != granter_account)
            throw validation_failed(at + "/granted_by", "must be the caller's account");
        if (g.account_id == granter_account)
            throw validation_failed(at + "/account_id", "must name another account");
        const clientfmt::AccessEntry* e = list.find(g.account_id);
        if (!e || !e->in_list) throw conflict(at + "/account_id", "names no account in the access list");
        if (!seen.emplace(g.account_id, g.key_gen).second)
            throw validation_failed(at, "repeats the account and key_gen of an earlier grant");
        std::string refusal = clientfmt::grant_refusal(g, list, pouch_id, g.account_id);
        if (!refusal.empty())
            throw invalid_field(at + (refusal == "bad_signature" ? "/signature" : "/granted_by"),
                                "the grant is refused: " + refusal);
        auto r = conn.maybe_one(sql::kInsertGrant, {.pouch_id = pouch_id,
                                                   .account_id = g.account_id,
                                                   .key_gen = g.key_gen,
                                                   .hpke_enc = g.hpke_enc,
                                                   .ciphertext = g.ciphertext,
                                                   .granted_by = g.granted_by,
                                                   .signature = g.signature});
        if (!r) throw conflict(at, "another grant is stored for this account and key_gen");
    }
}

void require_rotation_grants(const clientfmt::AccessList& list, const std::string& granter_account,
                             long long key_gen, const rapidjson::Value* grants,
                             const std::string& pointer) {
    std::set<std::string> granted;
    if (grants)
        for (rapidjson::SizeType i = 0; i < grants->Size(); ++i) {
            const rapidjson::Value& g = (*grants)[i];
            if (g["pouch_id"].GetString() != list.pouch_id) continue;
            if (g["key_gen"].GetInt64() != key_gen)
                throw conflict(pointer + "/" + std::to_string(i) + "/key_gen",
                               "a rotation's grants are of its new generation " +
                                   std::to_string(key_gen));
            granted.insert(g["account_id"].GetString());
        }
    for (const auto& [id, e] : list.accounts)
        if (e.in_list && id != granter_account && !granted.count(id))
            throw conflict(pointer, "the rotation of pouch " + list.pouch_id + " to generation " +
                                        std::to_string(key_gen) + " carries no grant for account " + id);
}

void store_rotation_grants(db::Conn& conn, const std::vector<std::string>& rotated,
                           const std::string& granter_account, const rapidjson::Value* grants,
                           const std::string& pointer) {
    std::set<std::string> shared;
    for (const std::string& pouch_id : rotated) {
        clientfmt::AccessList list = stored_access_list(conn, pouch_id);
        if (list.statements.empty()) continue;
        shared.insert(pouch_id);
        long long gen = conn.one(sql::kPouchKeyGen, {.pouch_id = pouch_id}).key_gen;
        require_rotation_grants(list, granter_account, gen, grants, pointer);
        if (!grants) continue;
        // This pouch's grants, in a copy whose indexes no longer match the request's: a refusal
        // names the array, not the element.
        rapidjson::Document mine;
        mine.SetArray();
        for (rapidjson::SizeType i = 0; i < grants->Size(); ++i)
            if (std::string((*grants)[i]["pouch_id"].GetString()) == pouch_id)
                mine.PushBack(rapidjson::Value((*grants)[i], mine.GetAllocator()), mine.GetAllocator());
        store_key_grants(conn, pouch_id, list, granter_account, mine, pointer);
    }
    if (grants)
        for (rapidjson::SizeType i = 0; i < grants->Size(); ++i)
            if (!shared.count((*grants)[i]["pouch_id"].GetString()))
                throw validation_failed(pointer + "/" + std::to_string(i) + "/pouch_id",
                                        "names no shared pouch this request rotates");
}

void activate_access(db::Conn& conn, const std::string& pouch_id, const std::string& account_id) {
    conn.run(sql::kActivateAccess, {.pouch_id = pouch_id, .account_id = account_id});
}

void audit_sharing(db::Conn& conn, const std::string& owner, const std::optional<std::string>& actor_user,
                   const std::string& action, const std::string& pouch_id,
                   const std::string& after_json, const std::string& request_id) {
    conn.run(sql::kSharingAudit, {.owner = owner,
                                  .actor_user = actor_user,
                                  .action = action,
                                  .pouch_id = pouch_id,
                                  .after = after_json,
                                  .request_id = request_id});
}

void expire_invitations(db::Conn& conn, const std::string& account_id, const std::string& pouch_id) {
    conn.run(sql::kExpireInvitations,
             {.account_id = account_id.empty() ? std::nullopt : std::optional(account_id),
              .pouch_id = pouch_id.empty() ? std::nullopt : std::optional(pouch_id)});
}

}  // namespace pouch::model
