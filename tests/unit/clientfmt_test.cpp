// clientfmt_test.cpp -- the client format of docs/CLIENT-FORMAT.md (common/clientfmt): roster
// chains that verify and every way one must not, key envelopes, artifact envelopes and their
// signatures, chunks, the welcome, name_index and conflict names. The shared vectors of
// docs/client-format-vectors.json are checked in clientfmt_vectors_test.cpp.
#include <gtest/gtest.h>

#include "common/clientfmt/artifact.h"
#include "common/clientfmt/chunk.h"
#include "common/clientfmt/key_envelope.h"
#include "common/clientfmt/roster.h"
#include "common/clientfmt/welcome.h"
#include "common/crypto/b64url.h"
#include "common/crypto/random.h"

using namespace pouch;
using namespace pouch::clientfmt;
using crypto::P256PrivateKey;

namespace {

PublicJwk jwk(const P256PrivateKey& k) {
    return {k.x(), k.y()};
}

struct TestMember {
    std::string id = crypto::uuid_v4();
    P256PrivateKey sign = P256PrivateKey::generate();
    P256PrivateKey enc = P256PrivateKey::generate();
};

StatementBody body(const std::string& kind, long long seq, const std::string& prev,
                   const TestMember& by, const TestMember& who) {
    StatementBody b;
    b.seq = seq;
    b.prev = prev;
    b.kind = kind;
    b.by = by.id;
    b.member_id = who.id;
    b.sign_pub = jwk(who.sign);
    b.enc_pub = jwk(who.enc);
    b.label = kind == "genesis" ? "web" : "laptop";
    b.at = "2026-11-23T10:00:00Z";
    return b;
}

// genesis by web, add of cli by web, remove of cli by cli.
struct Chain {
    TestMember web, cli;
    std::vector<SignedStatement> s;
    Chain() {
        s.push_back(sign_statement(body("genesis", 0, "", web, web), web.sign));
        s.push_back(
            sign_statement(body("add", 1, statement_hash(s[0].statement), web, cli), web.sign));
    }
    void remove_cli() {
        auto b = body("remove", 2, statement_hash(s[1].statement), cli, cli);
        b.device_id = crypto::uuid_v4();
        s.push_back(sign_statement(b, cli.sign));
    }
};

std::string error_of(const std::vector<SignedStatement>& s) {
    try {
        verify_roster(s);
    } catch (const FormatError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(Roster, GenesisAddRemoveChainVerifiesIntoTheActiveSet) {
    Chain c;
    c.remove_cli();
    Roster r = verify_roster(c.s);
    EXPECT_EQ(r.head_seq, 2);
    EXPECT_EQ(r.genesis_hash, statement_hash(c.s[0].statement));
    ASSERT_TRUE(r.find(c.cli.id));
    EXPECT_FALSE(r.find(c.cli.id)->active());
    EXPECT_TRUE(r.find_active(c.web.id));
    ASSERT_EQ(r.active_members().size(), 1u);
    EXPECT_EQ(r.active_members()[0]->id, c.web.id);
    EXPECT_EQ(r.find(c.cli.id)->sign_pub, jwk(c.cli.sign));
}

TEST(Roster, RefusesAStatementWhosePrevDoesNotHashTheOneBefore) {
    Chain c;
    c.s[1] = sign_statement(body("add", 1, statement_hash("x"), c.web, c.cli), c.web.sign);
    EXPECT_NE(error_of(c.s).find("statement 1: prev"), std::string::npos) << error_of(c.s);
}

TEST(Roster, RefusesAnAddSignedByAKeyThatIsNotTheSigner) {
    Chain c;
    c.s[1] =
        sign_statement(body("add", 1, statement_hash(c.s[0].statement), c.web, c.cli), c.cli.sign);
    EXPECT_NE(error_of(c.s).find("signature does not verify"), std::string::npos);
}

TEST(Roster, RefusesAnAddBySomeoneWhoIsNotAMember) {
    Chain c;
    TestMember stranger;
    c.s[1] = sign_statement(body("add", 1, statement_hash(c.s[0].statement), stranger, c.cli),
                            stranger.sign);
    EXPECT_NE(error_of(c.s).find("not an active member"), std::string::npos);
}

TEST(Roster, RefusesARemovedMemberSigningLater) {
    Chain c;
    c.remove_cli();
    TestMember other;
    c.s.push_back(
        sign_statement(body("add", 3, statement_hash(c.s[2].statement), c.cli, other), c.cli.sign));
    EXPECT_NE(error_of(c.s).find("statement 3: signed by"), std::string::npos);
}

TEST(Roster, RefusesASecondGenesisAndAGenesisSignedByAnother) {
    Chain c;
    c.s[1] = sign_statement(body("genesis", 1, statement_hash(c.s[0].statement), c.cli, c.cli),
                            c.cli.sign);
    EXPECT_NE(error_of(c.s).find("only statement 0"), std::string::npos);
    Chain d;
    d.s[0] = sign_statement(body("genesis", 0, "", d.cli, d.web), d.cli.sign);
    EXPECT_NE(error_of(d.s).find("own member"), std::string::npos);
}

TEST(Roster, RefusesARemoveThatNamesOtherKeys) {
    Chain c;
    auto b = body("remove", 2, statement_hash(c.s[1].statement), c.web, c.cli);
    b.sign_pub = jwk(P256PrivateKey::generate());
    c.s.push_back(sign_statement(b, c.web.sign));
    EXPECT_NE(error_of(c.s).find("keys other than its own"), std::string::npos);
}

TEST(Roster, RefusesAddingTheSameMemberTwice) {
    Chain c;
    c.s.push_back(
        sign_statement(body("add", 2, statement_hash(c.s[1].statement), c.web, c.cli), c.web.sign));
    EXPECT_NE(error_of(c.s).find("already seen"), std::string::npos);
}

TEST(Roster, RefusesAStatementThatIsNotCanonicalJcs) {
    Chain c;
    std::string text = *crypto::b64url_decode(c.s[0].statement);
    std::string spaced = "{ " + text.substr(1);
    c.s[0].statement = crypto::b64url_encode(spaced);
    c.s[0].signature = crypto::b64url_encode(c.web.sign.sign_es256(spaced));
    EXPECT_NE(error_of(c.s).find("canonical"), std::string::npos);
}

TEST(Roster, PinnedHeadMustStillBeThere) {
    Chain c;
    Roster r = verify_roster(c.s);
    EXPECT_NO_THROW(check_pin(r, 1, statement_hash(c.s[1].statement)));
    EXPECT_THROW(check_pin(r, 1, statement_hash("other")), FormatError);
    EXPECT_THROW(check_pin(r, 2, "x"), FormatError);
}

TEST(KeyEnvelope, SealedEnvelopeOpensForItsMemberOnly) {
    TestMember creator, member;
    std::string pouch = crypto::uuid_v4(), key = crypto::random_bytes(32);
    KeyEnvelope e =
        seal_key_envelope(pouch, member.id, 3, jwk(member.enc), key, creator.id, creator.sign);
    EXPECT_EQ(e.hpke_enc.size(), 87u);
    EXPECT_EQ(e.ciphertext.size(), 64u);
    EXPECT_EQ(e.signature.size(), 86u);
    EXPECT_EQ(open_key_envelope(e, jwk(creator.sign), member.enc), key);
    EXPECT_THROW(open_key_envelope(e, jwk(member.sign), member.enc), FormatError);
    EXPECT_THROW(open_key_envelope(e, jwk(creator.sign), creator.enc), FormatError);
    KeyEnvelope moved = e;
    moved.key_gen = 4;  // the signature covers key_gen, and so does the HPKE info
    EXPECT_THROW(open_key_envelope(moved, jwk(creator.sign), member.enc), FormatError);
}

TEST(ArtifactEnvelope, OpensOnlyUnderItsOwnIdsAndKey) {
    std::string key = crypto::random_bytes(32);
    RevisionIds ids{crypto::uuid_v4(), crypto::uuid_v4(), crypto::uuid_v4(), 1};
    Content c;
    c.name = "notes/a.txt";
    c.size = 5;
    c.mtime = 1763892000000;
    c.mode = 420;
    c.data = crypto::b64url_encode("hello");
    std::string env = seal_envelope(key, ids, c);
    Content back = open_envelope(key, ids, env);
    EXPECT_EQ(back.jcs(), c.jcs());
    RevisionIds other = ids;
    other.revision_id = crypto::uuid_v4();
    EXPECT_THROW(open_envelope(key, other, env), FormatError);
    other = ids;
    other.key_gen = 2;
    EXPECT_THROW(open_envelope(key, other, env), FormatError);
    EXPECT_THROW(open_envelope(crypto::random_bytes(32), ids, env), FormatError);
}

TEST(ArtifactEnvelope, ContentJcsHasSortedMembersAndTombstonesCarryDeleted) {
    Content t = tombstone("a.txt", "file", 5);
    EXPECT_EQ(t.jcs(), R"({"deleted":true,"kind":"file","mtime":5,"name":"a.txt","size":0})");
    EXPECT_TRUE(Content::parse(t.jcs()).deleted);
}

TEST(ArtifactEnvelope, ParseRefusesDataThatContradictsSize) {
    EXPECT_THROW(Content::parse(R"({"name":"a","kind":"file","size":3,"mtime":0,"data":"aGk"})"),
                 FormatError);  // "hi" is 2 bytes
    EXPECT_THROW(Content::parse(R"({"name":"a","kind":"file","size":2,"mtime":0})"), FormatError);
}

TEST(RevisionSignature, VerifiesOnlyForTheSameIdsAndEnvelope) {
    P256PrivateKey k = P256PrivateKey::generate();
    RevisionIds ids{crypto::uuid_v4(), crypto::uuid_v4(), crypto::uuid_v4(), 1};
    std::string sig = sign_revision(k, ids, "ENVELOPE");
    EXPECT_TRUE(verify_revision(jwk(k), ids, "ENVELOPE", sig));
    EXPECT_FALSE(verify_revision(jwk(k), ids, "ENVELOPf", sig));
    RevisionIds other = ids;
    other.artifact_id = crypto::uuid_v4();
    EXPECT_FALSE(verify_revision(jwk(k), other, "ENVELOPE", sig));
}

TEST(Chunk, SealedChunkOpensAndItsBlobIdIsTheHashOfTheStoredBytes) {
    std::string pt = crypto::random_bytes(100000);
    SealedChunk s = seal_chunk(pt);
    EXPECT_EQ(s.stored.size(), pt.size() + kChunkOverhead);
    EXPECT_EQ(s.entry.blob_id.size(), 43u);
    EXPECT_EQ(open_chunk(s.entry, s.stored), pt);
    std::string bad = s.stored;
    bad[20] ^= 1;
    EXPECT_THROW(open_chunk(s.entry, bad), FormatError);
    ChunkRef wrong = s.entry;
    wrong.key = crypto::b64url_encode(crypto::random_bytes(32));
    EXPECT_THROW(open_chunk(wrong, s.stored), FormatError);
}

TEST(Welcome, SealedWelcomeOpensWithTheCliKeyForThatRequestOnly) {
    P256PrivateKey cli = P256PrivateKey::generate(), approver = P256PrivateKey::generate();
    Welcome w{crypto::uuid_v4(), "g", 4, "h", crypto::uuid_v4(), jwk(approver), jwk(approver)};
    std::string req = crypto::uuid_v4();
    std::string sealed = seal_welcome(w, jwk(cli), req);
    Welcome back = open_welcome(sealed, cli, req);
    EXPECT_EQ(back.jcs(), w.jcs());
    EXPECT_THROW(open_welcome(sealed, cli, crypto::uuid_v4()), FormatError);
    EXPECT_THROW(open_welcome(sealed, approver, req), FormatError);
}

TEST(NameIndex, IsDeterministicPerKeyAndName) {
    std::string k = crypto::random_bytes(32);
    EXPECT_EQ(name_index(k, "a.txt"), name_index(k, "a.txt"));
    EXPECT_EQ(name_index(k, "a.txt").size(), 43u);
    EXPECT_NE(name_index(k, "a.txt"), name_index(k, "b.txt"));
    EXPECT_NE(name_index(k, "a.txt"), name_index(crypto::random_bytes(32), "a.txt"));
}

TEST(Names, ValidNamesAreRelativeWithoutDotOrEmptySegments) {
    EXPECT_TRUE(valid_name("a.txt"));
    EXPECT_TRUE(valid_name("dir/sub/.hidden"));
    EXPECT_FALSE(valid_name(""));
    EXPECT_FALSE(valid_name("/abs"));
    EXPECT_FALSE(valid_name("a//b"));
    EXPECT_FALSE(valid_name("a/./b"));
    EXPECT_FALSE(valid_name("../a"));
    EXPECT_FALSE(valid_name("a/"));
}

TEST(Names, ConflictNameKeepsTheExtensionOfTheLastSegment) {
    EXPECT_EQ(conflict_name("notes/plan.txt", "laptop", "2026-11-23"),
              "notes/plan (conflict laptop 2026-11-23).txt");
    EXPECT_EQ(conflict_name("archive.tar.gz", "b", "d"), "archive.tar (conflict b d).gz");
    EXPECT_EQ(conflict_name(".bashrc", "b", "d"), ".bashrc (conflict b d)");
    EXPECT_EQ(conflict_name("v1.2/README", "b", "d"), "v1.2/README (conflict b d)");
}
