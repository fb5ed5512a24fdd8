// clientfmt_sharing_test.cpp -- the client format of docs/SHARING.md (common/clientfmt/sharing.h):
// identity statements bound to their genesis, identity envelopes, safety numbers, access lists
// that verify and every rule of §4 that refuses one (each with its own chain), the role at a
// generation, and key grants. The shared vectors are checked in clientfmt_vectors_test.cpp.
#include <gtest/gtest.h>

#include <regex>

#include "common/clientfmt/sharing.h"
#include "common/crypto/b64url.h"
#include "common/crypto/random.h"

using namespace pouch;
using namespace pouch::clientfmt;
using crypto::P256PrivateKey;

namespace {

PublicJwk jwk(const P256PrivateKey& k) {
    return {k.x(), k.y()};
}

const char* kAt = "2026-11-27T10:00:00Z";

// An account: its genesis (web) member, roster statement 0 and its identity.
struct Account {
    std::string id = crypto::uuid_v4();
    std::string member_id = crypto::uuid_v4();
    P256PrivateKey member_sign = P256PrivateKey::generate();
    P256PrivateKey member_enc = P256PrivateKey::generate();
    IdentityKeys identity{P256PrivateKey::generate(), P256PrivateKey::generate()};
    SignedStatement genesis;
    SignedStatement identity_statement;

    Account() {
        StatementBody g;
        g.kind = "genesis";
        g.by = g.member_id = member_id;
        g.sign_pub = jwk(member_sign);
        g.enc_pub = jwk(member_enc);
        g.label = "web";
        g.at = kAt;
        genesis = sign_statement(g, member_sign);
        identity_statement = sign_identity(body(), member_sign);
    }
    IdentityBody body() const {
        IdentityBody b;
        b.account_id = id;
        b.genesis_hash = statement_hash(genesis.statement);
        b.by = member_id;
        b.sign_pub = jwk(identity.sign);
        b.enc_pub = jwk(identity.enc);
        b.at = kAt;
        return b;
    }
    PublicIdentity pub() const { return {id, jwk(identity.sign), jwk(identity.enc)}; }
};

// An access list under construction: each add() signs the next statement with `by`'s identity.
struct List {
    std::string pouch_id = crypto::uuid_v4();
    std::vector<SignedStatement> s;

    AccessBody body(const std::string& kind, const Account& by, const Account& about,
                    const std::string& role, long long key_gen) const {
        AccessBody b;
        b.pouch_id = pouch_id;
        b.seq = static_cast<long long>(s.size());
        b.prev = s.empty() ? "" : statement_hash(s.back().statement);
        b.kind = kind;
        b.by = by.id;
        b.account_id = about.id;
        b.identity_sign_pub = jwk(about.identity.sign);
        b.identity_enc_pub = jwk(about.identity.enc);
        b.role = role;
        b.key_gen = key_gen;
        b.at = kAt;
        if (kind == "remove" || kind == "leave") b.rotated_to = key_gen;
        return b;
    }
    List& add(const std::string& kind, const Account& by, const Account& about,
              const std::string& role, long long key_gen) {
        s.push_back(sign_access(body(kind, by, about, role, key_gen), by.identity.sign));
        return *this;
    }
    List& add_body(const AccessBody& b, const P256PrivateKey& key) {
        s.push_back(sign_access(b, key));
        return *this;
    }
    std::string error() const {
        try {
            verify_access_list(pouch_id, s);
        } catch (const FormatError& e) {
            return e.what();
        }
        return "";
    }
};

std::string identity_error(const SignedStatement& identity, const SignedStatement& genesis) {
    try {
        verify_identity(identity, genesis);
    } catch (const FormatError& e) {
        return e.what();
    }
    return "";
}

std::string raw_statement(const std::string& json) {
    return crypto::b64url_encode(json);
}

}  // namespace

// ---- identity ----------------------------------------------------------------------------

TEST(Identity, StatementRoundTripsAndVerifiesAgainstItsGenesis) {
    Account a;
    IdentityBody b = verify_identity(a.identity_statement, a.genesis);
    EXPECT_EQ(b.account_id, a.id);
    EXPECT_EQ(b.by, a.member_id);
    EXPECT_EQ(b.genesis_hash, statement_hash(a.genesis.statement));
    EXPECT_EQ(b.sign_pub, jwk(a.identity.sign));
    EXPECT_EQ(b.enc_pub, jwk(a.identity.enc));
    EXPECT_EQ(b.jcs(), *crypto::b64url_decode(a.identity_statement.statement));
    EXPECT_EQ(decode_identity(a.identity_statement.statement).at, kAt);
}

