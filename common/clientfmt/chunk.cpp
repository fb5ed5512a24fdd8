// chunk.cpp -- sealing and opening file chunks (chunk.h) with AES-256-GCM and BLAKE3.
#include "common/clientfmt/chunk.h"

#include "common/crypto/aead.h"
#include "common/crypto/b64url.h"
#include "common/crypto/ct.h"
#include "common/crypto/hash.h"
#include "common/crypto/random.h"

namespace pouch::clientfmt {

namespace {

SealedChunk seal(std::string_view plaintext, const std::string& k, const std::string& n,
                 std::string hash_b64) {
    SealedChunk s;
    s.stored = crypto::aes_gcm_seal(k, n, "pouch/chunk/v1", plaintext, n);  // n || ct || tag
    s.entry.blob_id = crypto::b64url_encode(crypto::blake3_256(s.stored));
    s.entry.size = static_cast<long long>(plaintext.size());
    s.entry.key = crypto::b64url_encode(k);
    s.entry.hash = std::move(hash_b64);
    return s;
}

}  // namespace

SealedChunk seal_chunk(std::string_view plaintext, std::optional<std::string> key,
                       std::optional<std::string> nonce) {
    return seal(plaintext, key ? *key : crypto::random_bytes(32),
                nonce ? *nonce : crypto::random_bytes(12),
                crypto::b64url_encode(crypto::blake3_256(plaintext)));
}

SealedChunk seal_chunk_hashed(std::string_view plaintext, std::string hash_b64) {
    return seal(plaintext, crypto::random_bytes(32), crypto::random_bytes(12), std::move(hash_b64));
}

std::string open_chunk(const ChunkRef& entry, std::string_view stored) {
    if (crypto::b64url_encode(crypto::blake3_256(stored)) != entry.blob_id)
        throw FormatError("blob " + entry.blob_id + " does not hash to its id");
    auto key = crypto::b64url_decode(entry.key);
    if (!key || key->size() != 32) throw FormatError("chunk key is not 32 bytes of b64url");
    if (stored.size() < kChunkOverhead)
        throw FormatError("blob " + entry.blob_id + " is too short");
    auto pt = crypto::aes_gcm_open(*key, stored.substr(0, 12), "pouch/chunk/v1", stored.substr(12));
    if (!pt) throw FormatError("blob " + entry.blob_id + " does not open with its chunk key");
    if (static_cast<long long>(pt->size()) != entry.size ||
        !crypto::ct_equal(crypto::b64url_encode(crypto::blake3_256(*pt)), entry.hash))
        throw FormatError("blob " + entry.blob_id + " does not match its size and hash");
    return *pt;
}

}  // namespace pouch::clientfmt
