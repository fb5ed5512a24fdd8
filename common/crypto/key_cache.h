// key_cache.h -- parsed P-256 public keys kept by their coordinates, so a request that proves
// a key seen before (a DPoP proof, a Service-Signature) pays one ES256 verify instead of a
// point decode, a full public-key check (a scalar multiplication) and the verify.
//
// Invariant: an entry is found only by the coordinates it is asked for (b64url x + '.' + y;
// '.' is outside the b64url alphabet, so the key names one pair); a thumbprint (or kid)
// claimed by a caller is never an input. Invalid keys are not cached. Bounded: at most
// `capacity` keys, the least recently used evicted first. Thread-safe (one mutex, held for a
// map lookup; parsing happens outside it).
#pragma once

#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/crypto/es256.h"

namespace pouch::crypto {

class P256KeyCache {
  public:
    explicit P256KeyCache(size_t capacity);
    P256KeyCache(const P256KeyCache&) = delete;
    P256KeyCache& operator=(const P256KeyCache&) = delete;

    // The key with these b64url coordinates, parsed and checked once (P256PublicKey::from_jwk);
    // nullopt when they are not a valid P-256 public key.
    std::optional<P256PublicKey> get(std::string_view x_b64, std::string_view y_b64);

    size_t size() const;
    std::uint64_t hits() const;
    std::uint64_t misses() const;

  private:
    struct Entry {
        std::string coords;  // x + '.' + y, as asked for
        P256PublicKey key;
    };
    const size_t capacity_;
    mutable std::mutex mu_;
    std::list<Entry> lru_;  // most recently used first
    std::unordered_map<std::string, std::list<Entry>::iterator> by_coords_;
    std::uint64_t hits_ = 0, misses_ = 0;
};

// The process's cache (4,096 keys: a few hundred bytes each), shared by DPoP and
// Service-Signature verification.
P256KeyCache& p256_key_cache();

}  // namespace pouch::crypto
