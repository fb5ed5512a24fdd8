// crypto_b64url_test.cpp -- strict base64url: RFC 4648 vectors, and every malformed input
// class (alphabet, padding, impossible length, non-canonical trailing bits) refused.
#include <gtest/gtest.h>

#include "common/crypto/b64url.h"

using namespace pouch::crypto;

TEST(CryptoB64url, EncodesRfc4648VectorsWithoutPadding) {
    EXPECT_EQ(b64url_encode(""), "");
    EXPECT_EQ(b64url_encode("f"), "Zg");
    EXPECT_EQ(b64url_encode("fo"), "Zm8");
    EXPECT_EQ(b64url_encode("foo"), "Zm9v");
    EXPECT_EQ(b64url_encode("foob"), "Zm9vYg");
    EXPECT_EQ(b64url_encode("fooba"), "Zm9vYmE");
    EXPECT_EQ(b64url_encode("foobar"), "Zm9vYmFy");
}

TEST(CryptoB64url, UsesUrlSafeAlphabet) {
    EXPECT_EQ(b64url_encode(std::string("\xfb\xff\xfe", 3)), "-__-");
    EXPECT_EQ(b64url_decode("-__-"), std::string("\xfb\xff\xfe", 3));
}

TEST(CryptoB64url, DecodesWhatItEncodes) {
    std::string all;
    for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
    for (size_t n = 0; n <= all.size(); n += 7) {
        auto s = all.substr(0, n);
        EXPECT_EQ(b64url_decode(b64url_encode(s)), s) << n;
    }
}

TEST(CryptoB64url, RejectsStandardAlphabetPaddingAndWhitespace) {
    EXPECT_FALSE(b64url_decode("+/+/"));
    EXPECT_FALSE(b64url_decode("Zg=="));
    EXPECT_FALSE(b64url_decode("Zg="));
    EXPECT_FALSE(b64url_decode("Zm9v "));
    EXPECT_FALSE(b64url_decode("Zm\n9v"));
    EXPECT_FALSE(b64url_decode(std::string("Zm\0v", 4)));
    EXPECT_FALSE(b64url_decode("Zm9\xc3\xa9"));
}

TEST(CryptoB64url, RejectsLengthOneModFour) {
    EXPECT_FALSE(b64url_decode("A"));
    EXPECT_FALSE(b64url_decode("AAAAA"));
    EXPECT_EQ(b64url_decode(""), std::string());
}

TEST(CryptoB64url, RejectsNonCanonicalTrailingBits) {
    EXPECT_EQ(b64url_decode("AA"), std::string(1, '\0'));
    EXPECT_TRUE(b64url_decode("AA").has_value());
    EXPECT_FALSE(b64url_decode("AF"));  // 4 unused bits, not zero
    // "AB" is 000000 000001: one byte 0x00 plus unused bits 0001, so it is refused.
    EXPECT_FALSE(b64url_decode("AB"));
    EXPECT_EQ(b64url_decode("AQ"), std::string(1, '\x01'));  // 0b010000: canonical
    EXPECT_FALSE(b64url_decode("AAB"));                      // 2 unused bits, not zero
    EXPECT_EQ(b64url_decode("AAE"), std::string("\x00\x01", 2));
    EXPECT_FALSE(b64url_decode("Zh"));  // canonical form of "f" is "Zg"
}

TEST(CryptoB64url, IsB64urlChecksAlphabetOnly) {
    EXPECT_TRUE(is_b64url("abcXYZ019-_"));
    EXPECT_TRUE(is_b64url("A"));  // length is not its concern
    EXPECT_TRUE(is_b64url(""));
    EXPECT_FALSE(is_b64url("ab+"));
    EXPECT_FALSE(is_b64url("ab/"));
    EXPECT_FALSE(is_b64url("ab="));
    EXPECT_FALSE(is_b64url("a b"));
}
