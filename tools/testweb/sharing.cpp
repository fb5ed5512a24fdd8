// sharing.cpp -- pouch-testweb's part of sharing pouches between accounts (docs/SHARING.md),
// done with the real client format as the web app does it:
//   identity --state DIR                       the account's identity, sealed to every member
//   invite   --state DIR --email E --role R [--pouch P]   look up, verify, share, grant
//   role     --state DIR --account A --role R [--pouch P] (a lowered role rotates)
//   remove   --state DIR --account A [--pouch P]          (with the rotation)
// The identity's keys are kept in DIR/identity.pem and DIR/identity-enc.pem.
#include <cstdio>

#include "clients/cli/args.h"
#include "clients/cli/errors.h"
#include "clients/cli/http.h"
#include "common/clientfmt/key_envelope.h"
#include "common/clientfmt/rotation.h"
#include "common/clientfmt/sharing.h"
#include "common/crypto/random.h"
#include "common/json/out.h"
#include "tools/testweb/web.h"

namespace testweb {

namespace fmt = pouch::clientfmt;
namespace crypto = pouch::crypto;
using pouch::cli::CliError;
using pouch::cli::jint;
using pouch::cli::jobj;
using pouch::cli::jstr;
using pouch::json::Out;

namespace {

crypto::P256PrivateKey load_key(const WebState& st, const char* name) {
    std::string err;
    auto k = crypto::P256PrivateKey::load(st.path(name), err);
    if (!k) throw CliError(1, err + " (run pouch-testweb identity first)");
    return *k;
}

fmt::SignedStatement signed_of(const rapidjson::Value& o) {
    return {jstr(o, "statement"), jstr(o, "signature")};
}

// The pouch's verified access list; nullopt when it was never shared.
std::optional<fmt::AccessList> access_list(Web& w, const std::string& pouch) {
    std::vector<fmt::SignedStatement> items;
    w.list("/v1/pouches/" + pouch + "/access", "",
           [&](const rapidjson::Value& it) { items.push_back(signed_of(it)); });
    if (items.empty()) return std::nullopt;
    return fmt::verify_access_list(pouch, std::move(items));
}

fmt::AccessBody next_statement(const std::optional<fmt::AccessList>& list, const std::string& pouch,
                               const std::string& kind) {
    fmt::AccessBody b;
    b.pouch_id = pouch;
    b.seq = list ? list->head_seq + 1 : 0;
    b.prev = list ? list->head_hash : "";
    b.kind = kind;
    b.at = fmt::rfc3339_utc(fmt::now_unix());
    return b;
}

void add_statement(Out& o, const fmt::SignedStatement& s) {
    o.obj().kv("statement", s.statement).kv("signature", s.signature).end_obj();
}

struct Me {
    crypto::P256PrivateKey isign, ienc;
    fmt::PublicIdentity id;
};

Me me(Web& w) {
    Me m{load_key(w.st, "identity.pem"), load_key(w.st, "identity-enc.pem"), {}};
    m.id = {w.st.account_id, jwk(m.isign), jwk(m.ienc)};
    return m;
}

// The rotation that goes with a lowered role or a removal: the pouch's next key sealed to this
// account's members and granted to every other account that stays (not `leaving`).
void add_rotation(Out& o, Web& w, const fmt::AccessList& list, const std::string& pouch,
                  long long gen, const std::string& leaving, const Me& m) {
    fmt::Roster r = w.roster();
    std::string key = crypto::random_bytes(32);
    auto sign = w.sign_key();
    o.key("key_envelopes").arr();
    for (const fmt::Member* mem : r.active_members())
        o.raw(fmt::seal_key_envelope(pouch, mem->id, gen, mem->enc_pub, key, w.st.member_id, sign)
                  .json());
    o.end_arr().key("key_grants").arr();
    for (const auto& [acc, e] : list.accounts) {
        if (!e.in_list || acc == leaving || acc == w.st.account_id) continue;
        o.raw(
            fmt::seal_key_grant(pouch, acc, gen, e.enc_pub, key, w.st.account_id, m.isign).json());
    }
    o.end_arr();
}

}  // namespace

int cmd_identity(const Args& argv) {
    auto a = pouch::cli::parse_args(argv, {"state"}, {});
    Web w(WebState::load(state_dir(a)));
    fmt::Roster r = w.roster();
    auto isign = crypto::P256PrivateKey::generate();
    auto ienc = crypto::P256PrivateKey::generate();
    fmt::IdentityBody b{w.st.account_id, r.genesis_hash, w.st.member_id,
                        jwk(isign),      jwk(ienc),      fmt::rfc3339_utc(fmt::now_unix())};
    fmt::SignedStatement st = fmt::sign_identity(b, w.sign_key());
    fmt::IdentityKeys keys{isign, ienc};
    Out o;
    o.kv("statement", st.statement).kv("signature", st.signature).key("envelopes").arr();
    for (const fmt::Member* m : r.active_members())
        o.raw(fmt::seal_identity_envelope(w.st.account_id, m->id, m->enc_pub, keys, w.st.member_id,
                                          w.sign_key())
                  .json());
    o.end_arr();
    std::string err;
    if (!isign.save(w.st.path("identity.pem"), err) ||
        !ienc.save(w.st.path("identity-enc.pem"), err))
        throw CliError(1, err);
    w.must("PUT", "/v1/account/identity", o.done());
    return 0;
}

int cmd_invite(const Args& argv) {
    auto a = pouch::cli::parse_args(argv, {"state", "email", "role", "pouch", "expires-in"}, {});
    Web w(WebState::load(state_dir(a)));
    if (!a.get("email") || !a.get("role")) throw CliError(2, "invite needs --email and --role");
    std::string pouch = a.get("pouch").value_or(w.st.pouch_id);
    Me m = me(w);
    auto look = w.must("GET", "/v1/identities?email=" + pouch::cli::url_encode(*a.get("email")));
    const auto& d = look.data();
    fmt::IdentityBody them =
        fmt::verify_identity(signed_of(jobj(d, "identity")), signed_of(jobj(d, "genesis")));
    std::string account = jstr(d, "account_id");
    if (them.account_id != account)
        throw CliError(5, "the lookup's identity names another account");
    auto list = access_list(w, pouch);
    Out o;
    o.kv("id", crypto::uuid_v4()).kv("account_id", account).kv("email", *a.get("email"));
    o.kv("role", *a.get("role"));
    if (auto e = a.get("expires-in")) o.kv("expires_in", std::stoll(*e));
    long long gen = jint(w.must("GET", "/v1/pouches/" + pouch).data(), "key_gen");
    o.key("statements").arr();
    std::optional<fmt::AccessList> grown = list;
    std::vector<fmt::SignedStatement> all =
        list ? list->statements : std::vector<fmt::SignedStatement>{};
    if (!list) {  // statement 0: the owner's own entry
        fmt::AccessBody b0 = next_statement(list, pouch, "share");
        b0.by = b0.account_id = w.st.account_id;
        b0.identity_sign_pub = m.id.sign_pub;
        b0.identity_enc_pub = m.id.enc_pub;
        b0.role = "admin";
        b0.key_gen = gen;
        auto s0 = fmt::sign_access(b0, m.isign);
        add_statement(o, s0);
        all.push_back(s0);
        grown = fmt::verify_access_list(pouch, all);
    }
    fmt::AccessBody b = next_statement(grown, pouch, "share");
    b.by = w.st.account_id;
    b.account_id = account;
    b.identity_sign_pub = them.sign_pub;
    b.identity_enc_pub = them.enc_pub;
    b.role = *a.get("role");
    b.key_gen = std::max(gen, grown->key_gen);
    add_statement(o, fmt::sign_access(b, m.isign));
    o.end_arr().key("key_grants").arr();
    PouchKeyMap held = w.keys(w.roster());
    for (const auto& [g, key] : held[pouch])
        o.raw(fmt::seal_key_grant(pouch, account, g, them.enc_pub, key, w.st.account_id, m.isign)
                  .json());
    o.end_arr();
    auto r = w.call("POST", "/v1/pouches/" + pouch + "/invitations", o.done());
    if (r.status != 201) throw CliError(1, "invite: " + pouch::cli::describe(r));
    std::printf("%s\n", jstr(r.data(), "id").c_str());
    return 0;
}

// role and remove: one access statement about another account, with the rotation a lowered
// role or a removal owes.
int change_access(const Args& argv, const std::string& kind) {
    auto a = pouch::cli::parse_args(argv, {"state", "account", "role", "pouch"}, {});
    Web w(WebState::load(state_dir(a)));
    if (!a.get("account") || (kind == "role" && !a.get("role")))
        throw CliError(2, kind + " needs --account" + (kind == "role" ? " and --role" : ""));
    std::string pouch = a.get("pouch").value_or(w.st.pouch_id);
    std::string account = fmt::lower_uuid(*a.get("account"));
    Me m = me(w);
    auto list = access_list(w, pouch);
    if (!list) throw CliError(1, "pouch " + pouch + " is not shared");
    const fmt::AccessEntry* e = list->find(account);
    if (!e || !e->in_list) throw CliError(1, "account " + account + " is not in the list");
    static const std::map<std::string, int> rank{{"read", 0}, {"write", 1}, {"admin", 2}};
    long long gen = jint(w.must("GET", "/v1/pouches/" + pouch).data(), "key_gen");
    std::string role = kind == "role" ? *a.get("role") : e->role;
    bool rotates = kind == "remove" || rank.at(role) < rank.at(e->role);
    fmt::AccessBody b = next_statement(list, pouch, kind);
    b.by = w.st.account_id;
    b.account_id = account;
    b.identity_sign_pub = e->sign_pub;
    b.identity_enc_pub = e->enc_pub;
    b.role = role;
    b.key_gen = rotates ? std::max(gen, list->key_gen) + 1 : std::max(gen, list->key_gen);
    if (kind == "remove") b.rotated_to = b.key_gen;
    fmt::SignedStatement s = fmt::sign_access(b, m.isign);
    Out o;
    o.kv("statement", s.statement).kv("signature", s.signature);
    if (rotates) add_rotation(o, w, *list, pouch, b.key_gen, kind == "remove" ? account : "", m);
    auto r = w.call("POST", "/v1/pouches/" + pouch + "/access", o.done());
    if (!r.ok()) throw CliError(1, kind + ": " + pouch::cli::describe(r));
    std::printf("%lld\n", jint(r.data(), "index"));
    return 0;
}

int cmd_role(const Args& argv) {
    return change_access(argv, "role");
}

int cmd_remove(const Args& argv) {
    return change_access(argv, "remove");
}

// The identity envelope of a member being approved, when the account has an identity.
std::optional<std::string> identity_envelope_for(Web& w, const std::string& member_id,
                                                 const fmt::PublicJwk& enc_pub) {
    std::string err;
    auto isign = crypto::P256PrivateKey::load(w.st.path("identity.pem"), err);
    auto ienc = crypto::P256PrivateKey::load(w.st.path("identity-enc.pem"), err);
    if (!isign || !ienc) return std::nullopt;
    fmt::IdentityKeys keys{*isign, *ienc};
    return fmt::seal_identity_envelope(w.st.account_id, member_id, enc_pub, keys, w.st.member_id,
                                       w.sign_key())
        .json();
}

}  // namespace testweb
