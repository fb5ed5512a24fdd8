// session.cpp -- web sessions: a random svc_ws_ token whose SHA-256 alone is stored, and
// email normalisation shared by signup and login.
#include <algorithm>
#include <cctype>

#include "common/crypto/random.h"
#include "common/http/error.h"
#include "handlers/account/routes.h"
#include "handlers/account/sql.h"

namespace pouch::account {

NewSession create_session(db::Conn& conn, const std::string& user_id) {
    std::string token = crypto::new_token("svc_ws_");
    sql::ExpiresAt r = conn.one(sql::kInsertSession, {.id = crypto::uuid_v4(),
                                                      .user_id = user_id,
                                                      .token_hash = crypto::token_hash(token)});
    return NewSession{token, r.expires_at};
}

std::string normalize_email(const std::string& raw) {
    auto not_space = [](unsigned char c) { return !std::isspace(c); };
    auto first = std::find_if(raw.begin(), raw.end(), not_space);
    auto last = std::find_if(raw.rbegin(), raw.rend(), not_space).base();
    std::string email = first < last ? std::string(first, last) : std::string();
    std::transform(email.begin(), email.end(), email.begin(), [](unsigned char c) {
        return static_cast<char>(std::tolower(c));
    });
    size_t at = email.rfind('@');
    bool ok = at != std::string::npos && at > 0 && at + 1 < email.size() &&
              email.find('.', at) != std::string::npos && email.back() != '.';
    for (unsigned char c : email)
        if (c < 0x21 || c == 0x7f) ok = false;  // no whitespace or control characters
    if (!ok) throw validation_failed("/email", "must be an email address");
    return email;
}

}  // namespace pouch::account
