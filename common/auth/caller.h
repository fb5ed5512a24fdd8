// caller.h -- who is calling (decisions §1): a web session (Authorization: Bearer svc_ws_...)
// or a CLI device (Authorization: DPoP svc_at_... plus a DPoP proof). Both resolve to one
// Caller that handlers use for every permission decision.
#pragma once

#include <string>

#include "common/http/request.h"
#include "common/http/server.h"

namespace pouch::auth {

struct Caller {
    enum class Kind { web, cli };
    Kind kind = Kind::web;
    std::string user_id;
    std::string account_id;
    std::string member_id;       // empty before genesis (web) — a device always has one
    std::string device_id;       // CLI only
    std::string role;            // user | support | admin
    std::string session_id;      // web only
    std::string sign_x, sign_y;  // CLI: the device's registered sign key (Service-Signature)

    bool is_web() const { return kind == Kind::web; }
    bool is_cli() const { return kind == Kind::cli; }
};

// Throws Error 401 (unauthenticated, token_expired, invalid_dpop_proof, device_revoked).
Caller authenticate(const http::Request& req, http::Services& s);

// authenticate() plus the caller-kind rule: the wrong kind gets 403 wrong_caller.
Caller require_web(const http::Request& req, http::Services& s);
Caller require_cli(const http::Request& req, http::Services& s);

// "svc_ws_" etc. followed by exactly 43 b64url characters.
bool has_token_shape(const std::string& token, const std::string& prefix);

}  // namespace pouch::auth
