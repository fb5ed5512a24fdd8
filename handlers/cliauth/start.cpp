// start.cpp -- POST /v1/cli-auth/requests (op 5): a DPoP proof made with sign_pub proves the
// CLI holds that key; the request then waits for a browser (decisions §6), which is shown the
// address the login came from (nginx's, after its trusted-proxy handling: decisions §15).
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "common/auth/dpop_check.h"
#include "common/crypto/es256.h"
#include "common/crypto/random.h"
#include "handlers/cliauth/routes.h"
#include "handlers/cliauth/sql.h"

namespace pouch::cliauth {

namespace {

std::string assistants_json(const rapidjson::Document& doc) {
    if (!doc.HasMember("assistants")) return "[]";
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    doc["assistants"].Accept(w);
    return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace

http::Response start(api::Call& call) {
    http::Services& s = call.services;
    const jose::DpopProof& proof = *call.proof;
    const rapidjson::Document& doc = call.body;
    const auto& sign = doc["sign_pub"];
    std::string sign_jkt = crypto::jwk_thumbprint(json::text(sign["x"]), json::text(sign["y"]));
    if (sign_jkt != proof.jkt) throw auth::dpop_error("the DPoP proof must be signed by sign_pub");

    auto conn = s.db.acquire();
    db::Transaction tx(*conn);
    db::Param connect_account;
    if (doc.HasMember("connect_token")) {
        db::Result r = conn->exec(sql::kUseConnectToken,
                                  {crypto::token_hash(json::text(doc["connect_token"]))});
        if (r.rows() == 0)
            throw validation_failed("/connect_token", "unknown, used or expired connect token");
        connect_account = r.text(0, "account_id");
    }
    std::string id = crypto::uuid_v4();
    const auto& enc = doc["enc_pub"];
    conn->exec(
        sql::kInsertRequest,
        {id, json::text(doc["code_challenge"]), json::text(sign["x"]), json::text(sign["y"]),
         sign_jkt, json::text(enc["x"]), json::text(enc["y"]), json::text(doc["device_name"]),
         json::text(doc["os"]), json::text(doc["arch"]), json::text(doc["cli_version"]),
         assistants_json(doc), json::text(doc["key_storage"]), connect_account,
         std::to_string(s.config.login_ttl_seconds), http::canonical_ip(call.req.remote_addr)});
    tx.commit();

    json::Out o;
    o.kv("request_id", id);
    o.kv("authorize_url", s.config.web_url + "/cli/approve?request=" + id);
    o.kv("expires_in", s.config.login_ttl_seconds).kv("interval", kPollInterval);
    return api::ok(o.done());
}

}  // namespace pouch::cliauth
