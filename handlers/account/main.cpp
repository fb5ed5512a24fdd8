// main.cpp -- the account handler: signup, login, logout, account overview, roster and
// genesis (and health).
#include "common/api/main.h"
#include "handlers/account/password.h"
#include "handlers/account/routes.h"

int main(int argc, char** argv) {
    using namespace pouch;
    return api::handler_main("account", argc, argv,
                             [](http::Router& r, const config::Config& config) {
                                 account::password_init(config.argon2_parallel);
                                 api::add(r, account::kSignup, api::typed(account::signup));
                                 api::add(r, account::kLogin, api::typed(account::login));
                                 api::add(r, account::kLogout, account::logout);
                                 api::add(r, account::kAccount, api::typed(account::get_account));
                                 api::add(r, account::kGenesis, api::typed(account::genesis));
                                 api::add(r, account::kRoster, account::roster);
                             });
}
