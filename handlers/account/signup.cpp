// signup.cpp -- POST /v1/account/signup: user, storage account on the default plan and a
// first web session, in one transaction. The password is hashed before the transaction so
// no connection waits on Argon2.
#include "common/crypto/random.h"
#include "handlers/account/password.h"
#include "handlers/account/routes.h"
#include "handlers/account/sql.h"

namespace pouch::account {

api::Created<SignupAnswer> signup(api::Call& call, const SignupRequest& body) {
    http::Services& s = call.services;
    std::string email = normalize_email(body.email);
    std::string hash = password_hash(body.password);

    std::string user_id = crypto::uuid_v4();
    std::string account_id = crypto::uuid_v4();
    auto conn = s.db.acquire();
    db::Transaction tx(*conn);
    if (!conn->maybe_one(sql::kInsertUser, {.id = user_id, .email = email, .password_hash = hash}))
        throw Error(Code::email_taken, {}, "/email");
    if (conn->rows(sql::kInsertAccount, {.id = account_id, .owner_user_id = user_id}).empty())
        throw std::runtime_error("no default plan is configured");
    NewSession session = create_session(*conn, user_id);
    tx.commit();

    return {{.user_id = user_id,
             .storage_account_id = account_id,
             .session_token = session.token,
             .expires_at = session.expires_at}};
}

}  // namespace pouch::account
