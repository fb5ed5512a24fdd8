// main.cpp -- pouch-testweb (see web.h): dispatch, its state directory and the web caller.
//   pouch-testweb signup  --server URL --state DIR [--email E]
//   pouch-testweb genesis --state DIR
//   pouch-testweb approve --state DIR REQUEST_ID --link APPROVAL_LINK --code CODE [--deny]
//   pouch-testweb revoke  --state DIR DEVICE_ID
//   pouch-testweb rotate  --state DIR [--leave-out MEMBER_ID] [--print]  (the web pouch's key,
//                         one up; --print: the key-envelopes body on stdout, nothing sent)
//   pouch-testweb seal    --state DIR MEMBER_ID    (the web pouch's current key, to a member)
//   pouch-testweb put     --state DIR NAME --file PATH
//   pouch-testweb get     --state DIR NAME            (the content on stdout)
//   pouch-testweb hpke    < requests.jsonl             (the interop suite's HPKE driver)
//   pouch-testweb craft   --state DIR NAME [--data T] [--mode OCTAL] [--kind K]  (craft.cpp)
//   pouch-testweb identity|invite|role|remove ...  (sharing between accounts: sharing.cpp)
// Over https, the certificates of the file POUCH_CA_FILE are the only ones trusted when it is set.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "clients/cli/errors.h"
#include "clients/cli/files.h"
#include "common/clientfmt/encoding.h"
#include "common/clientfmt/key_envelope.h"
#include "common/json/out.h"
#include "tools/testweb/web.h"