TEST(Identity, RefusesAGenesisThatIsNotTheOneItsHashNames) {
    Account a, other;
    EXPECT_NE(identity_error(a.identity_statement, other.genesis).find("genesis_hash"),
              std::string::npos);
}

TEST(Identity, RefusesAStatementByAMemberOtherThanTheGenesisMember) {
    Account a;
    P256PrivateKey cli = P256PrivateKey::generate();
    IdentityBody b = a.body();
    b.by = crypto::uuid_v4();
    EXPECT_NE(identity_error(sign_identity(b, cli), a.genesis).find("not the genesis member"),
              std::string::npos);
}

TEST(Identity, RefusesASignatureNotMadeWithTheGenesisMembersKey) {
    Account a;
    SignedStatement forged = sign_identity(a.body(), a.identity.sign);
    EXPECT_NE(identity_error(forged, a.genesis).find("signature does not verify"),
              std::string::npos);
}

TEST(Identity, RefusesAGenesisWhoseOwnSignatureDoesNotVerify) {
    Account a, other;
    SignedStatement genesis{a.genesis.statement, other.genesis.signature};
    EXPECT_NE(identity_error(a.identity_statement, genesis).find("genesis does not verify"),
              std::string::npos);
}

TEST(Identity, DecodeRefusesAnotherKindAndAnExtraMember) {
    Account a;
    std::string jcs = a.body().jcs();
    std::string other_kind = jcs;
    other_kind.replace(other_kind.find("\"identity\""), 10, "\"genesis\"");
    EXPECT_THROW(decode_identity(raw_statement(other_kind)), FormatError);
    std::string extra = jcs;
    extra.insert(extra.size() - 1, ",\"zz\":1");
    EXPECT_THROW(decode_identity(raw_statement(extra)), FormatError);
}

TEST(IdentityEnvelope, OpensToTheIdentityKeysForItsMember) {
    Account a;
    P256PrivateKey cli_enc = P256PrivateKey::generate();
    std::string cli = crypto::uuid_v4();
    IdentityEnvelope e =
        seal_identity_envelope(a.id, cli, jwk(cli_enc), a.identity, a.member_id, a.member_sign);
    rapidjson::Document d = parse_object(e.json());
    IdentityEnvelope back = IdentityEnvelope::from_json(d);
    EXPECT_EQ(back.signed_bytes(), e.signed_bytes());
    IdentityKeys k = open_identity_envelope(back, jwk(a.member_sign), cli_enc, a.body());
    EXPECT_EQ(k.sign.scalar(), a.identity.sign.scalar());
    EXPECT_EQ(k.enc.scalar(), a.identity.enc.scalar());
}

TEST(IdentityEnvelope, RefusesKeysOtherThanTheIdentityStatementsAndBadSignaturesOrKeys) {
    Account a, other;
    P256PrivateKey cli_enc = P256PrivateKey::generate();
    std::string cli = crypto::uuid_v4();
    // sealed keys that are not the statement's
    IdentityEnvelope wrong_keys =
        seal_identity_envelope(a.id, cli, jwk(cli_enc), other.identity, a.member_id, a.member_sign);
    try {
        open_identity_envelope(wrong_keys, jwk(a.member_sign), cli_enc, a.body());
        FAIL() << "opened keys that are not the identity's";
    } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find("not those of the account's identity"),
                  std::string::npos);
    }
    IdentityEnvelope e =
        seal_identity_envelope(a.id, cli, jwk(cli_enc), a.identity, a.member_id, a.member_sign);
    EXPECT_THROW(open_identity_envelope(e, jwk(other.member_sign), cli_enc, a.body()),
                 FormatError);  // not the creator's signature
    EXPECT_THROW(open_identity_envelope(e, jwk(a.member_sign), a.member_enc, a.body()),
                 FormatError);  // another member's HPKE key
    EXPECT_THROW(open_identity_envelope(e, jwk(a.member_sign), cli_enc, other.body()),
                 FormatError);  // another account's identity
    IdentityEnvelope moved = e;
    moved.member_id = crypto::uuid_v4();
    EXPECT_THROW(open_identity_envelope(moved, jwk(a.member_sign), cli_enc, a.body()),
                 FormatError);  // signed for another member
}

