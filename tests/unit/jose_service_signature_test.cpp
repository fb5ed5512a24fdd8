// jose_service_signature_test.cpp -- the commit's Service-Signature (decisions §1):
// detached ES256 JWS over b64url(BLAKE3-256(JCS body)); header members, signature form,
// key and hash all checked.
#include <gtest/gtest.h>

#include "common/crypto/b64url.h"
#include "common/crypto/hash.h"
#include "common/jose/service_signature.h"
#include "tests/unit/crypto_test_util.h"

using namespace pouch::crypto;
using namespace pouch::jose;
using pouch::testutil::make_detached_jws;
using pouch::testutil::TestP256Key;

namespace {

struct Fixture {
    TestP256Key key;
    std::string hash = blake3_256(R"({"epoch":1,"ops":[]})");

    std::string sign(std::string_view header_json) const {
        return make_detached_jws(key, header_json, b64url_encode(hash));
    }

    // What a signature covers, built here by hand rather than by make_detached_jws: the
    // b64url header {"alg":"ES256"}, a dot, and the b64url hash.
    static std::string header() { return b64url_encode(R"({"alg":"ES256"})"); }
    std::string signing_input() const { return header() + "." + b64url_encode(hash); }
    // The detached form of that header with signature bytes `sig`: "header..sig".
    static std::string detached(const std::string& sig) {
        return header() + ".." + b64url_encode(sig);
    }
};

}  // namespace

TEST(JoseServiceSignature, AcceptsAlgOnlyAndAlgWithKidAndTyp) {
    Fixture f;
    auto pub = f.key.public_key();
    EXPECT_TRUE(verify_service_signature(f.sign(R"({"alg":"ES256"})"), f.hash, pub));
    std::string h = R"({"alg":"ES256","kid":")" + f.key.jkt() + R"(","typ":"pouch-commit"})";
    EXPECT_TRUE(verify_service_signature(f.sign(h), f.hash, pub));
}

TEST(JoseServiceSignature, SigningInputIsHeaderDotB64urlOfHash) {
    Fixture f;
    std::string sig = f.key.sign_raw(f.signing_input());
    EXPECT_TRUE(verify_service_signature(Fixture::detached(sig), f.hash, f.key.public_key()));
}

TEST(JoseServiceSignature, RejectsTamperedHash) {
    Fixture f;
    std::string other = f.hash;
    other[0] ^= 1;
    EXPECT_FALSE(verify_service_signature(f.sign(R"({"alg":"ES256"})"), other, f.key.public_key()));
    EXPECT_FALSE(verify_service_signature(f.sign(R"({"alg":"ES256"})"), f.hash.substr(0, 31),
                                          f.key.public_key()));
}

TEST(JoseServiceSignature, RejectsWrongKey) {
    Fixture f;
    TestP256Key other;
    EXPECT_FALSE(
        verify_service_signature(f.sign(R"({"alg":"ES256"})"), f.hash, other.public_key()));
}

TEST(JoseServiceSignature, RejectsDerSignature) {
    Fixture f;
    std::string der = f.key.sign_der(f.signing_input());
    EXPECT_FALSE(verify_service_signature(Fixture::detached(der), f.hash, f.key.public_key()));
}

TEST(JoseServiceSignature, RejectsCritB64AndUnknownHeaderMembers) {
    Fixture f;
    auto pub = f.key.public_key();
    EXPECT_FALSE(verify_service_signature(f.sign(R"({"alg":"ES256","crit":["b64"],"b64":false})"),
                                          f.hash, pub));
    EXPECT_FALSE(verify_service_signature(f.sign(R"({"alg":"ES256","b64":true})"), f.hash, pub));
    EXPECT_FALSE(verify_service_signature(f.sign(R"({"alg":"ES256","crit":[]})"), f.hash, pub));
    EXPECT_FALSE(verify_service_signature(f.sign(R"({"alg":"ES256","jwk":{}})"), f.hash, pub));
}

TEST(JoseServiceSignature, RejectsMissingOrWrongAlg) {
    Fixture f;
    auto pub = f.key.public_key();
    EXPECT_FALSE(verify_service_signature(f.sign(R"({})"), f.hash, pub));
    EXPECT_FALSE(verify_service_signature(f.sign(R"({"alg":"none"})"), f.hash, pub));
    EXPECT_FALSE(verify_service_signature(f.sign(R"({"alg":"es256"})"), f.hash, pub));
    EXPECT_FALSE(verify_service_signature(f.sign(R"({"alg":"ES256","alg":"ES256"})"), f.hash, pub));
}

TEST(JoseServiceSignature, RejectsKidOfAnotherKeyAndNonStringTyp) {
    Fixture f;
    auto pub = f.key.public_key();
    EXPECT_FALSE(
        verify_service_signature(f.sign(R"({"alg":"ES256","kid":"someone-else"})"), f.hash, pub));
    EXPECT_FALSE(verify_service_signature(f.sign(R"({"alg":"ES256","typ":1})"), f.hash, pub));
}

TEST(JoseServiceSignature, RejectsAttachedPayloadAndGarbage) {
    Fixture f;
    auto pub = f.key.public_key();
    std::string attached =
        f.signing_input() + "." + b64url_encode(f.key.sign_raw(f.signing_input()));
    EXPECT_FALSE(verify_service_signature(attached, f.hash, pub));
    EXPECT_FALSE(verify_service_signature("", f.hash, pub));
    EXPECT_FALSE(verify_service_signature("..", f.hash, pub));
    EXPECT_FALSE(verify_service_signature(" " + f.sign(R"({"alg":"ES256"})"), f.hash, pub));
}
