// key_envelope.h -- key envelopes of docs/CLIENT-FORMAT.md: one pouch key (32 bytes) HPKE-
// sealed to one member's encryption key, signed by the member that made it.
#pragma once

#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "common/clientfmt/encoding.h"
#include "common/crypto/p256_private.h"

namespace pouch::clientfmt {

constexpr size_t kPouchKeySize = 32;

struct KeyEnvelope {
    std::string pouch_id, member_id;
    long long key_gen = 0;
    std::string hpke_enc, ciphertext, created_by_member, signature;

    std::string json() const;          // the API object (all seven fields)
    std::string signed_bytes() const;  // JCS of the object without `signature`
    static KeyEnvelope from_json(const rapidjson::Value& v);  // throws FormatError
};

// info = "pouch/key-envelope/v1" || id(pouch_id) || id(member_id) || u64be(key_gen)
std::string key_envelope_info(std::string_view pouch_id, std::string_view member_id,
                              long long key_gen);

// `ephemeral` fixes HPKE's ephemeral key (test vectors: DeriveKeyPair(ekm)); fresh otherwise.
KeyEnvelope seal_key_envelope(std::string_view pouch_id, std::string_view member_id,
                              long long key_gen, const PublicJwk& member_enc_pub,
                              std::string_view pouch_key, std::string_view creator_member_id,
                              const crypto::P256PrivateKey& creator_sign_key,
                              const crypto::P256PrivateKey* ephemeral = nullptr);

// Checks the signature with the creator's signing key, then opens the pouch key with the
// member's HPKE private key. Throws FormatError on any failure.
std::string open_key_envelope(const KeyEnvelope& e, const PublicJwk& creator_sign_pub,
                              const crypto::P256PrivateKey& member_enc_key);

}  // namespace pouch::clientfmt
