// details.cpp -- GET /v1/cli-auth/requests/{id} (web): what the approving browser shows,
// including the confirm code the CLI displays, the CLI's public keys, where the login started
// and whether a connect token started it. A request bound by a connect token to another
// account is not found.
#include "common/auth/caller.h"
#include "common/crypto/confirm_code.h"
#include "handlers/cliauth/routes.h"
#include "handlers/cliauth/sql.h"

namespace pouch::cliauth {

http::Response details(api::Call& call) {
    http::Request& req = call.req;
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    auto conn = s.db.acquire();
    db::Result r = conn->exec(sql::kRequestDetails, {req.param("id")});
    if (r.rows() == 0) throw http::not_found();
    auto bound = r.opt(0, "connect_account_id");
    if (bound && *bound != c.account_id) throw http::not_found();
    json::Out o;
    o.kv("id", r.text(0, "id")).kv("device_name", r.text(0, "device_name"));
    o.kv("os", r.text(0, "os")).kv("arch", r.text(0, "arch"));
    o.kv("cli_version", r.text(0, "cli_version"));
    o.key("assistants").raw(r.text(0, "assistants"));
    o.kv("key_storage", r.text(0, "key_storage")).kv("sign_jkt", r.text(0, "sign_jkt"));
    // The CLI's public keys, so the browser can seal the welcome and pouch keys to enc_pub and
    // check sign_pub against sign_jkt (additive to decisions §6).
    o.key("sign_pub").obj().kv("kty", "EC").kv("crv", "P-256");
    o.kv("x", r.text(0, "sign_x")).kv("y", r.text(0, "sign_y")).end_obj();
    o.key("enc_pub").obj().kv("kty", "EC").kv("crv", "P-256");
    o.kv("x", r.text(0, "enc_x")).kv("y", r.text(0, "enc_y")).end_obj();
    o.kv("confirm_code", crypto::confirm_code(r.text(0, "id"), r.text(0, "sign_jkt")));
    o.kv("status", r.text(0, "status"));
    // Where and how the login started, so the person approving can tell it is theirs
    // (decisions §15): the client address at start (null when unknown) and whether a connect
    // token from this account started it.
    o.kv("started_ip", r.opt(0, "started_ip"));
    o.kv("connect_token_used", r.boolean(0, "connect_token_used"));
    o.kv("created_at", r.text(0, "created_at")).kv("expires_at", r.text(0, "expires_at"));
    return api::ok(o.done());
}

}  // namespace pouch::cliauth