// ---- safety number -----------------------------------------------------------------------

TEST(SafetyNumber, IsTheSameBothWaysAndIs60DigitsIn12Groups) {
    Account a, b;
    std::string ab = safety_number(a.pub(), b.pub());
    EXPECT_EQ(ab, safety_number(b.pub(), a.pub()));
    EXPECT_TRUE(std::regex_match(ab, std::regex("([0-9]{5} ){11}[0-9]{5}"))) << ab;
    EXPECT_EQ(safety_number_bytes(a.pub(), b.pub()).size(), 64u);
    EXPECT_EQ(safety_number_qr_text(a.pub(), b.pub()), safety_number_qr_text(b.pub(), a.pub()));
    std::string qr = safety_number_qr_text(a.pub(), b.pub());
    ASSERT_EQ(qr.rfind("pouch-sn1:", 0), 0u);
    EXPECT_EQ(*crypto::b64url_decode(qr.substr(10)), safety_number_bytes(a.pub(), b.pub()));
    // the lower account id comes first
    const Account& p = a.id < b.id ? a : b;
    EXPECT_EQ(safety_number_bytes(a.pub(), b.pub()).substr(0, 32), identity_fingerprint(p.pub()));
}

TEST(SafetyNumber, ChangesWithEitherIdentityAndRefusesOneAccountTwice) {
    Account a, b;
    PublicIdentity changed = b.pub();
    changed.enc_pub = jwk(P256PrivateKey::generate());
    EXPECT_NE(safety_number(a.pub(), b.pub()), safety_number(a.pub(), changed));
    EXPECT_THROW(safety_number(a.pub(), a.pub()), FormatError);
    PublicIdentity upper = a.pub();
    for (char& c : upper.account_id) c = static_cast<char>(std::toupper(c));
    EXPECT_THROW(safety_number_bytes(a.pub(), upper), FormatError);
}

// ---- access list -------------------------------------------------------------------------

TEST(AccessList, ShareRoleRemoveLeaveVerifiesWithRolesByGeneration) {
    Account owner, bea, cy;
    List l;
    l.add("share", owner, owner, "admin", 2)     // 0: the owner's entry, at generation 2
        .add("share", owner, bea, "write", 2)    // 1
        .add("share", owner, cy, "read", 2)      // 2
        .add("role", owner, cy, "admin", 2)      // 3: raised, no rotation
        .add("role", cy, bea, "read", 3)         // 4: lowered, rotates to 3
        .add("remove", cy, bea, "read", 4)       // 5
        .add("leave", owner, owner, "admin", 5)  // 6: cy is still an admin
        .add("share", cy, bea, "write", 5);      // 7: shared again
    AccessList r = verify_access_list(l.pouch_id, l.s);
    EXPECT_EQ(r.owner, owner.id);
    EXPECT_EQ(r.head_seq, 7);
    EXPECT_EQ(r.head_hash, statement_hash(l.s[7].statement));
    EXPECT_EQ(r.hash_at(3), statement_hash(l.s[3].statement));
    EXPECT_EQ(r.key_gen, 5);
    ASSERT_EQ(r.bodies.size(), 8u);

    const AccessEntry* o = r.find(owner.id);
    ASSERT_NE(o, nullptr);
    EXPECT_EQ(o->role_at(1), "admin");  // before the pouch was shared: its owner's alone
    EXPECT_EQ(o->role_at(4), "admin");
    EXPECT_EQ(o->role_at(5), "");
    EXPECT_FALSE(o->in_list);

    const AccessEntry* b = r.find(bea.id);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->role_at(1), "");
    EXPECT_EQ(b->role_at(2), "write");
    EXPECT_EQ(b->role_at(3), "read");
    EXPECT_EQ(b->role_at(4), "");
    EXPECT_EQ(b->role_at(5), "write");
    EXPECT_TRUE(b->in_list);
    EXPECT_EQ(b->shared_seq, 7);
    EXPECT_EQ(b->role, "write");

    const AccessEntry* c = r.find(cy.id);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->role_at(2), "admin");  // the raise at 2 is the last statement at 2
    EXPECT_EQ(c->role_at(9), "admin");

    EXPECT_TRUE(r.may_write_at(bea.id, 2));
    EXPECT_FALSE(r.may_write_at(bea.id, 3));
    EXPECT_FALSE(r.may_write_at(bea.id, 4));
    EXPECT_TRUE(r.may_write_at(bea.id, 5));
    EXPECT_FALSE(r.may_write_at(crypto::uuid_v4(), 2));
    EXPECT_EQ(r.revision_refusal(bea.id, 2), "");
    EXPECT_EQ(r.revision_refusal(bea.id, 3), "role_forbids_write");
    EXPECT_EQ(r.revision_refusal(bea.id, 4), "not_in_access_list");
    EXPECT_EQ(r.revision_refusal(owner.id, 5), "not_in_access_list");
    EXPECT_EQ(r.revision_refusal(crypto::uuid_v4(), 2), "not_in_access_list");
    EXPECT_EQ(r.find(crypto::uuid_v4()), nullptr);

    EXPECT_EQ(decode_access(l.s[5].statement).rotated_to, 4);
    EXPECT_EQ(decode_access(l.s[1].statement).jcs(), *crypto::b64url_decode(l.s[1].statement));
}

