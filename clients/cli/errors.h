// errors.h -- how `pouch` fails: one exception type carrying the documented exit code and a
// message for people (docs/CLI.md "Exit codes"); main() prints it once and exits with it.
#pragma once

#include <stdexcept>
#include <string>

namespace pouch::cli {

enum ExitCode : int {
    kExitOk = 0,
    kExitFailure = 1,        // anything not listed below
    kExitUsage = 2,          // bad command line
    kExitNeedLogin = 3,      // not logged in, revoked, or the session ended: run `pouch login`
    kExitUnreachable = 4,    // the server cannot be reached or keeps answering 5xx
    kExitIntegrity = 5,      // a roster, signature, key envelope or envelope did not verify
    kExitLoginRefused = 6,   // the login was denied in the browser or expired
    kExitInterrupted = 130,  // SIGINT / SIGTERM
};

struct CliError : std::runtime_error {
    int code;
    CliError(int code, const std::string& message) : std::runtime_error(message), code(code) {}
};

// This device was never given the pouch key a revision needs (an approval that sealed only
// the newest generation, say): that file cannot be read here, the rest of the pouch can.
struct MissingKey : CliError {
    using CliError::CliError;
};

}  // namespace pouch::cli
