// test_env.h -- the real PostgreSQL and Redis a unit test may use, named by the environment
// `make test` sets (POUCH_TEST_DATABASE_URL, POUCH_TEST_REDIS_URL); without them the test is
// skipped, never faked.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace pouch::testing {

inline std::string env_url(const char* name) {
    const char* u = std::getenv(name);
    return u && *u ? u : "";
}

}  // namespace pouch::testing

// Declare `url` for the test body, or skip the test.
#define REQUIRE_SERVICE_URL(var)                                      \
    const std::string url = ::pouch::testing::env_url(var);           \
    if (url.empty()) GTEST_SKIP() << var " is not set"
#define REQUIRE_DB() REQUIRE_SERVICE_URL("POUCH_TEST_DATABASE_URL")
#define REQUIRE_REDIS() REQUIRE_SERVICE_URL("POUCH_TEST_REDIS_URL")
