// genesis.cpp -- POST /v1/account/roster/genesis (op 4), web only (decisions §4): roster
// entries 0..n-1, the web user's member, the first pouch and its key envelopes, all in one
// transaction. The account row is locked first so two geneses cannot both pass the check.
// Statement 0 is decoded with the client format's reader and must name its own signer, who
// created every envelope, and carry its own valid signature (decisions §15): the member id
// the service records is the one every client later verifies the roster against.
#include "common/auth/caller.h"
#include "common/clientfmt/roster.h"
#include "common/crypto/b64url.h"
#include "common/crypto/es256.h"
#include "common/crypto/hash.h"
#include "common/crypto/random.h"
#include "common/json/label.h"
#include "common/model/ids_in_use.h"
#include "common/model/key_envelopes.h"
#include "common/model/roster.h"
#include "common/model/schemas.h"
#include "common/model/usage.h"
#include "handlers/account/routes.h"
#include "handlers/account/sql.h"

namespace pouch::account {

namespace {

// Every envelope names the same pouch, creator and key_gen; throws at the first that differs.
void require_same(const rapidjson::Value& envelopes, const char* member) {
    for (rapidjson::SizeType i = 1; i < envelopes.Size(); ++i) {
        if (envelopes[i][member] != envelopes[0][member])
            throw validation_failed(
                "/key_envelopes/" + std::to_string(i) + "/" + member,
                std::string("every genesis envelope must have the same ") + member);
    }
}

// Statement 0 must be a genesis of `member_id` by itself (seq 0, no prev), signed with its own
// sign_pub, with a label in the alphabet of decisions §15. 400 invalid_field otherwise.
void require_genesis_of(const rapidjson::Value& statement0, const std::string& member_id) {
    const char* kStatement = "/statements/0/statement";
    const std::string text = json::text(statement0["statement"]);
    clientfmt::StatementBody b;
    try {
        b = clientfmt::decode_statement(text);
    } catch (const clientfmt::FormatError& e) {
        throw invalid_field(kStatement, std::string("is not a roster statement: ") + e.what());
    }
    if (b.kind != "genesis" || b.seq != 0 || !b.prev.empty())
        throw invalid_field(kStatement,
                            "must be a genesis statement (kind genesis, seq 0, prev \"\")");
    if (b.member_id != member_id)
        throw invalid_field(kStatement, "names member " + b.member_id +
                                            ", not the envelopes' created_by_member " + member_id);
    if (b.by != member_id)
        throw invalid_field(kStatement, "is signed by member " + b.by +
                                            ", not by the member it creates (" + member_id + ")");
    if (auto why = json::label_problem(b.label))
        throw invalid_field(kStatement, "has a label that must " + *why);
    auto key = crypto::P256PublicKey::from_jwk(b.sign_pub.x, b.sign_pub.y);
    auto signature = crypto::b64url_decode(json::text(statement0["signature"]));
    if (!key || !signature || !key->verify(*crypto::b64url_decode(text), *signature))
        throw invalid_field("/statements/0/signature",
                            "does not verify with the genesis statement's own sign_pub");
}

}  // namespace

api::Created<GenesisAnswer> genesis(api::Call& call) {
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    const rapidjson::Document& doc = call.body;
    const auto& statements = doc["statements"];
    for (rapidjson::SizeType i = 1; i < statements.Size(); ++i)
        for (rapidjson::SizeType j = 0; j < i; ++j)
            if (statements[i]["statement"] == statements[j]["statement"])
                throw validation_failed("/statements/" + std::to_string(i) + "/statement",
                                        "repeats an earlier statement");
    const auto& envelopes = doc["key_envelopes"];
    require_same(envelopes, "pouch_id");
    require_same(envelopes, "created_by_member");
    require_same(envelopes, "key_gen");
    std::string pouch_id = json::text(envelopes[0]["pouch_id"]);
    std::string member_id = json::text(envelopes[0]["created_by_member"]);
    long long key_gen = envelopes[0]["key_gen"].GetInt64();

    {
        auto conn = s.db.acquire();
        db::Transaction tx(*conn);
        model::Usage before = model::lock_account_usage(*conn, c.account_id);
        if (conn->one(sql::kHasGenesis, {.account_id = c.account_id}).has_genesis)
            throw Error(Code::genesis_exists);
        require_genesis_of(statements[0], member_id);
        if (model::pouch_id_in_use(*conn, pouch_id))
            throw validation_failed("/key_envelopes/0/pouch_id", "this pouch id is already in use");
        if (model::member_id_in_use(*conn, member_id))
            throw validation_failed("/key_envelopes/0/created_by_member",
                                    "this member id is already in use");
        model::append_roster(*conn, c.account_id, doc["statements"]);
        conn->run(sql::kInsertWebMember,
                  {.id = member_id, .account_id = c.account_id, .user_id = c.user_id});
        conn->run(sql::kSetWebMember, {.account_id = c.account_id, .web_member_id = member_id});
        conn->run(sql::kInsertPouch, {.id = pouch_id,
                                      .account_id = c.account_id,
                                      .epoch = crypto::uuid_v4(),
                                      .key_gen = key_gen});
        model::store_key_envelopes(*conn, c.account_id, envelopes, "/key_envelopes", member_id, "",
                                   false, model::KeyGenRule::rotation);
        model::require_within_quota(*conn, c.account_id, before);
        tx.commit();
    }

    return {{.genesis_hash = crypto::b64url_encode(
                 crypto::blake3_256(json::text(doc["statements"][0]["statement"]))),
             .pouch_id = pouch_id}};
}

}  // namespace pouch::account
