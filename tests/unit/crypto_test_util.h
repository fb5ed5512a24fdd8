// crypto_test_util.h -- private-key helpers for tests only: a throwaway P-256 key that
// signs (raw R||S or DER), compact JWS building and DPoP proof building, on OpenSSL 3.
// Production code never signs; these exist so verification can be tested end to end.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <openssl/evp.h>

#include "common/crypto/es256.h"

namespace pouch::testutil {

class TestP256Key {
  public:
    TestP256Key();  // fresh random key (EVP_PKEY_keygen on P-256)

    const std::string& x() const { return x_; }  // 43-char b64url
    const std::string& y() const { return y_; }
    const std::string& d() const { return d_; }  // private scalar, b64url (for negative tests)
    crypto::P256PublicKey public_key() const;
    std::string jkt() const;
    // {"kty":"EC","crv":"P-256","x":"..","y":".."}
    std::string jwk_json() const;

    std::string sign_der(std::string_view msg) const;  // ECDSA-SHA256, DER
    std::string sign_raw(std::string_view msg) const;  // same, as 64-byte R||S

  private:
    std::shared_ptr<EVP_PKEY> key_;
    std::string x_, y_, d_;
};

// Converts a DER ECDSA signature to fixed-width R||S (32 bytes each).
std::string der_to_raw64(std::string_view der);

// "b64(header).b64(payload).b64(sig)" signed with key over the signing input.
std::string make_jws(const TestP256Key& key, std::string_view header_json,
                     std::string_view payload);

// Detached form "b64(header)..b64(sig)" with the payload given already as b64url.
std::string make_detached_jws(const TestP256Key& key, std::string_view header_json,
                              std::string_view payload_b64);

struct DpopClaims {
    std::string jti = "e1j3V_bKic8-LAEB";
    std::string htm = "POST";
    std::string htu = "https://sync.example.com/v1/cli-auth/token";
    long long iat = 1700000000;
    std::optional<std::string> ath;
};

// A DPoP proof with header {"typ":"dpop+jwt","alg":"ES256","jwk":<key>} unless header_json
// is given, and the claims above serialised in that order.
std::string make_dpop(const TestP256Key& key, const DpopClaims& claims,
                      std::optional<std::string> header_json = std::nullopt);
std::string dpop_claims_json(const DpopClaims& claims);

}  // namespace pouch::testutil
