// jose_dpop_test.cpp -- DPoP proof verification (RFC 9449, decisions §1): the RFC's own
// example proof, proofs built here, and one test per failure class, each asserting the
// invalid_dpop_proof error (Fault::unauthenticated) and which check failed.
#include <gtest/gtest.h>

#include "common/crypto/b64url.h"
#include "common/crypto/hash.h"
#include "common/http/error.h"
#include "common/jose/dpop.h"
#include "tests/unit/crypto_test_util.h"

using namespace pouch::crypto;
using namespace pouch::jose;
using pouch::Error;
using pouch::testutil::dpop_claims_json;
using pouch::testutil::DpopClaims;
using pouch::testutil::make_dpop;
using pouch::testutil::make_jws;
using pouch::testutil::TestP256Key;

namespace {

constexpr long long kNow = 1700000000;
constexpr const char* kToken = "svc_at_Kz8mXK1EalYznwHLC1fBAo4LjpzsPENeOgxU00000";

DpopInput input_for(const std::string& proof) {
    return DpopInput{proof,        "POST", "https://sync.example.com", "/v1/cli-auth/token",
                     std::nullopt, kNow};
}

// Runs verify_dpop and returns the error it throws; fails the test if it does not throw.
pouch::Error rejection(const DpopInput& in) {
    try {
        verify_dpop(in);
    } catch (const pouch::Error& e) {
        return e;
    }
    ADD_FAILURE() << "proof was accepted";
    return pouch::Error(pouch::Code::internal);
}

// crypto knows no HTTP: the challenge header is added by common/auth/dpop_check.cpp (its test
// in auth_caller_test.cpp, and through nginx in smoke 20).
void expect_rejected(const DpopInput& in, std::string_view reason) {
    pouch::Error e = rejection(in);
    EXPECT_EQ(e.fault, pouch::Fault::unauthenticated);
    EXPECT_EQ(e.code, "invalid_dpop_proof");
    EXPECT_TRUE(e.headers.empty());
    EXPECT_NE(e.message.find(reason), std::string::npos) << e.message;
}

std::string default_header(const TestP256Key& k) {
    return R"({"typ":"dpop+jwt","alg":"ES256","jwk":)" + k.jwk_json() + "}";
}

}  // namespace

TEST(JoseDpop, AcceptsRfc9449ExampleProof) {
    // RFC 9449 §5 (Figure 4): POST https://server.example.com/token, iat 1562262616.
    const std::string proof =
        "eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2IiwiandrIjp7Imt0eSI6IkVDIiwieCI6Imw4dEZyaH"
        "gtMzR0VjNoUklDUkRZOXpDa0RscEJoRjQyVVFVZldWQVdCRnMiLCJ5IjoiOVZFNGpmX09rX282NHpiVFRs"
        "Y3VOSmFqSG10NnY5VERWclUwQ2R2R1JEQSIsImNydiI6IlAtMjU2In19.eyJqdGkiOiItQndDM0VTYzZhY2"
        "MybFRjIiwiaHRtIjoiUE9TVCIsImh0dSI6Imh0dHBzOi8vc2VydmVyLmV4YW1wbGUuY29tL3Rva2VuIiwia"
        "WF0IjoxNTYyMjYyNjE2fQ.2-GxA6T8lP4vfrg8v-FdWP0A0zdrj8igiMLvqRMUvwnQg4PtFLbdLXiOSsX0x7"
        "NVY-FNyJK70nfbV37xRZT3Lg";
    DpopProof p = verify_dpop(
        DpopInput{proof, "POST", "https://server.example.com", "/token", std::nullopt, 1562262616});
    EXPECT_EQ(p.jkt, "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I");
    EXPECT_EQ(p.jti, "-BwC3ESc6acc2lTc");
    EXPECT_EQ(p.iat, 1562262616);
    EXPECT_EQ(p.key.x(), "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs");
}

TEST(JoseDpop, AcceptsBuiltProofAndReturnsJktJtiIat) {
    TestP256Key k;
    DpopClaims c;
    c.iat = kNow - 5;
    std::string proof = make_dpop(k, c);
    DpopProof p = verify_dpop(input_for(proof));
    EXPECT_EQ(p.jkt, k.jkt());
    EXPECT_EQ(p.jti, "e1j3V_bKic8-LAEB");
    EXPECT_EQ(p.iat, kNow - 5);
    EXPECT_EQ(p.key.thumbprint(), k.jkt());
}

