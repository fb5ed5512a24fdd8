// main.cpp -- pouch-interop-verify: the C++ side of tests/interop. Reads one JSON test case
// per stdin line and answers one JSON line per case, using only the common library
// (verify_dpop, verify_service_signature, json::jcs, BLAKE3, RFC 7638 thumbprints, PKCE,
// confirm codes), so the Node harness can check it against independent implementations.
// Bodies travel as b64url bytes so invalid UTF-8 reaches the parser unchanged.
//
//   {"op":"dpop","proof":P,"method":M,"public_url":U,"path":P,"now":N[,"token":T]}
//       -> {"ok":true,"jkt":..,"jti":..,"iat":N} | {"ok":false,"error":..}
//   {"op":"sig","body_b64":B,"sig":S,"x":X,"y":Y}        -> {"ok":bool[,"error":..]}
//   {"op":"jcs","body_b64":B}  -> {"ok":true,"jcs_b64":..,"blake3":..} | {"ok":false,..}
//   {"op":"jkt","x":X,"y":Y}   -> {"ok":on_curve,"jkt":..[,"key_jkt":..]}
//   {"op":"pkce","verifier":V} -> {"ok":true,"valid":bool,"challenge":..}
//   {"op":"confirm","request_id":R,"jkt":J} -> {"ok":true,"code":..}
#include <exception>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "common/crypto/b64url.h"
#include "common/crypto/confirm_code.h"
#include "common/crypto/es256.h"
#include "common/crypto/hash.h"
#include "common/crypto/pkce.h"
#include "common/http/error.h"
#include "common/jose/dpop.h"
#include "common/jose/service_signature.h"
#include "common/json/jcs.h"
#include "common/json/parse.h"

namespace {

namespace cr = pouch::crypto;
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

std::string str(const rapidjson::Value& c, const char* k) {
    if (!c.HasMember(k) || !c[k].IsString()) throw std::runtime_error(std::string("missing ") + k);
    return {c[k].GetString(), c[k].GetStringLength()};
}

long long int64(const rapidjson::Value& c, const char* k) {
    if (!c.HasMember(k) || !c[k].IsInt64()) throw std::runtime_error(std::string("missing ") + k);
    return c[k].GetInt64();
}

void put(Writer& w, const char* k, const std::string& v) {
    w.Key(k);
    w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
}

void fail(Writer& w, const std::string& why) {
    w.Key("ok");
    w.Bool(false);
    put(w, "error", why);
}

std::string body_of(const rapidjson::Value& c) {
    auto body = cr::b64url_decode(str(c, "body_b64"));
    if (!body) throw std::runtime_error("body_b64 is not b64url");
    return *body;
}

void run_dpop(const rapidjson::Value& c, Writer& w) {
    std::string proof = str(c, "proof"), method = str(c, "method"), url = str(c, "public_url"),
                path = str(c, "path");
    std::optional<std::string> token;
    if (c.HasMember("token")) token = str(c, "token");
    pouch::jose::DpopInput in{proof, method, url, path, std::nullopt, int64(c, "now")};
    if (token) in.access_token = *token;
    try {
        pouch::jose::DpopProof p = pouch::jose::verify_dpop(in);
        w.Key("ok");
        w.Bool(true);
        put(w, "jkt", p.jkt);
        put(w, "jti", p.jti);
        w.Key("iat");
        w.Int64(p.iat);
    } catch (const pouch::Error& e) {
        fail(w, std::string(e.code) + ": " + e.message);
    }
}

void run_sig(const rapidjson::Value& c, Writer& w) {
    auto key = cr::P256PublicKey::from_jwk(str(c, "x"), str(c, "y"));
    if (!key) return fail(w, "key not on P-256");
    std::string body = body_of(c);
    try {
        rapidjson::Document doc = pouch::json::parse_strict(body);
        auto canonical = pouch::json::jcs(doc);
        if (!canonical) return fail(w, "no JCS form");
        bool ok =
            pouch::jose::verify_service_signature(str(c, "sig"), cr::blake3_256(*canonical), *key);
        w.Key("ok");
        w.Bool(ok);
        if (!ok) put(w, "error", "signature rejected");
    } catch (const pouch::Error& e) {
        fail(w, std::string(e.code) + ": " + e.message);
    }
}

void run_jcs(const rapidjson::Value& c, Writer& w) {
    std::string body = body_of(c);
    try {
        rapidjson::Document doc = pouch::json::parse_strict_any(body);
        auto canonical = pouch::json::jcs(doc);
        if (!canonical) return fail(w, "no JCS form");
        w.Key("ok");
        w.Bool(true);
        put(w, "jcs_b64", cr::b64url_encode(*canonical));
        put(w, "blake3", cr::b64url_encode(cr::blake3_256(*canonical)));
    } catch (const pouch::Error& e) {
        fail(w, std::string(e.code) + ": " + e.message);
    }
}

void run_jkt(const rapidjson::Value& c, Writer& w) {
    std::string x = str(c, "x"), y = str(c, "y");
    auto key = cr::P256PublicKey::from_jwk(x, y);
    w.Key("ok");
    w.Bool(key.has_value());
    put(w, "jkt", cr::jwk_thumbprint(x, y));
    if (key) put(w, "key_jkt", key->thumbprint());
}

void run_case(const rapidjson::Value& c, Writer& w) {
    std::string op = str(c, "op");
    if (op == "dpop") return run_dpop(c, w);
    if (op == "sig") return run_sig(c, w);
    if (op == "jcs") return run_jcs(c, w);
    if (op == "jkt") return run_jkt(c, w);
    if (op == "pkce") {
        std::string v = str(c, "verifier");
        w.Key("ok");
        w.Bool(true);
        w.Key("valid");
        w.Bool(cr::valid_code_verifier(v));
        put(w, "challenge", cr::pkce_s256(v));
        return;
    }
    if (op == "confirm") {
        w.Key("ok");
        w.Bool(true);
        put(w, "code", cr::confirm_code(str(c, "request_id"), str(c, "jkt")));
        return;
    }
    throw std::runtime_error("unknown op " + op);
}

}  // namespace

int main() {
    std::ios::sync_with_stdio(false);
    std::string line;
    while (std::getline(std::cin, line)) {
        rapidjson::StringBuffer buf;
        Writer w(buf);
        w.StartObject();
        rapidjson::Document c;
        // A harness bug must show as a failed case, not as a crash that hides the others.
        try {
            if (c.Parse(line.data(), line.size()).HasParseError() || !c.IsObject())
                throw std::runtime_error("test case is not a JSON object");
            run_case(c, w);
        } catch (const std::exception& e) {
            buf.Clear();
            w.Reset(buf);
            w.StartObject();
            fail(w, std::string("harness: ") + e.what());
        }
        w.EndObject();
        std::cout << buf.GetString() << '\n';
    }
    return 0;
}
