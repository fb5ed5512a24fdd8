// es256.h -- P-256 public keys from JWK coordinates, ES256 verification (raw R||S only) and
// the low-S form signers give their signatures, on OpenSSL 3: EVP_PKEY_fromdata from
// 0x04||X||Y rejects off-curve points; R||S is turned into DER with ECDSA_SIG_set0 +
// i2d_ECDSA_SIG and verified with EVP_DigestVerify.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <openssl/evp.h>

namespace pouch::crypto {

class P256PublicKey {
public:
    // x, y: 43-char b64url coordinates. nullopt when malformed or not on the curve.
    static std::optional<P256PublicKey> from_jwk(std::string_view x_b64, std::string_view y_b64);
    // Verifies a raw 64-byte R||S ES256 signature over msg (SHA-256 inside). DER or any
    // other length is false.
    bool verify(std::string_view msg, std::string_view sig_raw64) const;
    // RFC 7638 thumbprint, b64url of SHA-256 of {"crv":"P-256","kty":"EC","x":..,"y":..}.
    std::string thumbprint() const;
    const std::string& x() const { return x_; }
    const std::string& y() const { return y_; }

private:
    std::shared_ptr<EVP_PKEY> key_;
    std::string x_, y_;  // b64url
};

// Convenience for schema validation.
inline bool p256_on_curve(std::string_view x_b64, std::string_view y_b64) {
    return P256PublicKey::from_jwk(x_b64, y_b64).has_value();
}

// Low-S (docs/CLIENT-FORMAT.md "Conventions"): (R, S) and (R, n - S) are both valid ECDSA
// signatures of one message, so signers give S <= n/2 and verifiers accept either form (as
// JOSE does). es256_low_s returns a raw R||S with S replaced by n - S when S > n/2, else the
// signature unchanged (anything not 64 bytes too); es256_is_low_s says whether S <= n/2.
std::string es256_low_s(std::string_view sig_raw64);
bool es256_is_low_s(std::string_view sig_raw64);

// RFC 7638 thumbprint from coordinates (no curve check).
std::string jwk_thumbprint(std::string_view x_b64, std::string_view y_b64);

}  // namespace pouch::crypto