TEST(JoseDpop, AcceptsIatAtBothEdgesOfWindow) {
    TestP256Key k;
    DpopClaims c;
    c.iat = kNow - 120;
    EXPECT_NO_THROW(verify_dpop(input_for(make_dpop(k, c))));
    c.iat = kNow + 60;
    EXPECT_NO_THROW(verify_dpop(input_for(make_dpop(k, c))));
}

TEST(JoseDpop, RejectsStaleIat) {
    TestP256Key k;
    DpopClaims c;
    c.iat = kNow - 121;
    expect_rejected(input_for(make_dpop(k, c)), "iat is too old");
}

TEST(JoseDpop, RejectsFutureIat) {
    TestP256Key k;
    DpopClaims c;
    c.iat = kNow + 61;
    expect_rejected(input_for(make_dpop(k, c)), "iat is in the future");
}

TEST(JoseDpop, RejectsNonIntegerIat) {
    TestP256Key k;
    std::string payload =
        R"({"jti":"a","htm":"POST","htu":"https://sync.example.com/v1/cli-auth/token","iat":1700000000.5})";
    expect_rejected(input_for(make_jws(k, default_header(k), payload)), "iat is not an integer");
    payload =
        R"({"jti":"a","htm":"POST","htu":"https://sync.example.com/v1/cli-auth/token","iat":"1700000000"})";
    expect_rejected(input_for(make_jws(k, default_header(k), payload)), "iat is not an integer");
}

TEST(JoseDpop, RejectsWrongTyp) {
    TestP256Key k;
    expect_rejected(
        input_for(make_dpop(k, {}, R"({"typ":"JWT","alg":"ES256","jwk":)" + k.jwk_json() + "}")),
        "typ");
    expect_rejected(input_for(make_dpop(k, {}, R"({"alg":"ES256","jwk":)" + k.jwk_json() + "}")),
                    "typ is missing");
    expect_rejected(input_for(make_dpop(
                        k, {}, R"({"typ":"DPOP+JWT","alg":"ES256","jwk":)" + k.jwk_json() + "}")),
                    "typ is not dpop+jwt");
}

TEST(JoseDpop, RejectsWrongAlg) {
    TestP256Key k;
    expect_rejected(input_for(make_dpop(
                        k, {}, R"({"typ":"dpop+jwt","alg":"none","jwk":)" + k.jwk_json() + "}")),
                    "alg is not ES256");
    expect_rejected(input_for(make_dpop(
                        k, {}, R"({"typ":"dpop+jwt","alg":"RS256","jwk":)" + k.jwk_json() + "}")),
                    "alg is not ES256");
}

TEST(JoseDpop, RejectsWrongHtm) {
    TestP256Key k;
    DpopClaims c;
    c.iat = kNow;
    c.htm = "GET";
    expect_rejected(input_for(make_dpop(k, c)), "htm");
    c.htm = "post";
    expect_rejected(input_for(make_dpop(k, c)), "htm");
}

TEST(JoseDpop, RejectsWrongHtu) {
    TestP256Key k;
    DpopClaims c;
    c.iat = kNow;
    for (const char* htu :
         {"https://sync.example.com/v1/cli-auth/start", "http://sync.example.com/v1/cli-auth/token",
          "https://evil.example.com/v1/cli-auth/token",
          "https://sync.example.com:8443/v1/cli-auth/token",
          "https://sync.example.com/V1/cli-auth/token",
          "https://user@sync.example.com/v1/cli-auth/token",
          "sync.example.com/v1/cli-auth/token"}) {
        c.htu = htu;
        expect_rejected(input_for(make_dpop(k, c)), "htu");
    }
}