namespace testweb {

namespace fmt = pouch::clientfmt;
using pouch::cli::CliError;

std::string WebState::path(const std::string& name) const {
    return pouch::cli::join_path(dir, name);
}

WebState WebState::load(const std::string& dir) {
    auto text = pouch::cli::read_file(pouch::cli::join_path(dir, "web.json"));
    if (!text) throw CliError(1, dir + "/web.json is missing (run signup first)");
    auto d = fmt::parse_object(*text);
    WebState s;
    s.dir = dir;
    s.server = fmt::get_str(d, "server");
    s.email = fmt::get_str(d, "email");
    s.session_token = fmt::get_str(d, "session_token");
    s.account_id = fmt::get_str(d, "account_id");
    s.member_id = fmt::get_str(d, "member_id");
    s.pouch_id = fmt::get_str(d, "pouch_id");
    return s;
}

void WebState::save() const {
    pouch::json::Out o;
    o.kv("server", server).kv("email", email).kv("session_token", session_token);
    o.kv("account_id", account_id).kv("member_id", member_id).kv("pouch_id", pouch_id);
    pouch::cli::make_dirs(dir, 0700);
    pouch::cli::write_file_atomic(path("web.json"), o.done(), 0600);
}

// POUCH_CA_FILE (a stack started with POUCH_TLS=1): the certificate its https is pinned to.
void pin_ca(pouch::cli::Http& http) {
    const char* ca = std::getenv("POUCH_CA_FILE");
    if (ca && *ca) http.set_ca_file(ca);
}

Web::Web(WebState s) : st(std::move(s)), api(http, st.server, nullptr) {
    pin_ca(http);
}

pouch::cli::ApiAnswer Web::call(const std::string& method, const std::string& path,
                                const std::string& body, pouch::cli::CallOptions opt) {
    opt.authenticated = false;  // no CLI session: the web session instead
    return api.call(method, path, body, {"Authorization: Bearer " + st.session_token}, opt);
}

pouch::cli::ApiAnswer Web::must(const std::string& method, const std::string& path,
                                const std::string& body, pouch::cli::CallOptions opt) {
    auto a = call(method, path, body, std::move(opt));
    if (!a.ok()) throw CliError(1, method + " " + path + ": " + pouch::cli::describe(a));
    return a;
}

void Web::list(const std::string& path, const std::string& query,
               const std::function<void(const rapidjson::Value&)>& each, int limit) {
    pouch::cli::CallOptions opt;
    opt.authenticated = false;
    api.list(path, query, each, limit, {"Authorization: Bearer " + st.session_token}, opt);
}

pouch::crypto::P256PrivateKey Web::sign_key() const {
    std::string err;
    auto k = pouch::crypto::P256PrivateKey::load(st.path("sign.pem"), err);
    if (!k) throw CliError(1, err);
    return *k;
}

pouch::crypto::P256PrivateKey Web::enc_key() const {
    std::string err;
    auto k = pouch::crypto::P256PrivateKey::load(st.path("enc.pem"), err);
    if (!k) throw CliError(1, err);
    return *k;
}

fmt::Roster Web::roster() {
    std::vector<fmt::SignedStatement> items;
    pouch::cli::CallOptions opt;
    opt.authenticated = false;
    api.list_roster(
        [&](const rapidjson::Value& it) {
            items.push_back({pouch::cli::jstr(it, "statement"), pouch::cli::jstr(it, "signature")});
        },
        {"Authorization: Bearer " + st.session_token}, opt);
    return fmt::verify_roster(std::move(items));
}

std::string state_dir(const pouch::cli::Args& a) {
    auto d = a.get("state");
    if (!d) throw CliError(2, "--state DIR is required");
    return *d;
}

fmt::PublicJwk jwk(const pouch::crypto::P256PrivateKey& k) {
    return {k.x(), k.y()};
}

PouchKeyMap Web::keys(const fmt::Roster& r) {
    PouchKeyMap k;
    auto enc = enc_key();
    std::vector<std::string> pouches;
    list("/v1/pouches", "",
         [&](const rapidjson::Value& p) { pouches.push_back(pouch::cli::jstr(p, "id")); });
    for (const auto& id : pouches) {
        list("/v1/pouches/" + id + "/key-envelopes", "member_id=" + st.member_id + "&",
             [&](const rapidjson::Value& v) {
                 // As the clients do: an envelope that does not pass the reader's checks is
                 // skipped (its key is then missing), never used.
                 try {
                     fmt::KeyEnvelope e = fmt::KeyEnvelope::from_json(v);
                     if (!fmt::envelope_refusal(e, r, id, st.member_id).empty()) return;
                     const fmt::Member* creator = r.find(e.created_by_member);
                     k[id][e.key_gen] = fmt::open_key_envelope(e, creator->sign_pub, enc);
                 } catch (const fmt::FormatError&) {
                 }
             });
    }
    return k;
}

}  // namespace testweb

namespace {

struct Command {
    const char* name;
    int (*fn)(const testweb::Args&);
};

const Command kCommands[] = {
    {"signup", testweb::cmd_signup},   {"genesis", testweb::cmd_genesis},
    {"approve", testweb::cmd_approve}, {"revoke", testweb::cmd_revoke},
    {"rotate", testweb::cmd_rotate},   {"seal", testweb::cmd_seal},
    {"put", testweb::cmd_put},         {"get", testweb::cmd_get},
    {"hpke", testweb::cmd_hpke},       {"craft", testweb::cmd_craft},
    {"identity", testweb::cmd_identity}, {"invite", testweb::cmd_invite},
    {"role", testweb::cmd_role},       {"remove", testweb::cmd_remove},
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(
            stderr,
            "usage: pouch-testweb signup|genesis|approve|revoke|rotate|seal|put|get ... (see "
            "tools/testweb/main.cpp)\n");
        return 2;
    }
    for (const auto& c : kCommands) {
        if (std::strcmp(argv[1], c.name) != 0) continue;
        try {
            return c.fn(testweb::Args(argv + 2, argv + argc));
        } catch (const pouch::cli::CliError& e) {
            std::fprintf(stderr, "pouch-testweb %s: %s\n", c.name, e.what());
            return e.code;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "pouch-testweb %s: %s\n", c.name, e.what());
            return 1;
        }
    }
    std::fprintf(stderr, "pouch-testweb: unknown command %s\n", argv[1]);
    return 2;
}