// Step 1: shape and chain, each with its own chain.
TEST(AccessList, Step1RefusesAnotherPouchAWrongSeqAWrongPrevAndAMissingOrExtraMember) {
    Account o, b;
    {
        List l;
        l.add("share", o, o, "admin", 1);
        try {
            verify_access_list(crypto::uuid_v4(), l.s);
            FAIL();
        } catch (const FormatError& e) {
            EXPECT_NE(std::string(e.what()).find("names pouch"), std::string::npos);
        }
    }
    {
        List l;
        l.add("share", o, o, "admin", 1);
        AccessBody x = l.body("share", o, b, "read", 1);
        x.seq = 2;
        l.add_body(x, o.identity.sign);
        EXPECT_NE(l.error().find("access statement 1: seq is 2"), std::string::npos) << l.error();
    }
    {
        List l;
        l.add("share", o, o, "admin", 1);
        AccessBody x = l.body("share", o, b, "read", 1);
        x.prev = statement_hash("another");
        l.add_body(x, o.identity.sign);
        EXPECT_NE(l.error().find("prev does not hash"), std::string::npos) << l.error();
    }
    {
        List l;  // a share that carries rotated_to
        l.add("share", o, o, "admin", 1);
        AccessBody x = l.body("share", o, b, "read", 1);
        x.rotated_to = 1;
        l.add_body(x, o.identity.sign);
        EXPECT_NE(l.error().find("exactly"), std::string::npos) << l.error();
    }
    {
        List l;  // a remove without rotated_to
        l.add("share", o, o, "admin", 1).add("share", o, b, "read", 1);
        AccessBody x = l.body("remove", o, b, "read", 2);
        x.rotated_to.reset();
        l.add_body(x, o.identity.sign);
        EXPECT_NE(l.error().find("exactly"), std::string::npos) << l.error();
    }
    {
        List l;  // rotated_to that is not key_gen
        l.add("share", o, o, "admin", 1).add("share", o, b, "read", 1);
        AccessBody x = l.body("leave", b, b, "read", 2);
        x.rotated_to = 3;
        l.add_body(x, b.identity.sign);
        EXPECT_NE(l.error().find("rotated_to must equal key_gen"), std::string::npos) << l.error();
    }
    {
        List l;  // not canonical JCS: the same body with a space
        std::string j = l.body("share", o, o, "admin", 1).jcs();
        j.insert(1, " ");
        l.s.push_back({raw_statement(j), crypto::b64url_encode(o.identity.sign.sign_es256(j))});
        EXPECT_NE(l.error().find("access statement 0"), std::string::npos) << l.error();
    }
    {
        List l;  // an unknown role and kind
        AccessBody x = l.body("share", o, o, "owner", 1);
        l.add_body(x, o.identity.sign);
        EXPECT_NE(l.error().find("role must be"), std::string::npos) << l.error();
        List k;
        AccessBody y = k.body("invite", o, o, "admin", 1);
        k.add_body(y, o.identity.sign);
        EXPECT_NE(k.error().find("unknown access statement kind"), std::string::npos) << k.error();
    }
}

