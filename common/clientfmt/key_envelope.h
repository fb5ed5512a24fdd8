// key_envelope.h -- key envelopes of docs/CLIENT-FORMAT.md: one pouch key (32 bytes) HPKE-
// sealed to one member's encryption key, signed by the member that made it; and the reader's
// checks of one before it is opened (pouch, member, creator trusted at its generation).
#pragma once

#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "common/clientfmt/encoding.h"
#include "common/clientfmt/roster.h"
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

// Why a reader refuses the envelope before opening it, in the words of the vectors'
// `refusals`, or "" when it passes: "wrong_pouch" (pouch_id is not the pouch asked for),
// "wrong_member" (member_id is not the reader's own), "unknown_creator" (created_by_member is
// not in the verified roster), "creator_removed" (removed with rotated_to <= key_gen). The
// signature ("bad_signature") and HPKE ("does_not_open") are open_key_envelope's.
std::string envelope_refusal(const KeyEnvelope& e, const Roster& r, std::string_view pouch_id,
                             std::string_view member_id);

// Checks the signature with the creator's signing key, then opens the pouch key with the
// member's HPKE private key. Throws FormatError on any failure.
std::string open_key_envelope(const KeyEnvelope& e, const PublicJwk& creator_sign_pub,
                              const crypto::P256PrivateKey& member_enc_key);

}  // namespace pouch::clientfmt
