// main.cpp -- pouch-attacker, the hostile suite's malicious member (tests/hostile; never shipped):
// it signs with the real keys of an enrolled `pouch` device (its config directory) and makes,
// with common/clientfmt, what a compromised or removed member would: roster `add` statements with
// crafted labels, revisions with any name, mode, chunk list or key, and key envelopes with any
// pouch, member label or key. What it prints is fed to the tampering proxy or committed as that
// member. Commands (JSON on stdout):
//   member-keys --out DIR         a new member's keys (DIR/sign.pem, enc.pem, member.json)
//   roster-add --config X --member DIR --label L
//                                 an `add` of DIR's member on the roster's head, signed by X
//   revision --config X --name N [--pouch P] [--data TEXT] [--mode OCTAL] [--kind K]
//            [--key-gen G] [--key HEX] [--signer DIR] [--artifact ID] [--chunks JSON] [--commit]
//                                 a put op (sealed under X's key of G, or HEX; signed by X, or
//                                 by DIR's member); --commit posts it as X
//   envelope --config X --key-gen G (--key HEX | --key-of-gen N) (--to-config V | --to-genesis)
//            [--pouch P] [--member-label ID]
//                                 a key envelope made by X (offline unless --to-genesis)
#include <cstdio>
#include <cstring>
#include <string>

#include "clients/cli/api.h"
#include "clients/cli/args.h"
#include "clients/cli/config.h"
#include "clients/cli/errors.h"
#include "clients/cli/files.h"
#include "clients/cli/http.h"
#include "clients/cli/trust.h"
#include "common/clientfmt/artifact.h"
#include "common/clientfmt/key_envelope.h"
#include "common/clientfmt/proofs.h"
#include "common/clientfmt/roster.h"
#include "common/crypto/b64url.h"
#include "common/crypto/random.h"
#include "common/json/out.h"

namespace {

namespace fmt = pouch::clientfmt;
namespace cli = pouch::cli;
namespace crypto = pouch::crypto;
using cli::CliError;

crypto::P256PrivateKey load_key(const std::string& path) {
    std::string err;
    auto k = crypto::P256PrivateKey::load(path, err);
    if (!k) throw CliError(1, err);
    return *k;
}

fmt::PublicJwk jwk(const crypto::P256PrivateKey& k) {
    return {k.x(), k.y()};
}

std::string from_hex(const std::string& hex) {
    if (hex.size() % 2) throw CliError(2, "odd hex length");
    std::string out;
    for (size_t i = 0; i < hex.size(); i += 2)
        out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    return out;
}

// An enrolled member (a `pouch` config directory): its keys, session and API client.
struct Member {
    cli::Config cfg;
    cli::DeviceState device;
    crypto::P256PrivateKey sign;
    cli::Http http;
    cli::Api api;
    cli::Trust trust;

    explicit Member(const std::string& dir)
        : cfg(dir),
          device(cfg.load_device()),
          sign(cfg.sign_key()),
          api(http, cfg, device, sign),
          trust(api, cfg, device) {}

