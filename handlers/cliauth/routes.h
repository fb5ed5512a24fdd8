// routes.h -- the cliauth group (decisions §6): the device login a browser approves.
#pragma once

#include <string>

#include "common/http/server.h"
#include "common/json/out.h"

namespace pouch::cliauth {

constexpr int kPollInterval = 5;             // seconds between polls without `wait`
constexpr int kAccessTokenSeconds = 3600;    // decisions §1
constexpr int kConnectTokenSeconds = 600;

Response start(Request& req, Services& s);           // POST /v1/cli-auth/requests
Response details(Request& req, Services& s);         // GET  /v1/cli-auth/requests/{id}
Response approve(Request& req, Services& s);         // POST /v1/cli-auth/requests/{id}/approve
Response deny(Request& req, Services& s);            // POST /v1/cli-auth/requests/{id}/deny
Response token(Request& req, Services& s);           // POST /v1/cli-auth/token
Response refresh(Request& req, Services& s);         // POST /v1/cli-auth/refresh
Response connect_token(Request& req, Services& s);   // POST /v1/cli-auth/connect-tokens

// A fresh access + refresh token pair for the device, stored as hashes inside `conn`.
struct TokenPair {
    std::string access_token;
    std::string refresh_token;
};
TokenPair issue_tokens(db::Conn& conn, const std::string& device_id, const std::string& jkt);

// The fields shared by the approved form (op 6) and refresh.
void write_token_fields(json::Out& o, const TokenPair& t, const db::Result& device);

std::string login_channel(const std::string& request_id);

}  // namespace pouch::cliauth
