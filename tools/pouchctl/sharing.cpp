// sharing.cpp -- `pouchctl identity-statement`, `identity-envelope`, `access-statement` and
// `key-grant`: the opaque strings of docs/SHARING.md, signed, for the smoke tests and worked
// examples (the service checks them). Built with the client format's own writer
// (common/clientfmt/sharing.h); keys are PEM files as `pouchctl keygen` writes them.
#include <cstdio>
#include <ctime>
#include <exception>
#include <fstream>
#include <iterator>
#include <set>
#include <stdexcept>

#include "common/clientfmt/encoding.h"
#include "common/clientfmt/key_envelope.h"
#include "common/clientfmt/sharing.h"
#include "common/crypto/b64url.h"
#include "common/crypto/random.h"
#include "common/json/out.h"
#include "tools/pouchctl/client_args.h"
#include "tools/pouchctl/client_key.h"
#include "tools/pouchctl/commands.h"

namespace pouchctl {

namespace cf = pouch::clientfmt;

namespace {

struct Usage : std::runtime_error {
    using std::runtime_error::runtime_error;
};

SignKey load_key(const std::string& path) {
    std::string err;
    auto k = SignKey::load(path, err);
    if (!k) throw std::runtime_error(err);
    return std::move(*k);
}

// A JSON value given inline (it starts with '{') or as a file to read.
std::string json_text(const std::string& v) {
    if (!v.empty() && v[0] == '{') return v;
    std::ifstream in(v);
    if (!in) throw std::runtime_error("cannot read " + v);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A public key given as a JWK (inline JSON or a .json file) or a PEM private key file (its
// public half).
cf::PublicJwk public_key(const std::string& v, const char* what) {
    if (!v.empty() && v[0] == '{') {
        rapidjson::Document d = cf::parse_object(v);
        return cf::PublicJwk::from_json(d, what);
    }
    SignKey k = load_key(v);
    return {k.x(), k.y()};
}

cf::SignedStatement signed_statement(const std::string& v) {
    rapidjson::Document d = cf::parse_object(json_text(v));
    return {cf::get_str(d, "statement"), cf::get_str(d, "signature")};
}

long long to_int(const std::string& v, const char* what) {
    size_t used = 0;
    long long n = 0;
    try {
        n = std::stoll(v, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != v.size())
        throw Usage(std::string("--") + what + " must be an integer");
    return n;
}

std::string need(const ParsedArgs& a, const char* name) {
    auto v = a.get(name);
    if (!v) throw Usage(std::string("--") + name + " is required");
    return *v;
}

void save_new(const SignKey& k, const std::string& path) {
    std::string err;
    if (!k.save(path, err)) throw std::runtime_error(err);
}

void print_statement(const cf::SignedStatement& s) {
    pouch::json::Out o;
    o.kv("statement", s.statement).kv("signature", s.signature);
    std::printf("%s\n", o.done().c_str());
}

// Runs one subcommand body with the shared error handling: usage errors exit 2 with the
// usage line, everything else 1.
template <typename F>
int run(const char* cmd, const Args& args, const std::set<std::string>& known, const char* usage,
        F body) {
    auto a = parse_args(cmd, args, known);
    if (!a) return 2;
    try {
        if (!a->positional.empty()) throw Usage("unexpected argument " + a->positional[0]);
        body(*a);
        return 0;
    } catch (const Usage& e) {
        std::fprintf(stderr, "pouchctl %s: %s\nusage: pouchctl %s %s\n", cmd, e.what(), cmd, usage);
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pouchctl %s: %s\n", cmd, e.what());
        return 1;
    }
}

std::string now() {
    return cf::rfc3339_utc(std::time(nullptr));
}

}  // namespace

int cmd_identity_statement(const Args& args) {
    return run("identity-statement", args,
               {"account", "genesis", "key", "sign-out", "enc-out", "by", "genesis-hash", "at"},
               "--account A --genesis GENESIS --key MEMBER_KEY --sign-out F --enc-out F [--by M] "
               "[--genesis-hash H]",
               [](const ParsedArgs& a) {
                   cf::SignedStatement genesis = signed_statement(need(a, "genesis"));
                   SignKey member = load_key(need(a, "key"));
                   std::string sign_out = need(a, "sign-out"), enc_out = need(a, "enc-out");
                   SignKey sign = SignKey::generate(), enc = SignKey::generate();
                   cf::IdentityBody b;
                   b.account_id = need(a, "account");
                   b.genesis_hash =
                       a.get("genesis-hash").value_or(cf::statement_hash(genesis.statement));
                   b.by = a.get("by").value_or(cf::decode_statement(genesis.statement).member_id);
                   b.sign_pub = {sign.x(), sign.y()};
                   b.enc_pub = {enc.x(), enc.y()};
                   b.at = a.get("at").value_or(now());
                   cf::SignedStatement s = cf::sign_identity(b, member);
                   save_new(sign, sign_out);
                   save_new(enc, enc_out);
                   print_statement(s);
               });
}

int cmd_identity_envelope(const Args& args) {
    return run(
        "identity-envelope", args,
        {"account", "member", "to", "sign-key", "enc-key", "creator", "creator-key"},
        "--account A --member M --to MEMBER_ENC_PUB --sign-key F --enc-key F "
        "--creator C --creator-key F",
        [](const ParsedArgs& a) {
            cf::IdentityKeys identity{load_key(need(a, "sign-key")), load_key(need(a, "enc-key"))};
            cf::IdentityEnvelope e = cf::seal_identity_envelope(
                need(a, "account"), need(a, "member"), public_key(need(a, "to"), "--to"), identity,
                need(a, "creator"), load_key(need(a, "creator-key")));
            std::printf("%s\n", e.json().c_str());
        });
}

int cmd_access_statement(const Args& args) {
    return run(
        "access-statement", args,
        {"pouch", "seq", "prev", "prev-statement", "kind", "by", "account", "sign-pub", "enc-pub",
         "role", "key-gen", "rotated-to", "key", "at"},
        "--pouch P --seq N [--prev-statement S | --prev H] --kind K --by A --account B "
        "--sign-pub PUB --enc-pub PUB --role R --key-gen G [--rotated-to G] --key BY_IDENTITY_KEY",
        [](const ParsedArgs& a) {
            if (a.get("prev") && a.get("prev-statement"))
                throw Usage("give --prev or --prev-statement, not both");
            cf::AccessBody b;
            b.pouch_id = need(a, "pouch");
            b.seq = to_int(need(a, "seq"), "seq");
            if (auto p = a.get("prev-statement")) b.prev = cf::statement_hash(*p);
            if (auto p = a.get("prev")) b.prev = *p;
            b.kind = need(a, "kind");
            b.by = need(a, "by");
            b.account_id = need(a, "account");
            b.identity_sign_pub = public_key(need(a, "sign-pub"), "--sign-pub");
            b.identity_enc_pub = public_key(need(a, "enc-pub"), "--enc-pub");
            b.role = need(a, "role");
            b.key_gen = to_int(need(a, "key-gen"), "key-gen");
            if (auto r = a.get("rotated-to"))
                b.rotated_to = to_int(*r, "rotated-to");
            else if (b.kind == "remove" || b.kind == "leave")
                b.rotated_to = b.key_gen;
            b.at = a.get("at").value_or(now());
            print_statement(cf::sign_access(b, load_key(need(a, "key"))));
        });
}

int cmd_key_grant(const Args& args) {
    return run("key-grant", args, {"pouch", "account", "key-gen", "to", "pouch-key", "by", "key"},
               "--pouch P --account A --key-gen G --to IDENTITY_ENC_PUB [--pouch-key B64URL] "
               "--by GRANTER --key GRANTER_IDENTITY_KEY",
               [](const ParsedArgs& a) {
                   std::string key = pouch::crypto::random_bytes(cf::kPouchKeySize);
                   if (auto k = a.get("pouch-key")) {
                       auto raw = pouch::crypto::b64url_decode(*k);
                       if (!raw) throw Usage("--pouch-key must be b64url");
                       key = *raw;
                   }
                   cf::KeyGrant g = cf::seal_key_grant(need(a, "pouch"), need(a, "account"),
                                                       to_int(need(a, "key-gen"), "key-gen"),
                                                       public_key(need(a, "to"), "--to"), key,
                                                       need(a, "by"), load_key(need(a, "key")));
                   std::printf("%s\n", g.json().c_str());
               });
}

}  // namespace pouchctl
