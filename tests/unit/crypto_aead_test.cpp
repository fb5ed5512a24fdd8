// crypto_aead_test.cpp -- aes_gcm_seal's prefix: the same bytes as the prefix followed by the
// sealing without one, and they open (after the prefix) as any sealing does.
#include <string>

#include <gtest/gtest.h>

#include "common/crypto/aead.h"

using namespace pouch::crypto;

TEST(CryptoAead, SealWithAPrefixIsThePrefixThenTheSameSealing) {
    const std::string key(32, '\x42'), nonce("0123456789ab"), aad("pouch/chunk/v1");
    std::string plaintext;
    for (int i = 0; i < 100000; ++i) plaintext += static_cast<char>(i * 7 + i / 256);
    const std::string plain = aes_gcm_seal(key, nonce, aad, plaintext);
    ASSERT_EQ(plain.size(), plaintext.size() + kGcmTagSize);
    const std::string with = aes_gcm_seal(key, nonce, aad, plaintext, nonce);
    EXPECT_EQ(with, nonce + plain);
    EXPECT_EQ(aes_gcm_open(key, nonce, aad, std::string_view(with).substr(nonce.size())),
              plaintext);
    // An empty plaintext: the prefix and the tag only.
    EXPECT_EQ(aes_gcm_seal(key, nonce, aad, "", "xyz"), "xyz" + aes_gcm_seal(key, nonce, aad, ""));
}
