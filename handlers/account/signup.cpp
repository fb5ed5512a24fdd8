// signup.cpp -- POST /v1/account/signup: user, storage account on the default plan and a
// first web session, in one transaction. The password is hashed before the transaction so
// no connection waits on Argon2.
#include "common/crypto/random.h"
#include "common/json/out.h"
#include "handlers/account/password.h"
#include "handlers/account/routes.h"
#include "handlers/account/sql.h"

namespace pouch::account {


http::Response signup(api::Call& call) {
    http::Services& s = call.services;
    const rapidjson::Document& doc = call.body;
    std::string email = normalize_email(doc["email"].GetString());
    std::string password(doc["password"].GetString(), doc["password"].GetStringLength());
    std::string hash = password_hash(password);

    std::string user_id = crypto::uuid_v4();
    std::string account_id = crypto::uuid_v4();
    auto conn = s.db.acquire();
    db::Transaction tx(*conn);
    if (conn->exec(sql::kInsertUser, {user_id, email, hash}).rows() == 0)
        throw Error(Code::email_taken, {}, "/email");
    if (conn->exec(sql::kInsertAccount, {account_id, user_id}).rows() == 0)
        throw std::runtime_error("no default plan is configured");
    NewSession session = create_session(*conn, user_id);
    tx.commit();

    json::Out o;
    o.kv("user_id", user_id).kv("storage_account_id", account_id);
    o.kv("session_token", session.token).kv("expires_at", session.expires_at);
    return api::created(o.done());
}

}  // namespace pouch::account
