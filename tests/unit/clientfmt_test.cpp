// clientfmt_test.cpp -- the client format of docs/CLIENT-FORMAT.md (common/clientfmt): roster
// chains that verify and every way one must not, key envelopes, artifact envelopes and their
// signatures, chunks, the welcome, name_index and conflict names. The shared vectors of
// docs/client-format-vectors.json are checked in clientfmt_vectors_test.cpp.
#include <gtest/gtest.h>

#include "common/clientfmt/artifact.h"
#include "common/clientfmt/chunk.h"
#include "common/clientfmt/key_envelope.h"
#include "common/clientfmt/roster.h"
#include "common/clientfmt/rotation.h"
#include "common/clientfmt/welcome.h"
#include "common/crypto/b64url.h"
#include "common/crypto/hash.h"
#include "common/crypto/random.h"
#include "common/json/out.h"

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
    if (kind == "remove") b.rotated_to = 3;
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

// A statement body as JSON text, signed by `by`: for bodies StatementBody cannot write.
SignedStatement raw_statement(const std::string& json_text, const TestMember& by) {
    std::string c = jcs_of(json_text);
    return {crypto::b64url_encode(c), crypto::b64url_encode(by.sign.sign_es256(c))};
}

TEST(Roster, ARemoveCarriesRotatedToAndTheRemovedMemberIsTrustedBelowItOnly) {
    Chain c;
    c.remove_cli();
    EXPECT_NE(crypto::b64url_decode(c.s[2].statement)->find("\"rotated_to\":3"), std::string::npos);
    Roster r = verify_roster(c.s);
    const Member* cli = r.find(c.cli.id);
    ASSERT_TRUE(cli);
    EXPECT_EQ(cli->rotated_to, 3);
    EXPECT_TRUE(cli->trusted_at(1));
    EXPECT_TRUE(cli->trusted_at(2));
    EXPECT_FALSE(cli->trusted_at(3));
    EXPECT_FALSE(cli->trusted_at(4));
    const Member* web = r.find(c.web.id);
    EXPECT_FALSE(web->rotated_to);
    EXPECT_TRUE(web->trusted_at(1000));
    EXPECT_EQ(decode_statement(c.s[2].statement).rotated_to, 3);
    EXPECT_FALSE(decode_statement(c.s[1].statement).rotated_to);
}

TEST(Roster, RefusesARemoveWithoutRotatedToAndAGenesisOrAddWithIt) {
    Chain c;
    auto b = body("remove", 2, statement_hash(c.s[1].statement), c.web, c.cli);
    b.rotated_to.reset();
    c.s.push_back(sign_statement(b, c.web.sign));
    EXPECT_NE(error_of(c.s).find("statement 2: statement must have exactly"), std::string::npos)
        << error_of(c.s);

    Chain d;
    auto a = body("add", 1, statement_hash(d.s[0].statement), d.web, d.cli);
    a.rotated_to = 2;
    d.s[1] = sign_statement(a, d.web.sign);
    EXPECT_NE(error_of(d.s).find("statement 1: statement must have exactly"), std::string::npos)
        << error_of(d.s);

    Chain e;
    auto g = body("genesis", 0, "", e.web, e.web);
    g.rotated_to = 2;
    e.s[0] = sign_statement(g, e.web.sign);
    EXPECT_NE(error_of(e.s).find("statement 0: statement must have exactly"), std::string::npos);
}

TEST(Roster, RefusesRotatedToBelowTwoOrNotAnInteger) {
    for (long long bad : {1LL, 0LL, -5LL}) {
        Chain c;
        auto b = body("remove", 2, statement_hash(c.s[1].statement), c.web, c.cli);
        b.rotated_to = bad;
        c.s.push_back(sign_statement(b, c.web.sign));
        EXPECT_NE(error_of(c.s).find("rotated_to must be 2 or more"), std::string::npos) << bad;
    }
    Chain c;
    auto b = body("remove", 2, statement_hash(c.s[1].statement), c.web, c.cli);
    b.rotated_to = 2;
    std::string text = b.jcs();
    text.replace(text.find("\"rotated_to\":2"), 14, "\"rotated_to\":\"2\"");
    c.s.push_back(raw_statement(text, c.web));
    EXPECT_NE(error_of(c.s).find("'rotated_to' must be an integer"), std::string::npos)
        << error_of(c.s);
    // The edge: 2 is the least a removal can move a pouch to (from generation 1).
    Chain ok;
    auto at2 = body("remove", 2, statement_hash(ok.s[1].statement), ok.web, ok.cli);
    at2.rotated_to = 2;
    ok.s.push_back(sign_statement(at2, ok.web.sign));
    EXPECT_EQ(error_of(ok.s), "");
}

