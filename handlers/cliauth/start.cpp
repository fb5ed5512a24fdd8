// start.cpp -- POST /v1/cli-auth/requests (op 5): a DPoP proof made with sign_pub proves the
// CLI holds that key; the request then waits for a browser (decisions §6).
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "common/auth/dpop_check.h"
#include "common/crypto/es256.h"
#include "common/crypto/random.h"
#include "common/json/parse.h"
#include "common/json/schema.h"
#include "handlers/cliauth/routes.h"
#include "handlers/cliauth/sql.h"

namespace pouch::cliauth {

namespace {

namespace js = json::schema;

bool is_connect_token(const std::string& s) {
    return s.size() == 7 + 32 && s.compare(0, 7, "svc_lt_") == 0 &&
           s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
                               7) == std::string::npos;
}

const js::Node kStart = js::object({
    js::req("code_challenge", js::b64url().min_chars(43).max_chars(43)),
    js::req("device_name", js::string().min_chars(1).max_chars(64)),
    js::opt("assistants", js::array(js::string().min_chars(1).max_chars(64)).max_items(32)),
    js::req("os", js::one_of({"linux", "macos", "windows"})),
    js::req("arch", js::string().min_chars(1).max_chars(32)),
    js::req("cli_version", js::string().min_chars(1).max_chars(32)),
    js::req("sign_pub", js::jwk()),
    js::req("enc_pub", js::jwk()),
    js::req("key_storage", js::one_of({"tpm", "secure_enclave", "os_keystore", "file"})),
    js::opt("connect_token",
            js::string().check(is_connect_token, "svc_lt_ followed by 32 b64url characters")),
});

std::string str(const rapidjson::Value& v) { return std::string(v.GetString(), v.GetStringLength()); }

std::string assistants_json(const rapidjson::Document& doc) {
    if (!doc.HasMember("assistants")) return "[]";
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    doc["assistants"].Accept(w);
    return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace

Response start(Request& req, Services& s) {
    crypto::DpopProof proof = auth::check_dpop(req, s, std::nullopt);
    rapidjson::Document doc = json::parse_strict(req.body);
    js::validate(doc, kStart);
    const auto& sign = doc["sign_pub"];
    std::string sign_jkt = crypto::jwk_thumbprint(str(sign["x"]), str(sign["y"]));
    if (sign_jkt != proof.jkt) throw auth::dpop_error("the DPoP proof must be signed by sign_pub");
    auth::record_dpop(proof, s);

    auto conn = s.db.acquire();
    db::Transaction tx(*conn);
    db::Param connect_account;
    if (doc.HasMember("connect_token")) {
        db::Result r = conn->exec(sql::kUseConnectToken,
                                  {crypto::token_hash(str(doc["connect_token"]))});
        if (r.rows() == 0)
            throw validation_failed("/connect_token", "unknown, used or expired connect token");
        connect_account = r.text(0, "account_id");
    }
    std::string id = crypto::uuid_v4();
    const auto& enc = doc["enc_pub"];
    conn->exec(sql::kInsertRequest,
               {id, str(doc["code_challenge"]), str(sign["x"]), str(sign["y"]), sign_jkt,
                str(enc["x"]), str(enc["y"]), str(doc["device_name"]), str(doc["os"]),
                str(doc["arch"]), str(doc["cli_version"]), assistants_json(doc),
                str(doc["key_storage"]), connect_account,
                std::to_string(s.config.login_ttl_seconds)});
    tx.commit();

    json::Out o;
    o.kv("request_id", id);
    o.kv("authorize_url", s.config.web_url + "/cli/approve?request=" + id);
    o.kv("expires_in", s.config.login_ttl_seconds).kv("interval", kPollInterval);
    Response r;
    r.data = o.done();
    return r;
}

}  // namespace pouch::cliauth
