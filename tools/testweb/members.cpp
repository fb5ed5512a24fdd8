// members.cpp -- pouch-testweb signup, genesis, approve and revoke: the browser member's part
// of docs/CLIENT-FORMAT.md done for real (member keys, signed roster statements, pouch keys
// sealed with HPKE, the sealed welcome, rotation on revoke); and rotate and seal, a rotation
// that leaves a member out until its envelope is sealed later (the CLI suite's late key).
#include <cstdio>

#include "clients/cli/approval_link.h"
#include "clients/cli/args.h"
#include "clients/cli/errors.h"
#include "clients/cli/files.h"
#include "common/clientfmt/key_envelope.h"
#include "common/clientfmt/rotation.h"
#include "common/clientfmt/welcome.h"
#include "common/crypto/confirm_code.h"
#include "common/crypto/es256.h"
#include "common/crypto/random.h"
#include "common/json/label.h"
#include "common/json/out.h"
#include "tools/testweb/web.h"

namespace testweb {

namespace fmt = pouch::clientfmt;
namespace crypto = pouch::crypto;
using pouch::cli::CliError;
using pouch::cli::jstr;
using pouch::json::Out;

namespace {

// The approval page's checks (decisions §15), done as clients/web/src/approval.js does them:
// the keys come from the link's fragment only; the link names this request on this member's
// server; the request details name the same request, the same two keys and sign_jkt of
// that sign key; the device name is a valid label; and the code the person typed is the one
// computed from the fragment. Any failure is exit 5 with the reason.
struct CliKeys {
    fmt::PublicJwk sign_pub, enc_pub;
};

CliKeys checked_approval(const WebState& st, const std::string& req, const std::string& link,
                         const std::string& typed, const rapidjson::Value& d) {
    auto p = pouch::cli::parse_approval_link(link);
    if (!p)
        throw CliError(5,
                       "the link has no valid #keys=…&n=… fragment (four coordinates and a "
                       "22-character nonce)");
    if (p->request_id != req) throw CliError(5, "the link names another login request");
    if (p->base != st.server) throw CliError(5, "the link is not an address of this server");
    CliKeys k{{p->sign.x, p->sign.y}, {p->enc.x, p->enc.y}};
    k.sign_pub.point();  // FormatError when off the curve
    k.enc_pub.point();
    if (jstr(d, "id") != req) throw CliError(5, "the request details name another request");
    if (!d.HasMember("sign_pub") || !d.HasMember("enc_pub") ||
        !(fmt::PublicJwk::from_json(d["sign_pub"], "sign_pub") == k.sign_pub) ||
        !(fmt::PublicJwk::from_json(d["enc_pub"], "enc_pub") == k.enc_pub))
        throw CliError(5, "the keys in the link differ from the request's");
    std::string sign_jkt = k.sign_pub.jkt();
    if (jstr(d, "sign_jkt") != sign_jkt)
        throw CliError(5, "the request's sign_jkt is not the thumbprint of the link's sign key");
    if (auto why = pouch::json::label_problem(jstr(d, "device_name")))
        throw CliError(5, "the device name breaks the label rule: it must " + *why);
    std::string code = crypto::confirm_code_v2(p->nonce, req, sign_jkt, k.enc_pub.jkt());
    std::string digits;
    for (char c : typed)
        if (c >= '0' && c <= '9') digits += c;
    std::string want;
    for (char c : code)
        if (c != '-') want += c;
    if (digits != want) throw CliError(5, "the code typed is not the one this link makes");
    return k;
}

}  // namespace

int cmd_signup(const Args& argv) {
    auto a = pouch::cli::parse_args(argv, {"server", "state", "email"}, {});
    WebState st;
    st.dir = state_dir(a);
    st.server = a.get("server").value_or("http://127.0.0.1:8080");
    st.email = a.get("email").value_or("web." + crypto::uuid_v4() + "@example.com");
    pouch::cli::Http http;
    pin_ca(http);
    pouch::cli::Api api(http, st.server, nullptr);
    Out o;
    o.kv("email", st.email).kv("password", "correct horse battery");
    pouch::cli::CallOptions opt;
    opt.authenticated = false;
    auto r = api.call("POST", "/v1/account/signup", o.done(), {}, opt);
    if (r.status != 201) throw CliError(1, "signup: " + pouch::cli::describe(r));
    st.session_token = jstr(r.data(), "session_token");
    st.account_id = jstr(r.data(), "storage_account_id");
    st.save();
    std::printf("%s\n", st.account_id.c_str());
    return 0;
}

int cmd_genesis(const Args& argv) {
    auto a = pouch::cli::parse_args(argv, {"state"}, {});
    Web w(WebState::load(state_dir(a)));
    auto sign = crypto::P256PrivateKey::generate();
    auto enc = crypto::P256PrivateKey::generate();
    std::string err;
    if (!sign.save(w.st.path("sign.pem"), err) || !enc.save(w.st.path("enc.pem"), err))
        throw CliError(1, err);
    std::string member = crypto::uuid_v4(), pouch = crypto::uuid_v4();
    fmt::StatementBody b;
    b.seq = 0;
    b.kind = "genesis";
    b.by = b.member_id = member;
    b.sign_pub = jwk(sign);
    b.enc_pub = jwk(enc);
    b.label = "web";
    b.at = fmt::rfc3339_utc(fmt::now_unix());
    fmt::SignedStatement s0 = fmt::sign_statement(b, sign);
    std::string key = crypto::random_bytes(32);
    fmt::KeyEnvelope e = fmt::seal_key_envelope(pouch, member, 1, jwk(enc), key, member, sign);
    Out o;
    o.key("statements")
        .arr()
        .obj()
        .kv("statement", s0.statement)
        .kv("signature", s0.signature)
        .end_obj()
        .end_arr();
    o.key("key_envelopes").arr().raw(e.json()).end_arr();
    auto r = w.call("POST", "/v1/account/roster/genesis", o.done());
    if (r.status != 201) throw CliError(1, "genesis: " + pouch::cli::describe(r));
    if (jstr(r.data(), "genesis_hash") != fmt::statement_hash(s0.statement))
        throw CliError(5, "the server's genesis_hash is not BLAKE3 of statement 0");
    w.st.member_id = member;
    w.st.pouch_id = pouch;
    w.st.save();
    std::printf("%s\n", pouch.c_str());
    return 0;
}

int cmd_approve(const Args& argv) {
    // --code is what the person types from the terminal; --current-only seals each pouch's
    // newest generation only (as an older web app did).
    auto a = pouch::cli::parse_args(argv, {"state", "link", "code"}, {"deny", "current-only"});
    if (a.positional.size() != 1)
        throw CliError(2, "usage: approve --state DIR REQUEST_ID --link LINK --code CODE");
    Web w(WebState::load(state_dir(a)));
    std::string req = a.positional[0];
    auto details = w.must("GET", "/v1/cli-auth/requests/" + req);
    const auto& d = details.data();
    if (a.flag("deny")) {
        w.must("POST", "/v1/cli-auth/requests/" + req + "/deny");
        return 0;
    }
    if (!a.get("link") || !a.get("code"))
        throw CliError(2, "approve needs --link (the address the terminal shows) and --code");
    auto [sign_pub, enc_pub] = checked_approval(w.st, req, *a.get("link"), *a.get("code"), d);

    fmt::Roster r = w.roster();
    auto sign = w.sign_key();
    auto enc = w.enc_key();
    std::string member = crypto::uuid_v4();
    fmt::StatementBody b;
    b.seq = r.head_seq + 1;
    b.prev = r.head_hash;
    b.kind = "add";
    b.by = w.st.member_id;
    b.member_id = member;
    b.sign_pub = sign_pub;
    b.enc_pub = enc_pub;
    b.label = jstr(d, "device_name");
    b.at = fmt::rfc3339_utc(fmt::now_unix());
    fmt::SignedStatement st = fmt::sign_statement(b, sign);

    Out o;
    o.key("statement").obj().kv("statement", st.statement).kv("signature", st.signature).end_obj();
    o.key("key_envelopes").arr();
    // Every generation this member holds, so the device can read revisions written before a
    // rotation too (a new member needs the old keys).
    for (const auto& [pouch, gens] : w.keys(r)) {
        for (const auto& [gen, key] : gens) {
            if (a.flag("current-only") && gen != gens.rbegin()->first) continue;
            o.raw(fmt::seal_key_envelope(pouch, member, gen, enc_pub, key, w.st.member_id, sign)
                      .json());
        }
    }
    o.end_arr();
    fmt::Welcome wel{w.st.account_id, r.genesis_hash, b.seq,   fmt::statement_hash(st.statement),
                     w.st.member_id,  jwk(sign),      jwk(enc)};
    o.kv("welcome", fmt::seal_welcome(wel, enc_pub, req));  // no confirm_code (decisions §15)
    if (auto ie = identity_envelope_for(w, member, enc_pub)) o.key("identity_envelope").raw(*ie);
    auto ans = w.call("POST", "/v1/cli-auth/requests/" + req + "/approve", o.done());
    if (!ans.ok()) throw CliError(1, "approve: " + pouch::cli::describe(ans));
    std::printf("%s\n", jstr(ans.data(), "device_id").c_str());
    return 0;
}

int cmd_revoke(const Args& argv) {
    auto a = pouch::cli::parse_args(argv, {"state"}, {"no-rotation"});
    if (a.positional.size() != 1) throw CliError(2, "usage: revoke --state DIR DEVICE_ID");
    Web w(WebState::load(state_dir(a)));
    std::string device = a.positional[0];
    std::string member;
    w.list("/v1/devices", "", [&](const rapidjson::Value& d) {
        if (jstr(d, "id") == device) member = jstr(d, "member_id");
    });
    if (member.empty()) throw CliError(1, "no device " + device);
    if (a.flag("no-rotation")) {
        w.must("POST", "/v1/devices/" + device + "/revoke");
        return 0;
    }
    fmt::Roster r = w.roster();
    const fmt::Member* m = r.find_active(member);
    if (!m) throw CliError(1, "member " + member + " is not active");
    auto sign = w.sign_key();
    // Every pouch one generation up; the removal names the highest (rotated_to).
    std::vector<fmt::KeyEnvelope> envs;
    std::vector<long long> gens;
    w.list("/v1/pouches", "", [&](const rapidjson::Value& p) {
        gens.push_back(pouch::cli::jint(p, "key_gen"));
        auto more = fmt::rotation_envelopes(jstr(p, "id"), gens.back() + 1, r, member,
                                            w.st.member_id, sign);
        envs.insert(envs.end(), more.begin(), more.end());
    });
    fmt::SignedStatement st =
        fmt::removal_statement(r, *m, w.st.member_id, device, fmt::rotated_to_of(gens), sign);
    auto ans = w.must("POST", "/v1/devices/" + device + "/revoke",
                      fmt::revoke_body(st, envs, "revoked by pouch-testweb"));
    std::printf("rotation_pending=%s\n",
                ans.data()["rotation_pending"].IsTrue() ? "true" : "false");
    return 0;
}

// A rotation without a removal: the web pouch's key one generation up, sealed to every active
// member but --leave-out (which then reads the new generation only once `seal` gives it).
// --print writes the body instead of sending it: the CLI suite plays a server that serves
// envelopes a member made, with a state directory holding that member's keys.
int cmd_rotate(const Args& argv) {
    auto a = pouch::cli::parse_args(argv, {"state", "leave-out"}, {"print"});
    Web w(WebState::load(state_dir(a)));
    fmt::Roster r = w.roster();
    auto info = w.must("GET", "/v1/pouches/" + w.st.pouch_id);
    long long gen = pouch::cli::jint(info.data(), "key_gen") + 1;
    auto envs = fmt::rotation_envelopes(w.st.pouch_id, gen, r, a.get("leave-out").value_or(""),
                                        w.st.member_id, w.sign_key());
    if (a.flag("print")) {
        std::printf("%s\n", fmt::key_envelopes_body(envs).c_str());
        return 0;
    }
    w.must("POST", "/v1/pouches/" + w.st.pouch_id + "/key-envelopes",
           fmt::key_envelopes_body(envs));
    std::printf("%lld\n", gen);
    return 0;
}

// The web pouch's current key sealed to an active member that has no envelope for it yet.
int cmd_seal(const Args& argv) {
    auto a = pouch::cli::parse_args(argv, {"state"}, {});
    if (a.positional.size() != 1) throw CliError(2, "usage: seal --state DIR MEMBER_ID");
    Web w(WebState::load(state_dir(a)));
    fmt::Roster r = w.roster();
    const fmt::Member* m = r.find_active(a.positional[0]);
    if (!m) throw CliError(1, "member " + a.positional[0] + " is not active");
    auto info = w.must("GET", "/v1/pouches/" + w.st.pouch_id);
    long long gen = pouch::cli::jint(info.data(), "key_gen");
    std::string key = w.keys(r).at(w.st.pouch_id).at(gen);
    fmt::KeyEnvelope e = fmt::seal_key_envelope(w.st.pouch_id, m->id, gen, m->enc_pub, key,
                                                w.st.member_id, w.sign_key());
    w.must("POST", "/v1/pouches/" + w.st.pouch_id + "/key-envelopes", fmt::key_envelopes_body({e}));
    return 0;
}

}  // namespace testweb
