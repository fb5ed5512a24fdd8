// client_key.h -- the CLI's private P-256 sign key: generation, the PEM PKCS#8 key file
// (mode 0600), the public JWK coordinates and ES256 signing that yields raw R||S
// (RFC 7518 §3.4). Private-key work is client-side only, so it lives here, not in common/.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <openssl/evp.h>

namespace pouchctl {

class SignKey {
public:
    static SignKey generate();  // throws std::runtime_error when OpenSSL fails
    // nullopt with err set when the file is unreadable, not PEM, or not a P-256 EC key.
    static std::optional<SignKey> load(const std::string& path, std::string& err);
    // Creates path with mode 0600; refuses to overwrite an existing file (a lost key
    // cannot be recovered). false with err set on failure.
    bool save(const std::string& path, std::string& err) const;

    const std::string& x() const { return x_; }  // 43-char b64url coordinates
    const std::string& y() const { return y_; }
    // {"kty":"EC","crv":"P-256","x":..,"y":..} on one line.
    std::string public_jwk_json() const;
    // ES256 over msg: exactly 64 bytes R||S, each left-padded to 32 bytes.
    std::string sign_es256(std::string_view msg) const;

private:
    explicit SignKey(std::shared_ptr<EVP_PKEY> key);
    std::shared_ptr<EVP_PKEY> key_;
    std::string x_, y_;
};

}  // namespace pouchctl