    std::string pouch(const cli::Args& a) {
        if (auto p = a.get("pouch")) return *p;
        auto keys = cfg.load_keys();
        if (keys.empty()) throw CliError(1, "this member holds no pouch key: give --pouch");
        return keys.begin()->first;
    }
    std::string key_of(const std::string& pouch, long long gen) {
        if (!trust.has_key(pouch, gen)) trust.fetch_keys(pouch);  // a rotation since its login
        auto keys = cfg.load_keys();
        auto p = keys.find(pouch);
        if (p == keys.end() || !p->second.gens.count(gen))
            throw CliError(1, "this member holds no key of generation " + std::to_string(gen));
        return p->second.gens.at(gen).key;
    }
    long long current_gen(const std::string& pouch) {
        return cli::jint(api.must("GET", "/v1/pouches/" + pouch).data(), "key_gen");
    }
};

int member_keys(const cli::Args& a) {
    auto out = a.get("out");
    if (!out) throw CliError(2, "member-keys --out DIR");
    cli::make_dirs(*out, 0700);
    auto sign = crypto::P256PrivateKey::generate();
    auto enc = crypto::P256PrivateKey::generate();
    std::string err;
    if (!sign.save(cli::join_path(*out, "sign.pem"), err) ||
        !enc.save(cli::join_path(*out, "enc.pem"), err))
        throw CliError(1, err);
    pouch::json::Out o;
    o.kv("member_id", crypto::uuid_v4());
    o.key("sign_pub").raw(sign.public_jwk_json()).key("enc_pub").raw(enc.public_jwk_json());
    o.kv("sign_jkt", jwk(sign).jkt());
    std::string text = o.done();
    cli::write_file_atomic(cli::join_path(*out, "member.json"), text, 0600);
    std::printf("%s\n", text.c_str());
    return 0;
}

struct Forged {
    std::string member_id;
    crypto::P256PrivateKey sign, enc;
};

Forged load_forged(const std::string& dir) {
    auto text = cli::read_file(cli::join_path(dir, "member.json"));
    if (!text) throw CliError(1, dir + "/member.json is missing (member-keys first)");
    auto d = fmt::parse_object(*text);
    return {fmt::get_str(d, "member_id"), load_key(cli::join_path(dir, "sign.pem")),
            load_key(cli::join_path(dir, "enc.pem"))};
}

int roster_add(const cli::Args& a) {
    Member x(*a.get("config"));
    Forged m = load_forged(a.get("member").value_or(""));
    const fmt::Roster& r = x.trust.roster();
    fmt::StatementBody b;
    b.seq = r.head_seq + 1;
    b.prev = r.head_hash;
    b.kind = "add";
    b.by = x.device.member_id;
    b.member_id = m.member_id;
    b.sign_pub = jwk(m.sign);
    b.enc_pub = jwk(m.enc);
    b.label = a.get("label").value_or("forged");
    b.at = fmt::rfc3339_utc(fmt::now_unix());
    fmt::SignedStatement s = fmt::sign_statement(b, x.sign);
    pouch::json::Out o;
    o.kv("index", b.seq).kv("statement", s.statement).kv("signature", s.signature);
    std::printf("%s\n", o.done().c_str());
    return 0;
}

int revision(const cli::Args& a) {
    Member x(*a.get("config"));
    std::string pouch = x.pouch(a);
    long long gen = a.get("key-gen") ? std::stoll(*a.get("key-gen")) : x.current_gen(pouch);
    std::string key = a.get("key") ? from_hex(*a.get("key")) : x.key_of(pouch, gen);
    fmt::Content c;
    c.name = a.get("name").value_or("");
    c.kind = a.get("kind").value_or("file");
    c.mtime = fmt::now_unix() * 1000;
    if (auto m = a.get("mode")) c.mode = std::stoll(*m, nullptr, 8);
    if (auto chunks = a.get("chunks")) {
        auto d = fmt::parse_object("{\"c\":" + *chunks + "}");
        std::vector<fmt::ChunkRef> refs;
        for (const auto& e : fmt::get_arr(d, "c").GetArray()) {
            refs.push_back({fmt::get_str(e, "blob_id"), fmt::get_int(e, "size"),
                            fmt::get_str(e, "key"), fmt::get_str(e, "hash")});
            c.size += refs.back().size;
        }
        c.chunks = refs;
    } else if (c.kind != "folder") {
        std::string data = a.get("data").value_or("");
        c.size = static_cast<long long>(data.size());
        c.data = crypto::b64url_encode(data);
    }
    fmt::RevisionIds ids{pouch, a.get("artifact").value_or(crypto::uuid_v4()), crypto::uuid_v4(),
                         gen};
    std::string envelope = fmt::seal_envelope(key, ids, c);
    std::string signature = a.get("signer")
                                ? fmt::sign_revision(load_forged(*a.get("signer")).sign, ids, envelope)
                                : fmt::sign_revision(x.sign, ids, envelope);
    pouch::json::Out op;
    op.kv("type", "put").kv("artifact_id", ids.artifact_id).kv("revision_id", ids.revision_id);
    op.kv_null("base_revision_id").kv_null("merge_parent_id");
    op.kv("name_index", fmt::name_index(key, c.name)).kv_null("conflict_id");
    op.kv("key_gen", gen).kv("envelope", envelope).kv("signature", signature);
    op.kv("signer_member_id", x.device.member_id);
    op.key("blob_ids").arr().end_arr();
    std::string op_json = op.done();
    if (!a.flag("commit")) {
        std::printf("%s\n", op_json.c_str());
        return 0;
    }
    auto p = x.api.must("GET", "/v1/pouches/" + pouch);
    pouch::json::Out body;
    body.kv("operation_id", crypto::uuid_v4()).kv("epoch", cli::jstr(p.data(), "epoch"));
    body.key("ops").arr().raw(op_json).end_arr();
    std::string text = body.done();
    auto r = x.api.must("POST", "/v1/pouches/" + pouch + "/operations", text,
                        {"Service-Signature: " + fmt::make_service_signature(x.sign, text)});
    const auto& res = r.data()["results"][0];
    std::string status = cli::jstr(res, "status");
    if (status != "applied")
        throw CliError(1, "the commit was not applied: " + status + " " +
                              cli::jopt(res, "code").value_or(""));
    pouch::json::Out o;
    o.key("op").raw(op_json).kv("seq", cli::jint(res, "seq"));
    std::printf("%s\n", o.done().c_str());
    return 0;
}

int envelope(const cli::Args& a) {
    Member x(*a.get("config"));
    std::string pouch = x.pouch(a);
    if (!a.get("key-gen")) throw CliError(2, "envelope needs --key-gen");
    long long gen = std::stoll(*a.get("key-gen"));
    std::string key = a.get("key") ? from_hex(*a.get("key"))
                                   : x.key_of(pouch, std::stoll(a.get("key-of-gen").value_or("0")));
    std::string to_member;
    fmt::PublicJwk to_enc;
    if (auto v = a.get("to-config")) {
        cli::Config vc(*v);
        to_member = vc.load_device().member_id;
        to_enc = jwk(vc.enc_key());  // its public half only
    } else if (a.flag("to-genesis")) {
        const fmt::Roster& r = x.trust.roster();
        to_member = r.bodies.at(0).member_id;
        to_enc = r.bodies.at(0).enc_pub;
    } else {
        throw CliError(2, "envelope needs --to-config DIR or --to-genesis");
    }
    std::string label = a.get("member-label").value_or(to_member);
    // The HPKE info names the member the envelope claims (`label`), so it opens for a reader
    // that builds the info from the envelope's own fields.
    fmt::KeyEnvelope e =
        fmt::seal_key_envelope(pouch, label, gen, to_enc, key, x.device.member_id, x.sign);
    std::printf("%s\n", e.json().c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: pouch-attacker member-keys|roster-add|revision|envelope ... "
                             "(see tools/attacker/main.cpp)\n");
        return 2;
    }
    std::vector<std::string> rest(argv + 2, argv + argc);
    std::string cmd = argv[1];
    try {
        auto a = cli::parse_args(rest,
                                 {"out", "member", "label", "name", "pouch", "data", "mode", "kind",
                                  "key-gen", "key", "signer", "artifact", "chunks", "key-of-gen",
                                  "to-config", "member-label"},
                                 {"commit", "to-genesis"});
        if (cmd == "member-keys") return member_keys(a);
        if (!a.get("config")) throw CliError(2, cmd + " needs --config DIR (a pouch device)");
        if (cmd == "roster-add") return roster_add(a);
        if (cmd == "revision") return revision(a);
        if (cmd == "envelope") return envelope(a);
        std::fprintf(stderr, "pouch-attacker: unknown command %s\n", cmd.c_str());
        return 2;
    } catch (const CliError& e) {
        std::fprintf(stderr, "pouch-attacker %s: %s\n", cmd.c_str(), e.what());
        return e.code;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pouch-attacker %s: %s\n", cmd.c_str(), e.what());
        return 1;
    }
}
