// identity.cpp -- the account identity (docs/SHARING.md §1): GET /v1/account/identity (any
// member: the identity statement and the caller's own envelope) and PUT (web, once: the
// statement, checked against roster statement 0 as every client checks it, with an envelope
// for every active member). The roster lock serialises it with approvals and revocations, so
// no member joins between the check that each has an envelope and the COMMIT.
#include <set>
#include <string>

#include "common/auth/caller.h"
#include "common/clientfmt/sharing.h"
#include "common/crypto/b64url.h"
#include "common/crypto/es256.h"
#include "common/model/identity.h"
#include "common/model/roster.h"
#include "handlers/account/routes.h"

namespace pouch::account {

namespace msql = model::sql;

namespace {

// The statement as SHARING.md §1 binds it: decodes (exactly its 8 members), names the caller's
// account and the hash of its roster statement 0, is by the genesis member, and its signature
// verifies with that member's sign_pub. 400 invalid_field naming /statement or /signature.
clientfmt::IdentityBody check_statement(const clientfmt::SignedStatement& st,
                                        const std::string& account_id,
                                        const clientfmt::SignedStatement& genesis,
                                        const model::GenesisMember& creator) {
    clientfmt::IdentityBody b;
    try {
        b = clientfmt::decode_identity(st.statement);
    } catch (const clientfmt::FormatError& e) {
        throw invalid_field("/statement", std::string("is not an identity statement: ") + e.what());
    }
    if (b.account_id != account_id)
        throw invalid_field("/statement", "names account " + b.account_id +
                                              ", not the caller's account " + account_id);
    if (b.genesis_hash != clientfmt::statement_hash(genesis.statement))
        throw invalid_field("/statement",
                            "has a genesis_hash that is not the hash of the account's roster "
                            "statement 0");
    if (b.by != creator.member_id)
        throw invalid_field("/statement", "is by member " + b.by + ", not by the genesis member " +
                                              creator.member_id);
    auto key = crypto::P256PublicKey::from_jwk(creator.sign_pub.x, creator.sign_pub.y);
    auto bytes = crypto::b64url_decode(st.statement);
    auto signature = crypto::b64url_decode(st.signature);
    if (!key || !bytes || !signature || !key->verify(*bytes, *signature))
        throw invalid_field("/signature", "does not verify with the genesis member's sign_pub");
    return b;
}

// Every envelope checked, one per active member and none for anyone else.
void check_envelopes(db::Conn& conn, const rapidjson::Value& envelopes,
                     const std::string& account_id, const model::GenesisMember& creator) {
    std::set<std::string> active;
    for (auto& m : conn.rows(msql::kActiveMembers, {.account_id = account_id})) active.insert(m.id);
    std::set<std::string> seen;
    for (rapidjson::SizeType i = 0; i < envelopes.Size(); ++i) {
        const std::string at = "/envelopes/" + std::to_string(i);
        model::check_identity_envelope(envelopes[i], at, account_id, creator);
        std::string member = json::text(envelopes[i]["member_id"]);
        if (!active.count(member))
            throw invalid_field(at + "/member_id", "is not an active member of the account");
        if (!seen.insert(member).second)
            throw invalid_field(at + "/member_id", "repeats an earlier envelope's member");
    }
    for (const std::string& m : active)
        if (!seen.count(m))
            throw invalid_field("/envelopes", "has no envelope for active member " + m);
}

}  // namespace

IdentityAnswer get_identity(api::Call& call) {
    const auth::Caller& c = call.who();
    auto conn = call.services.db.acquire();
    IdentityAnswer out;
    out.identity = conn->maybe_one(msql::kIdentityOf, {.account_id = c.account_id});
    if (out.identity && !c.member_id.empty())
        out.envelope = conn->maybe_one(msql::kIdentityEnvelopeOf,
                                       {.account_id = c.account_id, .member_id = c.member_id});
    return out;
}

api::Created<IdentityStored> put_identity(api::Call& call) {
    const auth::Caller& c = call.who();
    const rapidjson::Document& doc = call.body;
    const clientfmt::SignedStatement st{json::text(doc["statement"]), json::text(doc["signature"])};
    auto conn = call.services.db.acquire();
    db::Transaction tx(*conn);
    model::lock_roster(*conn, c.account_id);
    if (model::identity_of(*conn, c.account_id)) throw Error(Code::identity_exists);
    auto genesis = model::genesis_of(*conn, c.account_id);
    if (!genesis || c.member_id.empty()) throw Error(Code::genesis_required);
    const model::GenesisMember creator = model::genesis_member(*conn, c.account_id);
    clientfmt::IdentityBody b = check_statement(st, c.account_id, *genesis, creator);
    check_envelopes(*conn, doc["envelopes"], c.account_id, creator);
    if (!conn->maybe_one(msql::kInsertIdentity, {.account_id = c.account_id,
                                                 .statement = st.statement,
                                                 .signature = st.signature,
                                                 .sign_pub = b.sign_pub.json(),
                                                 .enc_pub = b.enc_pub.json()}))
        throw Error(Code::identity_exists);
    model::insert_identity_envelopes(*conn, doc["envelopes"]);
    tx.commit();
    return {{.identity = {.statement = st.statement, .signature = st.signature}}};
}

}  // namespace pouch::account
