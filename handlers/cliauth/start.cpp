// start.cpp -- POST /v1/cli-auth/requests (op 5): a DPoP proof made with sign_pub proves the
// CLI holds that key; the request then waits for a browser (decisions §6), which is shown the
// address the login came from (nginx's, after its trusted-proxy handling: decisions §15).
#include "common/auth/dpop_check.h"
#include "common/crypto/es256.h"
#include "common/crypto/random.h"
#include "handlers/cliauth/routes.h"
#include "handlers/cliauth/sql.h"

namespace pouch::cliauth {

StartAnswer start(api::Call& call, const StartRequest& body) {
    http::Services& s = call.services;
    const jose::DpopProof& proof = *call.proof;
    const Jwk& sign = body.sign_pub;
    std::string sign_jkt = crypto::jwk_thumbprint(sign.x, sign.y);
    if (sign_jkt != proof.jkt) throw auth::dpop_error("the DPoP proof must be signed by sign_pub");

    auto conn = s.db.acquire();
    db::Transaction tx(*conn);
    std::optional<std::string> connect_account;
    if (body.connect_token) {
        auto r = conn->maybe_one(sql::kUseConnectToken,
                                 {.token_hash = crypto::token_hash(*body.connect_token)});
        if (!r)
            throw validation_failed("/connect_token", "unknown, used or expired connect token");
        connect_account = r->account_id;
    }
    std::string id = crypto::uuid_v4();
    conn->run(sql::kInsertRequest,
              {.id = id,
               .code_challenge = body.code_challenge,
               .sign_x = sign.x,
               .sign_y = sign.y,
               .sign_jkt = sign_jkt,
               .enc_x = body.enc_pub.x,
               .enc_y = body.enc_pub.y,
               .device_name = body.device_name,
               .os = body.os,
               .arch = body.arch,
               .cli_version = body.cli_version,
               .assistants = {body.assistants.value_or(std::vector<std::string>{})},
               .key_storage = body.key_storage,
               .connect_account_id = connect_account,
               .ttl_seconds = s.config.login_ttl_seconds,
               .started_ip = http::canonical_ip(call.req.remote_addr)});
    tx.commit();

    return {.request_id = id,
            .authorize_url = s.config.web_url + "/cli/approve?request=" + id,
            .expires_in = s.config.login_ttl_seconds,
            .interval = kPollInterval};
}

}  // namespace pouch::cliauth
