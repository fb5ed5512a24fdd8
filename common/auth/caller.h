// caller.h -- who is calling (decisions §1): a web session (Authorization: Bearer svc_ws_...)
// or a CLI device (Authorization: DPoP svc_at_... plus a DPoP proof). Both resolve to one
// Caller that handlers use for every permission decision.
#pragma once

#include <optional>
#include <string>

#include "common/http/request.h"
#include "common/http/server.h"
#include "common/model/pouch.h"

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

// The pouch a route's read scope will load (common/api/route.h), asked for with the
// credentials: a web session's lookup reads it in the same statement, one PostgreSQL round
// trip instead of two (issue 25). Only the lookup is moved, not a decision: `row` (nullopt
// for a pouch the account does not reach) is for the pipeline to judge at its own phase.
// Left unloaded for a CLI device (its checks come first), which the pipeline then reads.
struct PouchPrefetch {
    std::string pouch_id;
    bool loaded = false;
    std::optional<model::PouchRow> row{};
};

// Throws Error 401 (unauthenticated, token_expired, invalid_dpop_proof, device_revoked).
Caller authenticate(const http::Request& req, http::Services& s, PouchPrefetch* pouch = nullptr);

// authenticate() plus the caller-kind rule: the wrong kind gets 403 wrong_caller.
Caller require_web(const http::Request& req, http::Services& s, PouchPrefetch* pouch = nullptr);
Caller require_cli(const http::Request& req, http::Services& s);

// "svc_ws_" etc. followed by exactly 43 b64url characters.
bool has_token_shape(const std::string& token, const std::string& prefix);

}  // namespace pouch::auth
