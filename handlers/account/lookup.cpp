// lookup.cpp -- GET /v1/identities?email= (docs/SHARING.md §2), any signed-in caller,
// rate-limited by nginx: the identity of the account an address belongs to, or the
// address's stand-in (stand_in.h) when no account with an identity has it. The stand-in is
// computed on every call, so neither the shape nor the time of the answer tells whether the
// address has an account.
#include <mutex>
#include <optional>
#include <string>

#include "common/model/sql_identity.h"
#include "handlers/account/routes.h"
#include "handlers/account/sql.h"
#include "handlers/account/stand_in.h"

namespace pouch::account {

namespace {

struct Secret {
    std::string bytes;
    long long created_unix = 0;
};

std::string from_hex(const std::string& hex) {
    std::string out;
    for (size_t i = 0; i + 1 < hex.size(); i += 2)
        out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    return out;
}

// Read once per process: the secret never changes (sql/011_identity.sql).
Secret stand_in_secret(db::Conn& conn) {
    static std::mutex mu;
    static std::optional<Secret> cached;
    std::lock_guard lock(mu);
    if (!cached) {
        auto row = conn.maybe_one(model::sql::kServiceSecret, {.name = "stand_in"});
        if (!row) throw std::runtime_error("service_secrets has no stand_in row (migrate)");
        cached = Secret{from_hex(row->secret), row->created_unix};
    }
    return *cached;
}

}  // namespace

LookupAnswer lookup_identity(api::Call& call) {
    std::string email;
    try {
        email = normalize_email(call.query.text("email").value_or(""));
    } catch (const Error&) {
        throw validation_failed("?email", "must be an email address");
    }
    auto conn = call.services.db.acquire();
    const Secret secret = stand_in_secret(*conn);
    const StandIn s = stand_in(secret.bytes, secret.created_unix, email);
    if (auto r = conn->maybe_one(sql::kLookupIdentity, {.email = email}))
        return {
            .account_id = r->account_id,
            .email = email,
            .identity = {.statement = r->identity_statement, .signature = r->identity_signature},
            .genesis = {.statement = r->genesis_statement, .signature = r->genesis_signature}};
    return {.account_id = s.account_id,
            .email = email,
            .identity = {.statement = s.identity.statement, .signature = s.identity.signature},
            .genesis = {.statement = s.genesis.statement, .signature = s.genesis.signature}};
}

}  // namespace pouch::account
