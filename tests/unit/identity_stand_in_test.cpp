// identity_stand_in_test.cpp -- the lookup's stand-ins (handlers/account/stand_in.h,
// docs/SHARING.md §2): the same address gives the same bytes on every call, a stand-in
// verifies as a real identity does (the client format's own verify_identity and
// verify_roster), and nothing is shared between two addresses or two service secrets; the
// deterministic ES256 they are signed with; and the service's check of an identity envelope
// (common/model/identity.h) against envelopes the client format seals.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "common/clientfmt/roster.h"
#include "common/clientfmt/sharing.h"
#include "common/crypto/es256.h"
#include "common/crypto/es256_deterministic.h"
#include "common/crypto/p256_private.h"
#include "common/model/identity.h"
#include "common/types/error.h"
#include "handlers/account/stand_in.h"

namespace pouch {
namespace {

const std::string kSecret(32, '\x5a');
constexpr long long kSecretMade = 1795000000;  // 2026-11-17

TEST(DeterministicEs256, SameKeyAndMessageGiveTheSameLowSSignatureThatVerifies) {
    auto key = crypto::P256PrivateKey::generate();
    std::string a = crypto::sign_es256_deterministic(key, "message one");
    std::string b = crypto::sign_es256_deterministic(key, "message one");
    ASSERT_EQ(a.size(), 64u);
    EXPECT_EQ(a, b);
    EXPECT_TRUE(crypto::es256_is_low_s(a));
    auto pub = crypto::P256PublicKey::from_jwk(key.x(), key.y());
    ASSERT_TRUE(pub);
    EXPECT_TRUE(pub->verify("message one", a));
    EXPECT_FALSE(pub->verify("message two", a));
}

TEST(DeterministicEs256, AnotherMessageOrKeyGivesAnotherSignature) {
    auto key = crypto::P256PrivateKey::generate();
    auto other = crypto::P256PrivateKey::generate();
    std::string a = crypto::sign_es256_deterministic(key, "m");
    EXPECT_NE(a, crypto::sign_es256_deterministic(key, "n"));
    EXPECT_NE(a, crypto::sign_es256_deterministic(other, "m"));
    // The nonce differs per message: the R halves differ too (a shared R would leak the key).
    EXPECT_NE(a.substr(0, 32), crypto::sign_es256_deterministic(key, "n").substr(0, 32));
}

TEST(StandIn, IsTheSameOnEveryCallForOneAddress) {
    account::StandIn a = account::stand_in(kSecret, kSecretMade, "bea@example.com");
    account::StandIn b = account::stand_in(kSecret, kSecretMade, "bea@example.com");
    EXPECT_EQ(a.account_id, b.account_id);
    EXPECT_EQ(a.identity.statement, b.identity.statement);
    EXPECT_EQ(a.identity.signature, b.identity.signature);
    EXPECT_EQ(a.genesis.statement, b.genesis.statement);
    EXPECT_EQ(a.genesis.signature, b.genesis.signature);
}

TEST(StandIn, VerifiesAsARealIdentityBoundToItsGenesis) {
    account::StandIn s = account::stand_in(kSecret, kSecretMade, "bea@example.com");
    EXPECT_TRUE(clientfmt::is_uuid(s.account_id));
    EXPECT_EQ(s.account_id[14], '4');  // a v4 uuid, like the ids signup draws
    clientfmt::Roster roster = clientfmt::verify_roster({s.genesis});
    ASSERT_EQ(roster.bodies.size(), 1u);
    EXPECT_EQ(roster.bodies[0].label, "web");
    EXPECT_FALSE(roster.bodies[0].device_id.has_value());
    clientfmt::IdentityBody b = clientfmt::verify_identity(s.identity, s.genesis);
    EXPECT_EQ(b.account_id, s.account_id);
    EXPECT_EQ(b.by, roster.bodies[0].member_id);
    EXPECT_EQ(b.genesis_hash, roster.genesis_hash);
    EXPECT_EQ(b.at, roster.bodies[0].at);
    // `at` lies within the 180 days before the secret was drawn.
    EXPECT_LE(b.at, clientfmt::rfc3339_utc(kSecretMade));
    EXPECT_GE(b.at, clientfmt::rfc3339_utc(kSecretMade - 180LL * 86400));
}

TEST(StandIn, TwoAddressesOrTwoSecretsShareNothing) {
    account::StandIn a = account::stand_in(kSecret, kSecretMade, "bea@example.com");
    account::StandIn b = account::stand_in(kSecret, kSecretMade, "cid@example.com");
    account::StandIn c = account::stand_in(std::string(32, '\x01'), kSecretMade, "bea@example.com");
    for (const account::StandIn* o : {&b, &c}) {
        EXPECT_NE(a.account_id, o->account_id);
        clientfmt::IdentityBody x = clientfmt::decode_identity(a.identity.statement);
        clientfmt::IdentityBody y = clientfmt::decode_identity(o->identity.statement);
        EXPECT_FALSE(x.sign_pub == y.sign_pub);
        EXPECT_FALSE(x.enc_pub == y.enc_pub);
        EXPECT_NE(x.by, y.by);
    }
}

}  // namespace
}  // namespace pouch

