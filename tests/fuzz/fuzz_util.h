// fuzz_util.h -- helpers shared by the libFuzzer targets in tests/fuzz/: an invariant check
// that aborts (so libFuzzer saves the input) with a message, and the expected-error test.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/http/error.h"

namespace pouch::fuzz {

// Aborts with `what` when `ok` is false: a broken invariant is a finding, like a crash.
inline void require(bool ok, const char* what) {
    if (ok) return;
    std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
    std::abort();
}

// An Error thrown on hostile input must be a client error with a code, never a 5xx.
inline void require_client_error(const Error& e, int status, const char* code) {
    if (http::status_of(e.fault) == status && e.code == code) return;
    std::fprintf(stderr, "unexpected Error %d %.*s: %s (expected %d %s)\n",
                 http::status_of(e.fault), static_cast<int>(e.code.size()), e.code.data(),
                 e.message.c_str(), status, code);
    std::abort();
}

}  // namespace pouch::fuzz
