// hpke.h -- HPKE (RFC 9180) base mode for the one suite the client format uses:
// DHKEM(P-256, HKDF-SHA256) / HKDF-SHA256 / AES-128-GCM, ids (0x0010, 0x0001, 0x0001), on
// OpenSSL 3.0 primitives (EVP_PKEY_derive, EVP_KDF HKDF, AES-GCM). OpenSSL 3.0 has no HPKE
// API of its own. Checked against RFC 9180 §A.3 and against @hpke/core in the interop suite.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/crypto/p256_private.h"

namespace pouch::crypto::hpke {

constexpr size_t kEncSize = 65;     // Nenc: the uncompressed ephemeral public point
constexpr size_t kKeySize = 16;     // Nk of AES-128-GCM
constexpr size_t kNonceSize = 12;   // Nn
constexpr size_t kSecretSize = 32;  // Nsecret and Nh of HKDF-SHA256

// DeriveKeyPair(ikm) of §7.1.3 (P-256: candidates from LabeledExpand until one is below
// the group order). Deterministic; for test vectors and derived keys.
P256PrivateKey derive_key_pair(std::string_view ikm);

// A context of §5.2 (key, base_nonce, exporter_secret, sequence number). Seal and open
// advance the sequence number; one context either seals or opens, never both.
class Context {
  public:
    Context(std::string key, std::string base_nonce, std::string exporter_secret);
    std::string seal(std::string_view aad, std::string_view pt);
    // nullopt when the ciphertext does not open; the sequence number then stays.
    std::optional<std::string> open(std::string_view aad, std::string_view ct);
    // Export(exporter_context, L) of §5.3.
    std::string export_secret(std::string_view exporter_context, size_t length) const;
    const std::string& key() const { return key_; }
    const std::string& base_nonce() const { return base_nonce_; }
    const std::string& exporter_secret() const { return exporter_secret_; }

  private:
    std::string nonce() const;  // base_nonce XOR I2OSP(seq, Nn)
    std::string key_, base_nonce_, exporter_secret_;
    uint64_t seq_ = 0;
};

struct Sender {
    std::string enc;  // 65 bytes
    std::string shared_secret;
    Context ctx;
};

// SetupBaseS(pkR, info) with the ephemeral key given (the RFC's vectors fix it) or fresh.
// pk_r is the recipient's uncompressed point; std::invalid_argument when it is not on the
// curve.
Sender setup_base_s(std::string_view pk_r, std::string_view info, const P256PrivateKey& ephemeral);
Sender setup_base_s(std::string_view pk_r, std::string_view info);

// SetupBaseR(enc, skR, info); nullopt when enc is not a point of the curve.
std::optional<Context> setup_base_r(std::string_view enc, const P256PrivateKey& sk_r,
                                    std::string_view info);

struct Sealed {
    std::string enc;  // 65 bytes
    std::string ct;   // plaintext size + 16
};

// Single-shot Seal/Open of §6.1 (one message at sequence number 0).
Sealed seal(std::string_view pk_r, std::string_view info, std::string_view aad,
            std::string_view pt);
std::optional<std::string> open(const P256PrivateKey& sk_r, std::string_view enc,
                                std::string_view info, std::string_view aad, std::string_view ct);

}  // namespace pouch::crypto::hpke
