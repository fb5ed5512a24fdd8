// hash.h -- SHA-256 (OpenSSL EVP) and BLAKE3-256 (official C implementation, <blake3.h>)
// as raw 32-byte strings, a streaming BLAKE3 hasher for blobs, and hex for logs and tests.
#pragma once

#include <string>
#include <string_view>

#include <blake3.h>

namespace pouch::crypto {

std::string sha256(std::string_view data);      // 32 raw bytes
std::string blake3_256(std::string_view data);  // 32 raw bytes

// Incremental BLAKE3-256 for data that arrives in pieces (blob uploads).
class Blake3Hasher {
  public:
    Blake3Hasher();
    void update(std::string_view data);
    std::string finish() const;  // 32 raw bytes; the hasher may keep being updated

  private:
    blake3_hasher h_;
};

std::string to_hex(std::string_view bytes);  // lower-case

}  // namespace pouch::crypto
