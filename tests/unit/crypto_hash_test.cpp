// crypto_hash_test.cpp -- SHA-256 and BLAKE3-256 against published vectors (decisions §12)
// and BLAKE3 against Debian's independent b3sum binary on random inputs.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>
#include <fstream>
#include <memory>

#include "common/crypto/b64url.h"
#include "common/crypto/hash.h"
#include "common/crypto/random.h"

using namespace pouch::crypto;

TEST(CryptoHash, Sha256MatchesFips180Vectors) {
    EXPECT_EQ(to_hex(sha256("")),
              "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(to_hex(sha256("abc")),
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256("abc").size(), 32u);
}

TEST(CryptoHash, Blake3OfEmptyInputMatchesOfficialVector) {
    EXPECT_EQ(to_hex(blake3_256("")),
              "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262");
    EXPECT_EQ(b64url_encode(blake3_256("")), "rxNJufX5oaagQE3qNtzJSZvLJcmtwRK3zJqTyuQfMmI");
}

TEST(CryptoHash, Blake3OfOneZeroByteMatchesOfficialVector) {
    EXPECT_EQ(to_hex(blake3_256(std::string(1, '\0'))),
              "2d3adedff11b61f14c886e35afa036736dcd87a74d27b5c1510225d0f592e213");
}

TEST(CryptoHash, StreamingBlake3EqualsOneShot) {
    std::string data = random_bytes(200000);  // several chunks, crosses SIMD paths
    Blake3Hasher h;
    for (size_t i = 0; i < data.size(); i += 4097) h.update(std::string_view(data).substr(i, 4097));
    EXPECT_EQ(h.finish(), blake3_256(data));
}

TEST(CryptoHash, Blake3AgreesWithB3sumBinary) {
    for (size_t n : {1u, 64u, 1023u, 1024u, 1025u, 70000u}) {
        std::string data = random_bytes(n);
        char path[] = "/tmp/pouch_b3_XXXXXX";
        int fd = mkstemp(path);
        ASSERT_GE(fd, 0);
        ASSERT_EQ(write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
        close(fd);
        std::string cmd = std::string("b3sum --no-names ") + path;
        std::unique_ptr<FILE, decltype(&pclose)> p(popen(cmd.c_str(), "r"), pclose);
        ASSERT_TRUE(p);
        char buf[128] = {};
        ASSERT_NE(fgets(buf, sizeof buf, p.get()), nullptr);
        unlink(path);
        EXPECT_EQ(std::string(buf, 64), to_hex(blake3_256(data))) << "n=" << n;
    }
}

TEST(CryptoHash, ToHexIsLowerCase) {
    EXPECT_EQ(to_hex(std::string("\x00\x0f\xab\xff", 4)), "000fabff");
    EXPECT_EQ(to_hex(""), "");
}