// Step 2: statement 0 is the owner's own admin share.
TEST(AccessList, Step2RefusesAFirstStatementThatIsNotTheOwnersOwnAdminShare) {
    Account o, b;
    {
        List l;
        l.add("role", o, o, "admin", 1);
        EXPECT_NE(l.error().find("statement 0 must be a share"), std::string::npos) << l.error();
    }
    {
        List l;
        l.add("share", o, b, "admin", 1);
        EXPECT_NE(l.error().find("owner's own share"), std::string::npos) << l.error();
    }
    {
        List l;
        l.add("share", o, o, "write", 1);
        EXPECT_NE(l.error().find("role admin"), std::string::npos) << l.error();
    }
    {
        List l;
        l.add_body(l.body("share", o, o, "admin", 1), b.identity.sign);
        EXPECT_NE(l.error().find("signature does not verify"), std::string::npos) << l.error();
    }
    {
        List l;
        l.add("share", o, o, "admin", 0);
        EXPECT_NE(l.error().find("key_gen must be 1 or more"), std::string::npos) << l.error();
    }
    EXPECT_NE(List().error().find("empty"), std::string::npos);
}

// Step 3: who signs, and with which identity.
TEST(AccessList, Step3RefusesSignersNotInTheListOrNotAdminAndIdentitiesThatChange) {
    Account o, b, c;
    {
        List l;  // signed by an account never in the list
        l.add("share", o, o, "admin", 1).add("share", b, c, "read", 1);
        EXPECT_NE(l.error().find("not in the list"), std::string::npos) << l.error();
    }
    {
        List l;  // signed by a writer
        l.add("share", o, o, "admin", 1)
            .add("share", o, b, "write", 1)
            .add("share", b, c, "read", 1);
        EXPECT_NE(l.error().find("with role write, not admin"), std::string::npos) << l.error();
    }
    {
        List l;  // signed by a removed admin
        l.add("share", o, o, "admin", 1)
            .add("share", o, b, "admin", 1)
            .add("remove", o, b, "admin", 2)
            .add("share", b, c, "read", 2);
        EXPECT_NE(l.error().find("access statement 3: signed by"), std::string::npos) << l.error();
    }
    {
        List l;  // a leave signed by another account
        l.add("share", o, o, "admin", 1).add("share", o, b, "read", 1);
        l.add_body(l.body("leave", o, b, "read", 2), o.identity.sign);
        EXPECT_NE(l.error().find("signed by its own account"), std::string::npos) << l.error();
    }
    {
        List l;  // by names the owner, signed with another key
        l.add("share", o, o, "admin", 1);
        l.add_body(l.body("share", o, b, "read", 1), b.identity.sign);
        EXPECT_NE(l.error().find("signature does not verify"), std::string::npos) << l.error();
    }
    {
        List l;  // a role change naming another identity for an account in the list
        l.add("share", o, o, "admin", 1).add("share", o, b, "read", 1);
        AccessBody x = l.body("role", o, b, "write", 1);
        x.identity_sign_pub = jwk(c.identity.sign);
        l.add_body(x, o.identity.sign);
        EXPECT_NE(l.error().find("identity other than its own"), std::string::npos) << l.error();
    }
}

// Step 4: what a statement may say about whom.
TEST(AccessList, Step4RefusesASecondShareARoleOrRemoveOfAnOutsiderAndRemovingOneself) {
    Account o, b, c;
    {
        List l;
        l.add("share", o, o, "admin", 1)
            .add("share", o, b, "read", 1)
            .add("share", o, b, "write", 1);
        EXPECT_NE(l.error().find("already in the list"), std::string::npos) << l.error();
    }
    {
        List l;
        l.add("share", o, o, "admin", 1).add("role", o, b, "write", 1);
        EXPECT_NE(l.error().find("role of"), std::string::npos) << l.error();
    }
    {
        List l;
        l.add("share", o, o, "admin", 1).add("remove", o, b, "read", 2);
        EXPECT_NE(l.error().find("remove of"), std::string::npos) << l.error();
    }
    {
        List l;  // a removed account cannot leave again
        l.add("share", o, o, "admin", 1)
            .add("share", o, b, "read", 1)
            .add("remove", o, b, "read", 2)
            .add("leave", b, b, "read", 3);
        EXPECT_NE(l.error().find("access statement 3: leave by"), std::string::npos) << l.error();
    }
    {
        List l;
        l.add("share", o, o, "admin", 1)
            .add("share", o, b, "admin", 1)
            .add("remove", o, o, "admin", 2);
        EXPECT_NE(l.error().find("cannot remove itself"), std::string::npos) << l.error();
    }
    {
        List l;  // a remove naming a role the account does not have
        l.add("share", o, o, "admin", 1)
            .add("share", o, b, "read", 1)
            .add("remove", o, b, "admin", 2);
        EXPECT_NE(l.error().find("not its role read"), std::string::npos) << l.error();
    }
}

