// identity.cpp -- see identity.h.
#include "common/model/identity.h"

#include "common/crypto/b64url.h"
#include "common/crypto/es256.h"
#include "common/json/jcs.h"
#include "common/json/value.h"
#include "common/model/sql_identity.h"
#include "common/types/error.h"

namespace pouch::model {

namespace js = json::schema;

js::Node identity_envelope() {
    return js::object({
        js::req("account_id", js::uuid()),
        js::req("member_id", js::uuid()),
        js::req("hpke_enc", js::b64url().min_chars(1).max_chars(342)),
        js::req("ciphertext", js::b64url().min_chars(1).max_chars(1024)),
        js::req("created_by_member", js::uuid()),
        js::req("signature", js::b64url().min_chars(1).max_chars(342)),
    });
}

namespace {

std::optional<clientfmt::SignedStatement> stored(std::optional<sql::StoredStatement> row) {
    if (!row) return std::nullopt;
    return clientfmt::SignedStatement{std::move(row->statement), std::move(row->signature)};
}

}  // namespace

std::optional<clientfmt::SignedStatement> identity_of(db::Conn& conn,
                                                      const std::string& account_id) {
    return stored(conn.maybe_one(sql::kIdentityOf, {.account_id = account_id}));
}

std::optional<clientfmt::SignedStatement> genesis_of(db::Conn& conn,
                                                     const std::string& account_id) {
    return stored(conn.maybe_one(sql::kGenesisOf, {.account_id = account_id}));
}

GenesisMember genesis_member(db::Conn& conn, const std::string& account_id) {
    auto genesis = genesis_of(conn, account_id);
    if (!genesis) throw Error(Code::genesis_required);
    // Statement 0 was checked when genesis stored it (handlers/account/genesis.cpp).
    clientfmt::StatementBody b = clientfmt::decode_statement(genesis->statement);
    return {.member_id = b.member_id, .sign_pub = b.sign_pub};
}

void check_identity_envelope(const rapidjson::Value& e, const std::string& pointer,
                             const std::string& account_id, const GenesisMember& creator) {
    if (json::text(e["account_id"]) != account_id)
        throw invalid_field(pointer + "/account_id", "must be the caller's account " + account_id);
    if (json::text(e["created_by_member"]) != creator.member_id)
        throw invalid_field(pointer + "/created_by_member",
                            "must be the account's genesis member " + creator.member_id);
    // The signed bytes: JCS of the five other members (SHARING.md §1).
    rapidjson::Document signed_part(rapidjson::kObjectType);
    auto& a = signed_part.GetAllocator();
    for (const char* name :
         {"account_id", "member_id", "hpke_enc", "ciphertext", "created_by_member"})
        signed_part.AddMember(rapidjson::StringRef(name), rapidjson::Value(e[name], a), a);
    auto bytes = json::jcs(signed_part);
    auto key = crypto::P256PublicKey::from_jwk(creator.sign_pub.x, creator.sign_pub.y);
    auto signature = crypto::b64url_decode(json::text(e["signature"]));
    if (!bytes || !key || !signature || !key->verify(*bytes, *signature))
        throw invalid_field(pointer + "/signature",
                            "does not verify with the genesis member's sign_pub");
}

void insert_identity_envelopes(db::Conn& conn, const rapidjson::Value& envelopes) {
    auto text = json::jcs(envelopes);
    if (!text) throw validation_failed("/envelopes", "cannot be canonicalized");
    conn.run(sql::kInsertIdentityEnvelopes, {.envelopes = json::Raw{*text}});
}

}  // namespace pouch::model
