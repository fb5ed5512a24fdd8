// details.cpp -- GET /v1/cli-auth/requests/{id} (web): what the approving browser shows,
// including the confirm code the CLI displays, the CLI's public keys, where the login started
// and whether a connect token started it. A request bound by a connect token to another
// account is not found.
#include "common/auth/caller.h"
#include "common/crypto/confirm_code.h"
#include "handlers/cliauth/routes.h"
#include "handlers/cliauth/sql.h"

namespace pouch::cliauth {

DetailsAnswer details(api::Call& call) {
    http::Request& req = call.req;
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    auto conn = s.db.acquire();
    auto r = conn->maybe_one(sql::kRequestDetails, {.id = req.param("id")});
    if (!r) throw http::not_found();
    if (r->connect_account_id && *r->connect_account_id != c.account_id) throw http::not_found();
    return {
        .id = r->id,
        .device_name = r->device_name,
        .os = r->os,
        .arch = r->arch,
        .cli_version = r->cli_version,
        .assistants = r->assistants,
        .key_storage = r->key_storage,
        .sign_jkt = r->sign_jkt,
        // The CLI's public keys, so the browser can seal the welcome and pouch keys to enc_pub
        // and check sign_pub against sign_jkt (additive to decisions §6).
        .sign_pub = {.kty = "EC", .crv = "P-256", .x = r->sign_x, .y = r->sign_y},
        .enc_pub = {.kty = "EC", .crv = "P-256", .x = r->enc_x, .y = r->enc_y},
        .confirm_code = crypto::confirm_code(r->id, r->sign_jkt),
        .status = r->status,
        // Where and how the login started, so the person approving can tell it is theirs
        // (decisions §15): the client address at start (null when unknown) and whether a
        // connect token from this account started it.
        .started_ip = r->started_ip,
        .connect_token_used = r->connect_token_used,
        .created_at = r->created_at,
        .expires_at = r->expires_at,
    };
}

}  // namespace pouch::cliauth