// Step 5: generations never go down; rotations move to a new one.
TEST(AccessList, Step5RefusesGenerationsGoingDownAndRotationsWithoutANewGeneration) {
    Account o, b;
    {
        List l;
        l.add("share", o, o, "admin", 3).add("share", o, b, "read", 2);
        EXPECT_NE(l.error().find("key_gen 2 is below 3"), std::string::npos) << l.error();
    }
    {
        List l;
        l.add("share", o, o, "admin", 1)
            .add("share", o, b, "read", 1)
            .add("remove", o, b, "read", 1);
        EXPECT_NE(l.error().find("new generation above 1"), std::string::npos) << l.error();
    }
    {
        List l;
        l.add("share", o, o, "admin", 1)
            .add("share", o, b, "read", 1)
            .add("leave", b, b, "read", 1);
        EXPECT_NE(l.error().find("new generation above 1"), std::string::npos) << l.error();
    }
    {
        List l;
        l.add("share", o, o, "admin", 1)
            .add("share", o, b, "write", 1)
            .add("role", o, b, "read", 1);
        EXPECT_NE(l.error().find("lowering a role"), std::string::npos) << l.error();
    }
    {
        List l;  // raising needs no rotation
        l.add("share", o, o, "admin", 1)
            .add("share", o, b, "read", 1)
            .add("role", o, b, "write", 1);
        EXPECT_EQ(l.error(), "");
    }
}

// Step 6: an admin always remains.
TEST(AccessList, Step6RefusesLeavingThePouchWithoutAnAdmin) {
    Account o, b;
    {
        List l;
        l.add("share", o, o, "admin", 1)
            .add("share", o, b, "write", 1)
            .add("leave", o, o, "admin", 2);
        EXPECT_NE(l.error().find("without an admin"), std::string::npos) << l.error();
    }
    {
        List l;
        l.add("share", o, o, "admin", 1).add("role", o, o, "write", 2);
        EXPECT_NE(l.error().find("without an admin"), std::string::npos) << l.error();
    }
}

// The index and the member that breaks the rule, for 409 access_conflict's `field`.
TEST(AccessList, ErrorsNameTheIndexAndTheFieldThatBreaksTheRule) {
    Account o, b;
    auto field_of = [](const List& l) -> std::pair<long long, std::string> {
        try {
            verify_access_list(l.pouch_id, l.s);
        } catch (const AccessListError& e) {
            return {e.index, e.field};
        }
        return {-1, ""};
    };
    List seq;
    seq.add("share", o, o, "admin", 1);
    AccessBody x = seq.body("share", o, b, "read", 1);
    x.seq = 5;
    seq.add_body(x, o.identity.sign);
    EXPECT_EQ(field_of(seq), (std::pair<long long, std::string>{1, "seq"}));
    List gen;
    gen.add("share", o, o, "admin", 1).add("share", o, b, "read", 1).add("remove", o, b, "read", 1);
    EXPECT_EQ(field_of(gen), (std::pair<long long, std::string>{2, "key_gen"}));
    List sig;
    sig.add("share", o, o, "admin", 1);
    sig.add_body(sig.body("share", o, b, "read", 1), b.identity.sign);
    EXPECT_EQ(field_of(sig), (std::pair<long long, std::string>{1, "signature"}));
    List twice;
    twice.add("share", o, o, "admin", 1)
        .add("share", o, b, "read", 1)
        .add("share", o, b, "read", 1);
    EXPECT_EQ(field_of(twice), (std::pair<long long, std::string>{2, "account_id"}));
    List writer;
    writer.add("share", o, o, "admin", 1)
        .add("share", o, b, "write", 1)
        .add("role", b, o, "read", 2);
    EXPECT_EQ(field_of(writer), (std::pair<long long, std::string>{2, "by"}));
    List shape;
    shape.s.push_back({"not-json", "x"});
    EXPECT_EQ(field_of(shape), (std::pair<long long, std::string>{0, "statement"}));
    EXPECT_EQ(field_of(List()), (std::pair<long long, std::string>{0, "statement"}));
}

