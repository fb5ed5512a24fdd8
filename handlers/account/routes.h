// routes.h -- the account group's endpoints (decisions §4), one file each.
#pragma once

#include "common/http/server.h"

namespace pouch::account {

Response signup(Request& req, Services& s);        // POST /v1/account/signup
Response login(Request& req, Services& s);         // POST /v1/account/login
Response logout(Request& req, Services& s);        // POST /v1/account/logout
Response get_account(Request& req, Services& s);   // GET  /v1/account
Response genesis(Request& req, Services& s);       // POST /v1/account/roster/genesis
Response roster(Request& req, Services& s);        // GET  /v1/account/roster

// Shared by signup and login: a new web session for the user, inside `conn`.
struct NewSession {
    std::string token;
    std::string expires_at;
};
NewSession create_session(db::Conn& conn, const std::string& user_id);

// Trims and lower-cases an email; throws validation_failed(/email) if it is not one.
std::string normalize_email(const std::string& raw);

}  // namespace pouch::account
