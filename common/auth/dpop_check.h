// dpop_check.h -- the request side of DPoP (decisions §1): exactly one DPoP header, the
// proof verified for this method and URL (common/jose/dpop.h), then its jti recorded in
// the replay cache. Used by CLI authentication and by the login endpoints (start, token,
// refresh) that prove key possession before any token exists.
#pragma once

#include <optional>
#include <string_view>

#include "common/http/request.h"
#include "common/http/server.h"
#include "common/jose/dpop.h"

namespace pouch::auth {

// Throws Error 401 invalid_dpop_proof (missing, malformed, wrong key use, replayed).
jose::DpopProof require_dpop(const http::Request& req, http::Services& s,
                             std::optional<std::string_view> access_token);

// Verifies without recording the jti, for CLI authentication, which records it with
// record_dpop() once the proof is bound to the access token's key. Handlers call neither: the
// pipeline (common/api/route.cpp) verifies and records every proof before the handler runs.
jose::DpopProof check_dpop(const http::Request& req, http::Services& s,
                           std::optional<std::string_view> access_token);
void record_dpop(const jose::DpopProof& proof, http::Services& s);

// The 401 every DPoP failure answers with.
Error dpop_error(std::string message);

}  // namespace pouch::auth