TEST(JoseDpop, HtuComparedAfterNormalisation) {
    TestP256Key k;
    DpopClaims c;
    c.iat = kNow;
    for (const char* htu : {"HTTPS://Sync.Example.COM/v1/cli-auth/token",
                            "https://sync.example.com:443/v1/cli-auth/token",
                            "https://sync.example.com/v1/cli-auth/token?x=1",
                            "https://sync.example.com/v1/cli-auth/token#frag"}) {
        c.htu = htu;
        EXPECT_NO_THROW(verify_dpop(input_for(make_dpop(k, c)))) << htu;
    }
    // The configured public URL may have a trailing slash and the path a query.
    c.htu = "https://sync.example.com/v1/cli-auth/token";
    std::string proof = make_dpop(k, c);
    DpopInput in = input_for(proof);
    in.public_url = "https://SYNC.example.com:443/";
    in.path = "/v1/cli-auth/token?wait=5";
    EXPECT_NO_THROW(verify_dpop(in));
}

TEST(JoseDpop, NormalizeHtuFollowsRfc3986) {
    EXPECT_EQ(normalize_htu("HTTP://Example.COM:80/a/b?q#f"), "http://example.com/a/b");
    EXPECT_EQ(normalize_htu("https://example.com:443"), "https://example.com/");
    EXPECT_EQ(normalize_htu("https://example.com:80/x"), "https://example.com:80/x");
    EXPECT_EQ(normalize_htu("http://localhost:8080/v1/x"), "http://localhost:8080/v1/x");
    EXPECT_EQ(normalize_htu("https://example.com:/x"), "https://example.com/x");
    EXPECT_EQ(normalize_htu("http://[::1]:8080/x"), "http://[::1]:8080/x");
    EXPECT_EQ(normalize_htu("https://e.com/a%2fb"), "https://e.com/a%2Fb");
    EXPECT_EQ(normalize_htu("ftp://example.com/x"), std::nullopt);
    EXPECT_EQ(normalize_htu("https:///x"), std::nullopt);
    EXPECT_EQ(normalize_htu("https://example.com:8x/x"), std::nullopt);
    EXPECT_EQ(normalize_htu("https://e.com/a%zz"), std::nullopt);
}

TEST(JoseDpop, RejectsPrivateKeyInJwk) {
    TestP256Key k;
    std::string jwk = R"({"kty":"EC","crv":"P-256","x":")" + k.x() + R"(","y":")" + k.y() +
                      R"(","d":")" + k.d() + R"("})";
    DpopClaims c;
    c.iat = kNow;
    expect_rejected(
        input_for(make_dpop(k, c, R"({"typ":"dpop+jwt","alg":"ES256","jwk":)" + jwk + "}")),
        "private key");
}

TEST(JoseDpop, JwkAllowsOnlyHarmlessPublicExtras) {
    TestP256Key k;
    DpopClaims c;
    c.iat = kNow;
    auto with_jwk = [&](const std::string& extra) {
        std::string jwk = R"({"kty":"EC","crv":"P-256","x":")" + k.x() + R"(","y":")" + k.y() +
                          "\"" + extra + "}";
        return make_dpop(k, c, R"({"typ":"dpop+jwt","alg":"ES256","jwk":)" + jwk + "}");
    };
    EXPECT_NO_THROW(verify_dpop(input_for(with_jwk(R"(,"kid":"k1","use":"sig","alg":"ES256")"))));
    expect_rejected(input_for(with_jwk(R"(,"use":"enc")")), "jwk member use");
    expect_rejected(input_for(with_jwk(R"(,"alg":"ES384")")), "jwk member alg");
    expect_rejected(input_for(with_jwk(R"(,"x5c":[])")), "jwk member x5c");
    // A duplicate member makes the header non-strict JSON.
    expect_rejected(input_for(with_jwk(R"(,"x":"dup")")), "not a well-formed JWS");
}

TEST(JoseDpop, RejectsJwkOfWrongTypeOrCurveOrOffCurve) {
    TestP256Key k;
    DpopClaims c;
    c.iat = kNow;
    // The DpopInput only views the proof, so the proof string must outlive the call.
    auto rejected_with_jwk = [&](const std::string& jwk, std::string_view reason) {
        std::string proof =
            make_dpop(k, c, R"({"typ":"dpop+jwt","alg":"ES256","jwk":)" + jwk + "}");
        expect_rejected(input_for(proof), reason);
    };
    std::string xy = R"("x":")" + k.x() + R"(","y":")" + k.y() + "\"";
    rejected_with_jwk(R"({"kty":"RSA","crv":"P-256",)" + xy + "}", "kty");
    rejected_with_jwk(R"({"kty":"EC","crv":"P-384",)" + xy + "}", "crv");
    rejected_with_jwk(R"({"kty":"EC",)" + xy + "}", "crv is missing");
    auto y = *b64url_decode(k.y());
    y[0] ^= 1;
    rejected_with_jwk(
        R"({"kty":"EC","crv":"P-256","x":")" + k.x() + R"(","y":")" + b64url_encode(y) + "\"}",
        "not a valid P-256");
    rejected_with_jwk(R"("jwk")", "not an object");
    expect_rejected(input_for(make_dpop(k, c, R"({"typ":"dpop+jwt","alg":"ES256"})")),
                    "jwk is missing");
}

