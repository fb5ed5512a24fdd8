// crypto_hpke_test.cpp -- HPKE (common/crypto/hpke.h) against RFC 9180 §A.3.1, the base-mode
// vectors of DHKEM(P-256, HKDF-SHA256) / HKDF-SHA256 / AES-128-GCM, plus round trips and
// refusals; and the HKDF/AES-GCM building blocks against RFC 5869 and their own inverses.
#include <gtest/gtest.h>

#include "common/crypto/aead.h"
#include "common/crypto/b64url.h"
#include "common/crypto/es256.h"
#include "common/crypto/hash.h"
#include "common/crypto/hpke.h"
#include "common/crypto/kdf.h"
#include "common/crypto/random.h"

using namespace pouch::crypto;

namespace {

std::string unhex(std::string_view h) {
    std::string out;
    for (size_t i = 0; i + 1 < h.size(); i += 2)
        out.push_back(static_cast<char>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16)));
    return out;
}

// RFC 9180 §A.3.1 (mode 0, kem_id 16, kdf_id 1, aead_id 1).
struct A31 {
    std::string info = unhex("4f6465206f6e2061204772656369616e2055726e");
    std::string ikmE = unhex("4270e54ffd08d79d5928020af4686d8f6b7d35dbe470265f1f5aa22816ce860e");
    std::string pkEm = unhex(
        "04a92719c6195d5085104f469a8b9814d5838ff72b60501e2c4466e5e67b325ac98536d7b61a1af4b78e5b7f95"
        "1c0900be863c403ce65c9bfcb9382657222d18c4");
    std::string skEm = unhex("4995788ef4b9d6132b249ce59a77281493eb39af373d236a1fe415cb0c2d7beb");
    std::string ikmR = unhex("668b37171f1072f3cf12ea8a236a45df23fc13b82af3609ad1e354f6ef817550");
    std::string pkRm = unhex(
        "04fe8c19ce0905191ebc298a9245792531f26f0cece2460639e8bc39cb7f706a826a779b4cf969b8a0e539c7f6"
        "2fb3d30ad6aa8f80e30f1d128aafd68a2ce72ea0");
    std::string skRm = unhex("f3ce7fdae57e1a310d87f1ebbde6f328be0a99cdbcadf4d6589cf29de4b8ffd2");
    std::string shared_secret =
        unhex("c0d26aeab536609a572b07695d933b589dcf363ff9d93c93adea537aeabb8cb8");
    std::string key = unhex("868c066ef58aae6dc589b6cfdd18f97e");
    std::string base_nonce = unhex("4e0bc5018beba4bf004cca59");
    std::string exporter_secret =
        unhex("14ad94af484a7ad3ef40e9f3be99ecc6fa9036df9d4920548424df127ee0d99f");
    std::string pt = unhex("4265617574792069732074727574682c20747275746820626561757479");
    std::string aad0 = unhex("436f756e742d30");  // "Count-0"
    std::string ct0 = unhex(
        "5ad590bb8baa577f8619db35a36311226a896e7342a6d836d8b7bcd2f20b6c7f9076ac232e3ab2523f3951343"
        "4");
    std::string aad1 = unhex("436f756e742d31");  // "Count-1"
    std::string ct1 = unhex(
        "fa6f037b47fc21826b610172ca9637e82d6e5801eb31cbd3748271affd4ecb06646e0329cbdf3c3cd655b28e8"
        "2");
    std::string exported_empty =
        unhex("5e9bc3d236e1911d95e65b576a8a86d478fb827e8bdfe77b741b289890490d4d");
};

}  // namespace

TEST(Hkdf, MatchesRfc5869TestCase1) {
    std::string ikm(22, '\x0b');
    std::string salt = unhex("000102030405060708090a0b0c");
    std::string info = unhex("f0f1f2f3f4f5f6f7f8f9");
    EXPECT_EQ(to_hex(hkdf_extract(salt, ikm)),
              "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5");
    EXPECT_EQ(
        to_hex(hkdf_sha256(ikm, salt, info, 42)),
        "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865");
}

