// fuzz_b64url.cpp -- libFuzzer target: strict base64url. Invariants: every accepted text is
// in the alphabet and re-encodes to itself (one encoding per value); every byte string
// encodes to text that decodes back to it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/crypto/b64url.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace pouch::crypto;
    std::string_view in(reinterpret_cast<const char*>(data), size);

    if (auto decoded = b64url_decode(in)) {
        pouch::fuzz::require(is_b64url(in), "decoded text is in the alphabet");
        pouch::fuzz::require(decoded->size() == in.size() * 3 / 4, "decoded length");
        pouch::fuzz::require(b64url_encode(*decoded) == in, "encode(decode(t)) == t");
    }

    std::string encoded = b64url_encode(in);
    pouch::fuzz::require(is_b64url(encoded), "encoding is in the alphabet");
    auto back = b64url_decode(encoded);
    pouch::fuzz::require(back.has_value() && *back == in, "decode(encode(b)) == b");
    return 0;
}
