// key_cache.cpp -- the LRU of parsed P-256 keys (key_cache.h): a list in use order and a map
// from coordinates to list position, under one mutex.
#include "common/crypto/key_cache.h"

namespace pouch::crypto {

P256KeyCache::P256KeyCache(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

std::optional<P256PublicKey> P256KeyCache::get(std::string_view x_b64, std::string_view y_b64) {
    std::string coords;
    coords.reserve(x_b64.size() + 1 + y_b64.size());
    coords.append(x_b64).append(1, '.').append(y_b64);
    {
        std::lock_guard<std::mutex> g(mu_);
        auto it = by_coords_.find(coords);
        if (it != by_coords_.end()) {
            lru_.splice(lru_.begin(), lru_, it->second);
            ++hits_;
            return it->second->key;
        }
        ++misses_;
    }
    std::optional<P256PublicKey> key = P256PublicKey::from_jwk(x_b64, y_b64);
    if (!key) return std::nullopt;
    std::lock_guard<std::mutex> g(mu_);
    auto it = by_coords_.find(coords);
    if (it != by_coords_.end()) {  // another thread parsed it meanwhile
        lru_.splice(lru_.begin(), lru_, it->second);
        return it->second->key;
    }
    lru_.push_front(Entry{coords, *key});
    by_coords_.emplace(std::move(coords), lru_.begin());
    while (lru_.size() > capacity_) {
        by_coords_.erase(lru_.back().coords);
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
