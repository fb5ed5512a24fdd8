// login.cpp -- POST /v1/account/login: unknown email and wrong password answer the same
// 401 invalid_credentials after the same Argon2 work (decisions §4).
#include "handlers/account/password.h"
#include "handlers/account/routes.h"
#include "handlers/account/sql.h"

namespace pouch::account {

LoginAnswer login(api::Call& call, const LoginRequest& body) {
    http::Services& s = call.services;
    std::string email = normalize_email(body.email);

    std::optional<sql::UserLogin> user;
    {
        auto conn = s.db.acquire();  // released before hashing
        user = conn->maybe_one(sql::kUserByEmail, {.email = email});
    }
    bool ok = false;
    if (!user)
        password_burn(body.password);
    else
        ok = password_verify(user->password_hash, body.password);
    if (!ok) throw Error(Code::invalid_credentials);

    auto conn = s.db.acquire();
    NewSession session = create_session(*conn, user->id);
    return {.user_id = user->id, .session_token = session.token, .expires_at = session.expires_at};
}

}  // namespace pouch::account
