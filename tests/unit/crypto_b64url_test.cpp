// crypto_b64url_test.cpp -- strict base64url: RFC 4648 vectors, and every malformed input
// class (alphabet, padding, impossible length, non-canonical trailing bits) refused.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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

// The encoder writes two characters per 12 bits from a table: every 12-bit value, in both
// halves of a group, against a bit-by-bit encoding.
TEST(CryptoB64url, EncodesEveryTwelveBitValueAsABitByBitEncoder) {
    static constexpr char kAlphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    std::string in, want;
    for (uint32_t v = 0; v < 4096; ++v) {
        uint32_t group = v << 12 | (v ^ 0xA5Cu);
        in += static_cast<char>(group >> 16);
        in += static_cast<char>(group >> 8 & 0xFF);
        in += static_cast<char>(group & 0xFF);
        for (int shift = 18; shift >= 0; shift -= 6) want += kAlphabet[group >> shift & 63];
    }
    EXPECT_EQ(b64url_encode(in), want);
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

// --- the table-driven decoder against a plain one, on every input class (issue 25) -------------

namespace {

// A reference decoder written for clarity: six bits at a time, the same rules (alphabet,
// no length 4k+1, unused bits zero).
std::optional<std::string> plain_decode(std::string_view text) {
    static const std::string alphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    if (text.size() % 4 == 1) return std::nullopt;
    std::string out;
    uint32_t acc = 0;
    int bits = 0;
    for (char c : text) {
        size_t v = alphabet.find(c);
        if (c == '\0' || v == std::string::npos) return std::nullopt;
        acc = (acc << 6 | static_cast<uint32_t>(v)) & 0xFFFFFF;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>(acc >> bits & 0xFF);
        }
    }
    if (bits > 0 && (acc & ((1u << bits) - 1)) != 0) return std::nullopt;
    return out;
}

// Both decoders and b64url_decoded_size agree on `text`.
void expect_same(const std::string& text) {
    auto want = plain_decode(text);
    auto got = b64url_decode(text);
    ASSERT_EQ(got, want) << "input of " << text.size() << " bytes: " << text;
    ASSERT_EQ(b64url_decoded_size(text), want ? std::optional<size_t>(want->size()) : std::nullopt)
        << text;
}

}  // namespace

TEST(CryptoB64url, EveryTextOfAtMostTwoBytesDecodesAsThePlainDecoder) {
    expect_same("");
    for (int a = 0; a < 256; ++a) {
        expect_same(std::string(1, static_cast<char>(a)));
        for (int b = 0; b < 256; ++b)
            expect_same(std::string{static_cast<char>(a), static_cast<char>(b)});
    }
}

TEST(CryptoB64url, EveryTailOfThreeAndFourCharactersDecodesAsThePlainDecoder) {
    // The alphabet and its neighbours, padding, the standard alphabet's two, NUL, high bytes.
    std::string chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    chars += std::string("=+/ .\n@[`{~\x7f\x80\xc3\xff", 16) + std::string(1, '\0');
    std::string few = "AEQZgw_-=+/\xff" + std::string(1, '\0');
    for (char a : chars)
        for (char b : chars)
            for (char c : chars) {
                expect_same(std::string{a, b, c});
                expect_same("Zm9v" + std::string{a, b, c});  // after a whole group
            }
    for (char a : few)
        for (char b : few)
            for (char c : few)
                for (char d : few) expect_same("QUJD" + std::string{a, b, c, d} + "Zg");
}

TEST(CryptoB64url, ABadByteAnywhereInALongTextIsRefusedAsByThePlainDecoder) {
    std::string bytes;
    for (int i = 0; i < 700; ++i) bytes += static_cast<char>(i * 37 + 11);
    for (size_t n : {0u, 1u, 2u, 3u, 47u, 48u, 49u, 300u, 700u}) {
        std::string good = b64url_encode(bytes.substr(0, n));
        expect_same(good);
        for (size_t at = 0; at<good.size(); at += good.size()> 64 ? 13 : 1)
            for (int c = 0; c < 256; ++c) {
                std::string t = good;
                t[at] = static_cast<char>(c);
                expect_same(t);
            }
        expect_same(good + "=");
        expect_same(good + "==");
        expect_same(good + "A");
    }
}

TEST(CryptoB64url, IsB64urlAgreesWithTheAlphabetForEveryByteAtEveryPlaceOfARun) {
    const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    std::string good;
    for (int i = 0; i < 40; ++i) good += alphabet[(i * 7) % 64];
    EXPECT_TRUE(is_b64url(good));
    for (size_t at : {0u, 1u, 15u, 16u, 17u, 31u, 32u, 39u})
        for (int c = 0; c < 256; ++c) {
            std::string t = good;
            t[at] = static_cast<char>(c);
            bool want = c != 0 && alphabet.find(static_cast<char>(c)) != std::string::npos;
            EXPECT_EQ(is_b64url(t), want) << "byte " << c << " at " << at;
        }
}
