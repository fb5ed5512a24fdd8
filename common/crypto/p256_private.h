// p256_private.h -- a private P-256 key held by a client (the CLI device, the dev/test web
// helper): generation, PKCS#8 PEM files (mode 0600), the public JWK and point, ES256 signing
// with raw R||S (RFC 7518 §3.4) and ECDH (the x coordinate, as HPKE's DHKEM uses it).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <openssl/evp.h>

namespace pouch::crypto {

class P256PrivateKey {
  public:
    static P256PrivateKey generate();  // throws std::runtime_error when OpenSSL fails
    // The key whose scalar is the 32 big-endian bytes d; nullopt when d is 0 or >= the
    // group order (RFC 9180 DeriveKeyPair retries such candidates).
    static std::optional<P256PrivateKey> from_scalar(std::string_view d32);
    // nullopt with err set when the file is unreadable, not PEM, or not a P-256 EC key.
    static std::optional<P256PrivateKey> load(const std::string& path, std::string& err);
    static std::optional<P256PrivateKey> from_pem(std::string_view pem, std::string& err);
    // Creates path with mode 0600; refuses to overwrite an existing file (a lost key
    // cannot be recovered). false with err set on failure.
    bool save(const std::string& path, std::string& err) const;
    std::string to_pem() const;  // PKCS#8 "BEGIN PRIVATE KEY"

    const std::string& x() const { return x_; }  // 43-char b64url coordinates
    const std::string& y() const { return y_; }
    // {"kty":"EC","crv":"P-256","x":..,"y":..} on one line.
    std::string public_jwk_json() const;
    // 0x04 || X || Y (65 bytes): SerializePublicKey of RFC 9180 §7.1.1.
    std::string public_point() const;
    // The 32-byte scalar (for test vectors and the recovery of a key from its JWK `d`).
    std::string scalar() const;
    // ES256 over msg: exactly 64 bytes R||S, each left-padded to 32 bytes, S <= n/2 (low-S).
    std::string sign_es256(std::string_view msg) const;
    // ECDH with a peer's uncompressed point (65 bytes): the 32-byte x coordinate of the
    // shared point. nullopt when the peer point is malformed or not on the curve.
    std::optional<std::string> ecdh(std::string_view peer_point) const;

  private:
    explicit P256PrivateKey(std::shared_ptr<EVP_PKEY> key);
    std::shared_ptr<EVP_PKEY> key_;
    std::string x_, y_;
};

// The EVP_PKEY of an uncompressed P-256 point (65 bytes, 0x04 || X || Y); null when the bytes
// are not a point of the curve (EVP_PKEY_fromdata checks it).
std::shared_ptr<EVP_PKEY> p256_public_from_point(std::string_view point);

// 0x04 || X || Y of JWK coordinates (b64url, 43 characters each); nullopt when malformed.
std::optional<std::string> p256_point_from_jwk(std::string_view x_b64, std::string_view y_b64);

}  // namespace pouch::crypto
