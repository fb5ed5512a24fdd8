// main.cpp -- the account handler: signup, login, logout, account overview, roster and
// genesis (and health).
#include "common/http/server.h"
#include "handlers/account/password.h"
#include "handlers/account/routes.h"

int main(int argc, char** argv) {
    return pouch::handler_main("account", argc, argv, [](pouch::Router& r) {
        pouch::account::password_init(pouch::Config::from_env().argon2_parallel);
        r.add("POST", "/v1/account/signup", pouch::account::signup);
        r.add("POST", "/v1/account/login", pouch::account::login);
        r.add("POST", "/v1/account/logout", pouch::account::logout);
        r.add("GET", "/v1/account", pouch::account::get_account);
        pouch::RouteOptions big;  // up to 16 statements and 2,000 envelopes
        big.body_limit = 16 * pouch::kMiB;
        r.add("POST", "/v1/account/roster/genesis", pouch::account::genesis, big);
        r.add_query("GET", "/v1/account/roster", pouch::account::roster);
    });
}
