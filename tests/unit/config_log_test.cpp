// config_log_test.cpp -- configuration from the environment (decisions §10: a malformed
// value fails at start, naming the variable) and the JSON-lines log format.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "common/config/config.h"
#include "common/json/parse.h"
#include "common/log/log.h"
#include "tests/unit/stderr_capture.h"

namespace pouch {
namespace {

class Env : public ::testing::Test {
  protected:
    void TearDown() override {
        for (const char* v : {"POUCH_THREADS", "POUCH_DB_POOL", "POUCH_PUBLIC_URL", "POUCH_WEB_URL",
                              "POUCH_LOG_LEVEL", "POUCH_LOGIN_TTL"})
            ::unsetenv(v);
    }
};

TEST_F(Env, DefaultsWithoutVariables) {
    config::Config c = config::Config::from_env();
    EXPECT_EQ(c.threads, 16);
    EXPECT_EQ(c.db_pool, 8);
    EXPECT_EQ(c.login_ttl_seconds, 600);
    EXPECT_EQ(c.log_level, "info");
}

TEST_F(Env, ReadsNumbersAndStripsTrailingSlashFromUrls) {
    ::setenv("POUCH_THREADS", "64", 1);
    ::setenv("POUCH_LOGIN_TTL", "2", 1);
    ::setenv("POUCH_PUBLIC_URL", "https://sync.example.com/", 1);
    config::Config c = config::Config::from_env();
    EXPECT_EQ(c.threads, 64);
    EXPECT_EQ(c.login_ttl_seconds, 2);
    EXPECT_EQ(c.public_url, "https://sync.example.com");
}

TEST_F(Env, MalformedNumberNamesTheVariable) {
    for (const char* bad : {"abc", "12x", "0", "5000", ""}) {
        ::setenv("POUCH_DB_POOL", bad, 1);
        if (*bad == '\0') {
            EXPECT_NO_THROW(config::Config::from_env());  // empty means unset
            continue;
        }
        try {
            config::Config::from_env();
            ADD_FAILURE() << "accepted POUCH_DB_POOL=" << bad;
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("POUCH_DB_POOL"), std::string::npos);
        }
    }
}

// The public origin (DPoP htu, the approval link) must be a whole http(s) origin: anything
// else would refuse every proof, so it fails at start naming the variable.
TEST_F(Env, PublicAndWebUrlMustBeHttpOrHttpsOrigins) {
    for (const char* good :
         {"https://sync.example.com", "http://127.0.0.1:8080", "https://example.com:8443/pouch/"}) {
        ::setenv("POUCH_PUBLIC_URL", good, 1);
        ::setenv("POUCH_WEB_URL", good, 1);
        EXPECT_NO_THROW(config::Config::from_env()) << good;
    }
    for (const char* var : {"POUCH_PUBLIC_URL", "POUCH_WEB_URL"}) {
        for (const char* bad :
             {"sync.example.com", "ftp://sync.example.com", "https://", "https:///x",
              "https://sync.example.com/?a=1", "https://sync.example.com/#f",
              "https://user@sync.example.com", "https://sync example.com"}) {
            ::unsetenv("POUCH_PUBLIC_URL");
            ::unsetenv("POUCH_WEB_URL");
            ::setenv(var, bad, 1);
            try {
                config::Config::from_env();
                ADD_FAILURE() << "accepted " << var << "=" << bad;
            } catch (const std::runtime_error& e) {
                EXPECT_NE(std::string(e.what()).find(var), std::string::npos) << e.what();
            }
        }
    }
}

TEST_F(Env, UnknownLogLevelIsRefused) {
    ::setenv("POUCH_LOG_LEVEL", "verbose", 1);
    EXPECT_THROW(config::Config::from_env(), std::runtime_error);
}

using pouch::testing::capture_stderr;

TEST(Log, OneJsonObjectPerLineWithFieldsInOrder) {
    std::string out = capture_stderr([] {
        log::init("sync", "info");
        log::info("request", {{"request_id", "abc"}, {"status", 201}, {"path", "/v1/\"x\""}});
    });
    ASSERT_FALSE(out.empty());
    EXPECT_EQ(out.back(), '\n');
    EXPECT_EQ(out.find('\n'), out.size() - 1);
    auto doc = json::parse_strict(out.substr(0, out.size() - 1));
    EXPECT_STREQ(doc["level"].GetString(), "info");
    EXPECT_STREQ(doc["group"].GetString(), "sync");
    EXPECT_STREQ(doc["msg"].GetString(), "request");
    EXPECT_STREQ(doc["request_id"].GetString(), "abc");
    EXPECT_EQ(doc["status"].GetInt(), 201);
    EXPECT_STREQ(doc["path"].GetString(), "/v1/\"x\"");
    EXPECT_TRUE(doc["ts"].IsString());
}

TEST(Log, LinesBelowTheLevelAreDropped) {
    std::string out = capture_stderr([] {
        log::init("sync", "warn");
        log::info("hidden");
        log::warn("shown");
    });
    EXPECT_EQ(out.find("hidden"), std::string::npos);
    EXPECT_NE(out.find("shown"), std::string::npos);
}

}  // namespace
}  // namespace pouch