// ---- key grants --------------------------------------------------------------------------

TEST(KeyGrant, SealedGrantOpensWithTheAccountsIdentityKeyOnly) {
    Account o, b;
    List l;
    l.add("share", o, o, "admin", 1).add("share", o, b, "read", 1);
    AccessList r = verify_access_list(l.pouch_id, l.s);
    std::string key = crypto::random_bytes(32);
    KeyGrant g =
        seal_key_grant(l.pouch_id, b.id, 1, jwk(b.identity.enc), key, o.id, o.identity.sign);
    rapidjson::Document d = parse_object(g.json());
    KeyGrant back = KeyGrant::from_json(d);
    EXPECT_EQ(back.signed_bytes(), g.signed_bytes());
    EXPECT_EQ(grant_refusal(back, r, l.pouch_id, b.id), "");
    EXPECT_EQ(open_key_grant(back, b.identity.enc), key);
    EXPECT_THROW(open_key_grant(back, o.identity.enc), FormatError);
    KeyGrant moved = back;
    moved.key_gen = 2;  // the info binds the generation
    EXPECT_THROW(open_key_grant(moved, b.identity.enc), FormatError);
    EXPECT_THROW(
        seal_key_grant(l.pouch_id, b.id, 1, jwk(b.identity.enc), "short", o.id, o.identity.sign),
        FormatError);
}

TEST(KeyGrant, ReaderRefusesAnotherPouchAnotherAccountUnknownGrantersAndBadSignatures) {
    Account o, b, c, outsider;
    List l;
    l.add("share", o, o, "admin", 2)
        .add("share", o, b, "admin", 2)
        .add("share", b, c, "read", 2)
        .add("remove", o, b, "admin", 4);
    AccessList r = verify_access_list(l.pouch_id, l.s);
    std::string key = crypto::random_bytes(32);
    auto grant = [&](const Account& by, long long gen) {
        return seal_key_grant(l.pouch_id, c.id, gen, jwk(c.identity.enc), key, by.id,
                              by.identity.sign);
    };
    EXPECT_EQ(grant_refusal(grant(o, 1), r, l.pouch_id, c.id), "");  // before its share: held
    EXPECT_EQ(grant_refusal(grant(o, 5), r, l.pouch_id, c.id), "");
    EXPECT_EQ(grant_refusal(grant(o, 1), r, crypto::uuid_v4(), c.id), "wrong_pouch");
    EXPECT_EQ(grant_refusal(grant(o, 1), r, l.pouch_id, b.id), "wrong_account");
    EXPECT_EQ(grant_refusal(grant(outsider, 2), r, l.pouch_id, c.id), "unknown_granter");
    EXPECT_EQ(grant_refusal(grant(b, 3), r, l.pouch_id, c.id), "");  // removed at 4
    EXPECT_EQ(grant_refusal(grant(b, 4), r, l.pouch_id, c.id), "unknown_granter");
    KeyGrant forged = grant(o, 2);
    forged.signature = grant(b, 2).signature;
    EXPECT_EQ(grant_refusal(forged, r, l.pouch_id, c.id), "bad_signature");
    KeyGrant other_by =
        seal_key_grant(l.pouch_id, c.id, 2, jwk(c.identity.enc), key, o.id, outsider.identity.sign);
    EXPECT_EQ(grant_refusal(other_by, r, l.pouch_id, c.id), "bad_signature");
}

TEST(KeyGrant, InfoIsTheLabelTheIdsAndTheGeneration) {
    std::string p = "00000000-0000-4000-8000-000000000001";
    std::string a = "00000000-0000-4000-8000-000000000002";
    EXPECT_EQ(key_grant_info(p, a, 3), "pouch/key-grant/v1" + p + a + u64be(3));
    EXPECT_EQ(identity_envelope_info(a, p), "pouch/identity-envelope/v1" + a + p);
}