TEST(Hkdf, EmptySaltEqualsHashLenZeros) {  // RFC 5869 §2.2, test case 3
    std::string ikm(22, '\x0b');
    EXPECT_EQ(
        to_hex(hkdf_sha256(ikm, "", "", 42)),
        "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8");
    EXPECT_EQ(hkdf_extract("", ikm), hkdf_extract(std::string(32, '\0'), ikm));
}

TEST(AesGcm, SealThenOpenRoundTripsAndRefusesAnyChange) {
    std::string key = random_bytes(32), nonce = random_bytes(12);
    std::string sealed = aes_gcm_seal(key, nonce, "aad", "hello");
    EXPECT_EQ(sealed.size(), 5u + kGcmTagSize);
    EXPECT_EQ(aes_gcm_open(key, nonce, "aad", sealed), "hello");
    EXPECT_FALSE(aes_gcm_open(key, nonce, "aaD", sealed));
    std::string flipped = sealed;
    flipped[0] ^= 1;
    EXPECT_FALSE(aes_gcm_open(key, nonce, "aad", flipped));
    EXPECT_FALSE(aes_gcm_open(random_bytes(32), nonce, "aad", sealed));
    EXPECT_FALSE(aes_gcm_open(key, nonce, "aad", "short"));
}

TEST(Hpke, DeriveKeyPairMatchesRfc9180A31) {
    A31 v;
    P256PrivateKey r = hpke::derive_key_pair(v.ikmR);
    EXPECT_EQ(to_hex(r.scalar()), to_hex(v.skRm));
    EXPECT_EQ(to_hex(r.public_point()), to_hex(v.pkRm));
    P256PrivateKey e = hpke::derive_key_pair(v.ikmE);
    EXPECT_EQ(to_hex(e.scalar()), to_hex(v.skEm));
    EXPECT_EQ(to_hex(e.public_point()), to_hex(v.pkEm));
}

TEST(Hpke, SenderSetupMatchesRfc9180A31KeySchedule) {
    A31 v;
    auto eph = P256PrivateKey::from_scalar(v.skEm);
    ASSERT_TRUE(eph);
    hpke::Sender s = hpke::setup_base_s(v.pkRm, v.info, *eph);
    EXPECT_EQ(to_hex(s.enc), to_hex(v.pkEm));
    EXPECT_EQ(to_hex(s.shared_secret), to_hex(v.shared_secret));
    EXPECT_EQ(to_hex(s.ctx.key()), to_hex(v.key));
    EXPECT_EQ(to_hex(s.ctx.base_nonce()), to_hex(v.base_nonce));
    EXPECT_EQ(to_hex(s.ctx.exporter_secret()), to_hex(v.exporter_secret));
    EXPECT_EQ(to_hex(s.ctx.export_secret("", 32)), to_hex(v.exported_empty));
}

TEST(Hpke, SealMatchesRfc9180A31EncryptionsZeroAndOne) {
    A31 v;
    auto eph = P256PrivateKey::from_scalar(v.skEm);
    ASSERT_TRUE(eph);
    hpke::Sender s = hpke::setup_base_s(v.pkRm, v.info, *eph);
    EXPECT_EQ(to_hex(s.ctx.seal(v.aad0, v.pt)), to_hex(v.ct0));
    EXPECT_EQ(to_hex(s.ctx.seal(v.aad1, v.pt)), to_hex(v.ct1));
}

