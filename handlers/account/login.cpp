// login.cpp -- POST /v1/account/login: unknown email and wrong password answer the same
// 401 invalid_credentials after the same Argon2 work (decisions §4).
#include "common/json/out.h"
#include "handlers/account/password.h"
#include "handlers/account/routes.h"
#include "handlers/account/sql.h"

namespace pouch::account {


http::Response login(api::Call& call) {
    http::Services& s = call.services;
    const rapidjson::Document& doc = call.body;
    std::string email = normalize_email(doc["email"].GetString());
    std::string password(doc["password"].GetString(), doc["password"].GetStringLength());

    std::string user_id, stored_hash;
    {
        auto conn = s.db.acquire();  // released before hashing
        db::Result r = conn->exec(sql::kUserByEmail, {email});
        if (r.rows() == 1) {
            user_id = r.text(0, "id");
            stored_hash = r.text(0, "password_hash");
        }
    }
    bool ok = false;
    if (user_id.empty())
        password_burn(password);
    else
        ok = password_verify(stored_hash, password);
    if (!ok) throw Error(Code::invalid_credentials);

    auto conn = s.db.acquire();
    NewSession session = create_session(*conn, user_id);
    json::Out o;
    o.kv("user_id", user_id).kv("session_token", session.token);
    o.kv("expires_at", session.expires_at);
    return api::ok(o.done());
}

}  // namespace pouch::account