TEST(Rotation, RotatedToIsTheHighestCurrentGenerationPlusOneAndAtLeastTwo) {
    EXPECT_EQ(rotated_to_of({}), 2);
    EXPECT_EQ(rotated_to_of({1}), 2);
    EXPECT_EQ(rotated_to_of({3, 7, 2}), 8);
    Chain c;
    Roster r = verify_roster(c.s);
    SignedStatement st =
        removal_statement(r, *r.find(c.cli.id), c.web.id, crypto::uuid_v4(), 8, c.web.sign);
    StatementBody b = decode_statement(st.statement);
    EXPECT_EQ(b.kind, "remove");
    EXPECT_EQ(b.rotated_to, 8);
    c.s.push_back(st);
    EXPECT_EQ(verify_roster(c.s).find(c.cli.id)->rotated_to, 8);
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

TEST(KeyEnvelope, AReaderRefusesAnotherPouchAnotherMemberAndCreatorsNotTrustedAtItsGeneration) {
    Chain c;  // cli removed with rotated_to 3
    c.remove_cli();
    Roster r = verify_roster(c.s);
    std::string pouch = crypto::uuid_v4(), key = crypto::random_bytes(32);
    auto by_cli = [&](long long gen) {
        return seal_key_envelope(pouch, c.web.id, gen, jwk(c.web.enc), key, c.cli.id, c.cli.sign);
    };
    EXPECT_EQ(envelope_refusal(by_cli(2), r, pouch, c.web.id), "");  // below rotated_to
    EXPECT_EQ(envelope_refusal(by_cli(3), r, pouch, c.web.id), "creator_removed");
    EXPECT_EQ(envelope_refusal(by_cli(4), r, pouch, c.web.id), "creator_removed");
    EXPECT_EQ(envelope_refusal(by_cli(2), r, crypto::uuid_v4(), c.web.id), "wrong_pouch");
    EXPECT_EQ(envelope_refusal(by_cli(2), r, "not-a-uuid", c.web.id), "wrong_pouch");
    EXPECT_EQ(envelope_refusal(by_cli(2), r, pouch, c.cli.id), "wrong_member");
    TestMember stranger;
    KeyEnvelope e =
        seal_key_envelope(pouch, c.web.id, 2, jwk(c.web.enc), key, stranger.id, stranger.sign);
    EXPECT_EQ(envelope_refusal(e, r, pouch, c.web.id), "unknown_creator");
    // An active member is trusted at any generation.
    KeyEnvelope w =
        seal_key_envelope(pouch, c.web.id, 99, jwk(c.web.enc), key, c.web.id, c.web.sign);
    EXPECT_EQ(envelope_refusal(w, r, pouch, c.web.id), "");
    // An upper-case pouch id asked for is the same pouch.
    std::string upper = pouch;
    for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    EXPECT_EQ(envelope_refusal(w, r, upper, c.web.id), "");
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

TEST(ArtifactEnvelope, ParseRefusesChunkFieldsThatAreNot32BytesAndDataOverTheLimit) {
    std::string id = crypto::b64url_encode(crypto::random_bytes(32));
    auto chunked = [&](const std::string& blob_id, const std::string& key) {
        return R"({"name":"a","kind":"file","size":70000,"mtime":0,"chunks":[{"blob_id":")" +
               blob_id + R"(","size":70000,"key":")" + key + R"(","hash":")" + id + R"("}]})";
    };
    EXPECT_NO_THROW(Content::parse(chunked(id, id)));
    for (const std::string& bad :
         {std::string("../../v1/account"), id.substr(1), id + "A", id.substr(0, 40) + "/.."}) {
        try {
            Content::parse(chunked(bad, id));
            ADD_FAILURE() << "accepted blob_id " << bad;
        } catch (const FormatError& e) {
            EXPECT_NE(std::string(e.what()).find("43 b64url characters"), std::string::npos);
        }
    }
    EXPECT_THROW(Content::parse(chunked(id, "AAAA")), FormatError);
    // The last character of 32 bytes carries 4 bits: one with more set is not 32 bytes.
    std::string loose = id.substr(0, 42) + "B";
    EXPECT_THROW(Content::parse(chunked(loose, id)), FormatError);
    // Inline data: at the limit passes, one byte over fails.
    std::string at = crypto::b64url_encode(std::string(65536, 'x'));
    std::string over = crypto::b64url_encode(std::string(65537, 'x'));
    EXPECT_NO_THROW(Content::parse(R"({"name":"a","kind":"file","size":65536,"mtime":0,"data":")" +
                                   at + R"("})"));
    EXPECT_THROW(Content::parse(R"({"name":"a","kind":"file","size":65537,"mtime":0,"data":")" +
                                over + R"("})"),
                 FormatError);
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

