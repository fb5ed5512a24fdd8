// key_cache.cpp -- the LRU of parsed P-256 keys (key_cache.h): a list in use order and a map
// from thumbprint to list position, under one mutex.
#include "common/crypto/key_cache.h"

namespace pouch::crypto {

P256KeyCache::P256KeyCache(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

std::optional<P256PublicKey> P256KeyCache::get(std::string_view x_b64, std::string_view y_b64) {
    std::string thumbprint = jwk_thumbprint(x_b64, y_b64);
    {
        std::lock_guard<std::mutex> g(mu_);
        auto it = by_thumbprint_.find(thumbprint);
        // The coordinates are compared too: equal thumbprints of different keys would be a
        // SHA-256 collision, and then the key asked for is parsed, not the stored one.
        if (it != by_thumbprint_.end() && it->second->key.x() == x_b64 &&
            it->second->key.y() == y_b64) {
            lru_.splice(lru_.begin(), lru_, it->second);
            ++hits_;
            return it->second->key;
        }
        ++misses_;
    }
    std::optional<P256PublicKey> key = P256PublicKey::from_jwk(x_b64, y_b64);
    if (!key) return std::nullopt;
    std::lock_guard<std::mutex> g(mu_);
    auto it = by_thumbprint_.find(thumbprint);
    if (it != by_thumbprint_.end()) {  // another thread parsed it meanwhile, or a collision
        lru_.erase(it->second);
        by_thumbprint_.erase(it);
    }
    lru_.push_front(Entry{thumbprint, *key});
    by_thumbprint_[thumbprint] = lru_.begin();
    while (lru_.size() > capacity_) {
        by_thumbprint_.erase(lru_.back().thumbprint);
        lru_.pop_back();
    }
    return key;
}

size_t P256KeyCache::size() const {
    std::lock_guard<std::mutex> g(mu_);
    return lru_.size();
}

std::uint64_t P256KeyCache::hits() const {
    std::lock_guard<std::mutex> g(mu_);
    return hits_;
}

std::uint64_t P256KeyCache::misses() const {
    std::lock_guard<std::mutex> g(mu_);
    return misses_;
}

P256KeyCache& p256_key_cache() {
    static P256KeyCache cache(4096);
    return cache;
}

}  // namespace pouch::crypto