// ---- identity envelopes as the service checks them (common/model/identity.h) ----------------

namespace pouch {
namespace {

struct EnvelopeCase {
    std::string account = "11111111-1111-4111-8111-111111111111";
    std::string member = "22222222-2222-4222-8222-222222222222";
    std::string creator = "33333333-3333-4333-8333-333333333333";
    crypto::P256PrivateKey creator_key = crypto::P256PrivateKey::generate();
    crypto::P256PrivateKey member_enc = crypto::P256PrivateKey::generate();
    clientfmt::IdentityKeys identity{crypto::P256PrivateKey::generate(),
                                     crypto::P256PrivateKey::generate()};

    rapidjson::Document sealed(const std::string& for_account, const std::string& by,
                               const crypto::P256PrivateKey& key) const {
        clientfmt::IdentityEnvelope e = clientfmt::seal_identity_envelope(
            for_account, member, {member_enc.x(), member_enc.y()}, identity, by, key);
        rapidjson::Document d;
        d.Parse(e.json().c_str());
        return d;
    }
    model::GenesisMember genesis() const {
        return {.member_id = creator, .sign_pub = {creator_key.x(), creator_key.y()}};
    }
};

// The field of the invalid_field a check throws, or "" when it passes.
std::string refusal(const rapidjson::Value& e, const EnvelopeCase& c) {
    try {
        model::check_identity_envelope(e, "/envelopes/0", c.account, c.genesis());
        return "";
    } catch (const Error& err) {
        EXPECT_EQ(err.id, Code::invalid_field);
        return err.field;
    }
}

TEST(IdentityEnvelopeCheck, AcceptsOneSealedByTheGenesisMemberForTheAccount) {
    EnvelopeCase c;
    EXPECT_EQ(refusal(c.sealed(c.account, c.creator, c.creator_key), c), "");
}

TEST(IdentityEnvelopeCheck, RefusesAnotherAccountAnotherCreatorAndABadSignature) {
    EnvelopeCase c;
    EXPECT_EQ(
        refusal(c.sealed("44444444-4444-4444-8444-444444444444", c.creator, c.creator_key), c),
        "/envelopes/0/account_id");
    EXPECT_EQ(refusal(c.sealed(c.account, c.member, c.creator_key), c),
              "/envelopes/0/created_by_member");
    auto other = crypto::P256PrivateKey::generate();
    EXPECT_EQ(refusal(c.sealed(c.account, c.creator, other), c), "/envelopes/0/signature");
    rapidjson::Document changed = c.sealed(c.account, c.creator, c.creator_key);
    changed["ciphertext"].SetString("AAAA", changed.GetAllocator());
    EXPECT_EQ(refusal(changed, c), "/envelopes/0/signature");
}

}  // namespace
}  // namespace pouch
