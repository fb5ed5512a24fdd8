// cli_keys_test.cpp -- the CLI's keys.json (clients/cli/config.h): version 2 keeps each key's
// creator and the pouch's highest generation and round-trips; version 1 (keys only) is read
// with no creator and its highest generation as the high-water mark; damage is a CliError.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "clients/cli/config.h"
#include "clients/cli/errors.h"
#include "common/crypto/b64url.h"
#include "common/crypto/random.h"
#include "tests/unit/cli_test_dir.h"

using namespace pouch;
using namespace pouch::cli;

namespace {

using ConfigDir = pouch::testing::TempDir;

}  // namespace

TEST(CliKeysJson, Version2RoundTripsKeysCreatorsAndTheHighWaterMark) {
    ConfigDir dir;
    Config cfg(dir.path);
    std::string pouch = crypto::uuid_v4(), creator = crypto::uuid_v4();
    Keyring k;
    k[pouch].gens[1] = {crypto::random_bytes(32), creator};
    k[pouch].gens[3] = {crypto::random_bytes(32), creator};
    k[pouch].high = 5;  // a key above the ones held was dropped: the mark stays
    cfg.save_keys(k);
    Keyring back = cfg.load_keys();
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[pouch].high, 5);
    ASSERT_EQ(back[pouch].gens.size(), 2u);
    EXPECT_EQ(back[pouch].gens[1].key, k[pouch].gens[1].key);
    EXPECT_EQ(back[pouch].gens[3].creator, creator);
}

TEST(CliKeysJson, Version1IsReadWithoutCreatorsAndItsHighestGenerationAsTheMark) {
    ConfigDir dir;
    std::string pouch = crypto::uuid_v4();
    std::string k1 = crypto::random_bytes(32), k4 = crypto::random_bytes(32);
    dir.write("keys.json", R"({"v":1,"pouches":{")" + pouch + R"(":{"1":")" +
                               crypto::b64url_encode(k1) + R"(","4":")" +
                               crypto::b64url_encode(k4) + R"("}}})");
    Keyring k = Config(dir.path).load_keys();
    EXPECT_EQ(k[pouch].high, 4);
    EXPECT_EQ(k[pouch].gens[1].key, k1);
    EXPECT_EQ(k[pouch].gens[4].key, k4);
    EXPECT_EQ(k[pouch].gens[4].creator, "");  // to be checked again before use
}

TEST(CliKeysJson, TheHighWaterMarkIsNeverBelowAKeyHeld) {
    ConfigDir dir;
    std::string pouch = crypto::uuid_v4();
    dir.write("keys.json", R"({"v":2,"pouches":[{"id":")" + pouch +
                               R"(","high":1,"keys":[{"key_gen":3,"key":")" +
                               crypto::b64url_encode(crypto::random_bytes(32)) +
                               R"(","creator":""}]}]})");
    EXPECT_EQ(Config(dir.path).load_keys()[pouch].high, 3);
}

TEST(CliKeysJson, ADamagedFileIsACliError) {
    ConfigDir dir;
    std::string pouch = crypto::uuid_v4();
    for (const std::string& bad :
         {std::string("not json"), std::string(R"({"v":3,"pouches":[]})"),
          R"({"v":2,"pouches":[{"id":")" + pouch +
              R"(","high":1,"keys":[{"key_gen":1,"key":"c2hvcnQ","creator":""}]}]})",
          R"({"v":1,"pouches":{")" + pouch + R"(":{"x":"AAAA"}}})"}) {
        dir.write("keys.json", bad);
        try {
            Config(dir.path).load_keys();
            ADD_FAILURE() << "accepted: " << bad;
        } catch (const CliError& e) {
            EXPECT_EQ(e.code, kExitFailure);
            EXPECT_NE(std::string(e.what()).find("keys.json is damaged"), std::string::npos);
        }
    }
}

TEST(CliKeysJson, ManyPouchesAndGenerationsAreNotLimitedByTheParsersMemberBudget) {
    ConfigDir dir;
    Config cfg(dir.path);
    Keyring k;
    std::string key = crypto::random_bytes(32), creator = crypto::uuid_v4();
    for (int p = 0; p < 1100; ++p) k[crypto::uuid_v4()].gens[1] = {key, creator};
    std::string big = crypto::uuid_v4();
    for (long long g = 1; g <= 1100; ++g) k[big].gens[g] = {key, creator};
    k[big].high = 1100;
    cfg.save_keys(k);
    Keyring back = cfg.load_keys();
    EXPECT_EQ(back.size(), 1101u);
    EXPECT_EQ(back[big].gens.size(), 1100u);
}