TEST(JoseDpop, RejectsBadSignature) {
    TestP256Key k, other;
    DpopClaims c;
    c.iat = kNow;
    // Signed by `other` but carrying k's public key.
    std::string proof = make_jws(other, default_header(k), dpop_claims_json(c));
    expect_rejected(input_for(proof), "signature");
    // DER signature instead of R||S.
    std::string good = make_dpop(k, c);
    std::string input = good.substr(0, good.rfind('.'));
    std::string der = input + "." + b64url_encode(k.sign_der(input));
    expect_rejected(input_for(der), "signature");
}

TEST(JoseDpop, RejectsMalformedProofs) {
    expect_rejected(input_for(""), "missing");
    expect_rejected(input_for("a.b"), "not a well-formed JWS");
    expect_rejected(input_for("e30.e30.AA=="), "not a well-formed JWS");
    expect_rejected(input_for(std::string(9000, 'A')), "too long");
    TestP256Key k;
    expect_rejected(input_for(make_jws(k, default_header(k), "not json")), "claims");
    expect_rejected(
        input_for(make_jws(k, default_header(k), R"({"jti":"a","jti":"b","htm":"POST"})")),
        "claims");
    expect_rejected(
        input_for(make_dpop(
            k, {}, R"({"typ":"dpop+jwt","alg":"ES256","crit":["x"],"jwk":)" + k.jwk_json() + "}")),
        "crit");
}

TEST(JoseDpop, RejectsJtiMissingEmptyOrTooLong) {
    TestP256Key k;
    DpopClaims c;
    c.iat = kNow;
    c.jti = std::string(128, 'j');
    EXPECT_NO_THROW(verify_dpop(input_for(make_dpop(k, c))));
    c.jti = std::string(129, 'j');
    expect_rejected(input_for(make_dpop(k, c)), "jti");
    c.jti = "";
    expect_rejected(input_for(make_dpop(k, c)), "jti");
    std::string no_jti =
        R"({"htm":"POST","htu":"https://sync.example.com/v1/cli-auth/token","iat":1700000000})";
    expect_rejected(input_for(make_jws(k, default_header(k), no_jti)), "jti is missing");
}

TEST(JoseDpop, AthMatchesRfc9449Vector) {
    EXPECT_EQ(b64url_encode(sha256("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU")),
              "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo");
}

TEST(JoseDpop, AcceptsMatchingAth) {
    TestP256Key k;
    DpopClaims c;
    c.iat = kNow;
    c.ath = b64url_encode(sha256(kToken));
    std::string proof = make_dpop(k, c);
    DpopInput in = input_for(proof);
    in.access_token = kToken;
    EXPECT_NO_THROW(verify_dpop(in));
}

TEST(JoseDpop, RejectsAthMismatchOrMissingWithToken) {
    TestP256Key k;
    DpopClaims c;
    c.iat = kNow;
    c.ath = b64url_encode(sha256("svc_at_another"));
    std::string proof = make_dpop(k, c);
    DpopInput in = input_for(proof);
    in.access_token = kToken;
    expect_rejected(in, "ath does not match");

    c.ath.reset();
    std::string no_ath = make_dpop(k, c);
    DpopInput in2 = input_for(no_ath);
    in2.access_token = kToken;
    expect_rejected(in2, "ath is missing");
}

TEST(JoseDpop, RejectsAthWithoutToken) {
    TestP256Key k;
    DpopClaims c;
    c.iat = kNow;
    c.ath = b64url_encode(sha256(kToken));
    expect_rejected(input_for(make_dpop(k, c)), "ath given without an access token");
}