TEST(Hpke, RecipientOpensRfc9180A31Ciphertexts) {
    A31 v;
    auto sk = P256PrivateKey::from_scalar(v.skRm);
    ASSERT_TRUE(sk);
    auto ctx = hpke::setup_base_r(v.pkEm, *sk, v.info);
    ASSERT_TRUE(ctx);
    EXPECT_EQ(ctx->key(), v.key);
    EXPECT_EQ(ctx->open(v.aad0, v.ct0), v.pt);
    EXPECT_EQ(ctx->open(v.aad1, v.ct1), v.pt);
    // The single-shot form opens sequence number 0 only.
    EXPECT_EQ(hpke::open(*sk, v.pkEm, v.info, v.aad0, v.ct0), v.pt);
    EXPECT_FALSE(hpke::open(*sk, v.pkEm, v.info, v.aad1, v.ct1));
}

TEST(Hpke, SingleShotRoundTripsAPouchKeyIn48Bytes) {
    P256PrivateKey r = P256PrivateKey::generate();
    std::string pouch_key = random_bytes(32);
    hpke::Sealed s = hpke::seal(r.public_point(), "pouch/key-envelope/v1", "", pouch_key);
    EXPECT_EQ(s.enc.size(), 65u);
    EXPECT_EQ(b64url_encode(s.enc).size(), 87u);
    EXPECT_EQ(s.ct.size(), 48u);
    EXPECT_EQ(b64url_encode(s.ct).size(), 64u);
    EXPECT_EQ(hpke::open(r, s.enc, "pouch/key-envelope/v1", "", s.ct), pouch_key);
}

TEST(Hpke, OpenRefusesWrongInfoWrongKeyAlteredCtAndOffCurveEnc) {
    P256PrivateKey r = P256PrivateKey::generate();
    hpke::Sealed s = hpke::seal(r.public_point(), "info", "", "secret");
    EXPECT_FALSE(hpke::open(r, s.enc, "inf0", "", s.ct));
    EXPECT_FALSE(hpke::open(P256PrivateKey::generate(), s.enc, "info", "", s.ct));
    std::string ct = s.ct;
    ct.back() ^= 1;
    EXPECT_FALSE(hpke::open(r, s.enc, "info", "", ct));
    std::string enc = s.enc;
    enc[64] ^= 1;  // y no longer matches x
    EXPECT_FALSE(hpke::open(r, enc, "info", "", s.ct));
    EXPECT_FALSE(hpke::open(r, s.enc.substr(1), "info", "", s.ct));
}

TEST(Hpke, SealRefusesARecipientPointOffTheCurve) {
    std::string bad = P256PrivateKey::generate().public_point();
    bad[64] ^= 1;
    EXPECT_THROW(hpke::seal(bad, "", "", "x"), std::invalid_argument);
}

TEST(P256PrivateKey, FromScalarRefusesZeroAndTheOrder) {
    EXPECT_FALSE(P256PrivateKey::from_scalar(std::string(32, '\0')));
    EXPECT_FALSE(P256PrivateKey::from_scalar(
        unhex("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")));
    EXPECT_TRUE(P256PrivateKey::from_scalar(
        unhex("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632550")));
}

TEST(P256PrivateKey, PemRoundTripKeepsTheKeyAndSignaturesVerify) {
    P256PrivateKey k = P256PrivateKey::generate();
    std::string err;
    auto back = P256PrivateKey::from_pem(k.to_pem(), err);
    ASSERT_TRUE(back) << err;
    EXPECT_EQ(back->scalar(), k.scalar());
    auto pub = P256PublicKey::from_jwk(k.x(), k.y());
    ASSERT_TRUE(pub);
    EXPECT_TRUE(pub->verify("msg", back->sign_es256("msg")));
    EXPECT_FALSE(pub->verify("msh", back->sign_es256("msg")));
}

TEST(P256PrivateKey, EcdhAgreesBothWays) {
    P256PrivateKey a = P256PrivateKey::generate(), b = P256PrivateKey::generate();
    auto ab = a.ecdh(b.public_point()), ba = b.ecdh(a.public_point());
    ASSERT_TRUE(ab && ba);
    EXPECT_EQ(*ab, *ba);
    EXPECT_EQ(ab->size(), 32u);
}
