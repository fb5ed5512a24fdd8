// wait.h -- `pouch-loadgen wait` (wait.cpp): many devices long-polling events, woken by
// commits; and the web commit request it (and roundtrip) sends.
#pragma once

#include <string>

namespace loadgen {

int wait_main(int argc, char** argv);

// A raw HTTP request: a web commit (Bearer token) of one new put to `pouch`.
std::string web_put_request(const std::string& host, const std::string& token,
                            const std::string& pouch, const std::string& epoch,
                            const std::string& member);

}  // namespace loadgen