// seal_chunk_hashed takes the caller's hash of the plaintext as entry.hash: given the right one,
// its chunk is seal_chunk's; given a wrong one, open_chunk refuses the chunk.
TEST(Chunk, AChunkSealedWithItsHashGivenOpensAndAWrongHashIsRefused) {
    std::string pt = crypto::random_bytes(70000);
    std::string hash = crypto::b64url_encode(crypto::blake3_256(pt));
    SealedChunk s = seal_chunk_hashed(pt, hash);
    EXPECT_EQ(s.entry.hash, hash);
    EXPECT_EQ(s.entry.hash, seal_chunk(pt).entry.hash);
    EXPECT_EQ(s.entry.size, 70000);
    EXPECT_EQ(s.entry.blob_id, crypto::b64url_encode(crypto::blake3_256(s.stored)));
    EXPECT_EQ(open_chunk(s.entry, s.stored), pt);
    SealedChunk w = seal_chunk_hashed(pt, crypto::b64url_encode(crypto::blake3_256("other")));
    EXPECT_THROW(open_chunk(w.entry, w.stored), FormatError);
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

// Content::jcs writes the common case in JCS form directly: it must be exactly what the
// canonicalizer makes of the same content (names with quotes, backslashes, non-ASCII and
// DEL; chunks; a tombstone), and a content it cannot write directly takes the canonicalizer.
TEST(ContentJcs, TheDirectFormIsTheCanonicalOne) {
    std::vector<Content> cases;
    Content a;
    a.name = "dir/\"quoted\" back\\slash \xc3\xa9t\xc3\xa9 \x7f \xf0\x9f\x98\x80.txt";
    a.kind = "file";
    a.size = 3;
    a.mtime = 1700000000123;
    a.mode = 0644;
    a.data = "YWJj";
    cases.push_back(a);
    Content b = a;
    b.data.reset();
    b.mode.reset();
    b.size = 5000000;
    b.chunks =
        std::vector<ChunkRef>{{"Zm9v", 4000000, "a2V5", "aGFzaA"}, {"YmFy", 1000000, "k", "h"}};
    cases.push_back(b);
    Content t = a;
    t.data.reset();
    t.deleted = true;
    cases.push_back(t);
    for (const auto& c : cases) {
        json::Out o;  // the members in the order Content::jcs used to write them
        o.kv("name", c.name).kv("kind", c.kind).kv("size", c.size).kv("mtime", c.mtime);
        if (c.mode) o.kv("mode", *c.mode);
        if (c.data) o.kv("data", *c.data);
        if (c.chunks) {
            o.key("chunks").arr();
            for (const auto& r : *c.chunks)
                o.obj()
                    .kv("blob_id", r.blob_id)
                    .kv("size", r.size)
                    .kv("key", r.key)
                    .kv("hash", r.hash)
                    .end_obj();
            o.end_arr();
        }
        if (c.deleted) o.kv("deleted", true);
        EXPECT_EQ(c.jcs(), jcs_of(o.done())) << c.name;
    }
    Content ctl = a;
    ctl.name = "tab\there";  // a control character: written by the canonicalizer
    EXPECT_NE(ctl.jcs().find("tab\\there"), std::string::npos);
}
