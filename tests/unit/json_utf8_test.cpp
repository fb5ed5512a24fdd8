// json_utf8_test.cpp -- utf8_valid (common/json/utf8.h), around its eight-bytes-at-a-time
// ASCII path: a bad byte, a surrogate or a split sequence is found at every offset, and a
// valid multi-byte character is accepted wherever it falls against the 8-byte words.
#include <gtest/gtest.h>

#include <string>

#include "common/json/utf8.h"

using pouch::json::all_ascii;
using pouch::json::utf8_length;
using pouch::json::utf8_valid;

TEST(JsonUtf8, EveryOffsetIsChecked) {
    const std::string ascii(24, 'a');
    EXPECT_TRUE(utf8_valid(ascii));
    for (size_t at = 0; at < ascii.size(); ++at) {
        std::string bad = ascii;
        bad[at] = static_cast<char>(0xFF);
        EXPECT_FALSE(utf8_valid(bad)) << "0xFF at " << at;
        std::string surrogate = ascii;
        surrogate.insert(at, "\xED\xA0\x80");  // U+D800
        EXPECT_FALSE(utf8_valid(surrogate)) << "surrogate at " << at;
        std::string split = ascii.substr(0, at) + "\xE2\x82";  // euro sign without its end
        EXPECT_FALSE(utf8_valid(split)) << "cut sequence at " << at;
        std::string good = ascii;
        good.insert(at, "\xE2\x82\xAC\xF0\x9F\x98\x80");  // U+20AC U+1F600
        EXPECT_TRUE(utf8_valid(good)) << "valid at " << at;
    }
}

TEST(JsonUtf8, LengthAndAsciiAtEveryOffset) {
    const std::string ascii(24, 'a');
    EXPECT_EQ(utf8_length(ascii), 24u);
    EXPECT_TRUE(all_ascii(ascii));
    for (size_t at = 0; at <= ascii.size(); ++at) {
        std::string s = ascii;
        s.insert(at, "\xE2\x82\xAC\xF0\x9F\x98\x80");  // two characters in seven bytes
        EXPECT_EQ(utf8_length(s), 26u) << at;
        EXPECT_FALSE(all_ascii(s)) << at;
        std::string one = ascii;
        if (at < one.size()) {
            one[at] = static_cast<char>(0x80);
            EXPECT_FALSE(all_ascii(one)) << at;
        }
    }
}
