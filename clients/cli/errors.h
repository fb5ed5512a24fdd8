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
    kExitIntegrity = 5,      // the roster, its pin, the approval or a key generation (rollback)
    kExitLoginRefused = 6,   // the login was denied in the browser or expired
    kExitSkipped = 7,        // done, but some items were skipped (reported, retried next time)
    kExitInterrupted = 130,  // SIGINT / SIGTERM
};

struct CliError : std::runtime_error {
    int code;
    CliError(int code, const std::string& message) : std::runtime_error(message), code(code) {}
};

// One item (a file, an artifact) cannot be applied or sent -- a symlink or a file where a
// directory belongs on its path, a name that is not a safe relative path, permission denied,
// a key this device lacks, a revision refused as untrusted, a write the pouch holds -- while
// the rest of the folder can. The sync reports it, remembers a remote one (the folder state's
// skipped items), goes on with the others, and the command ends with kExitSkipped. Trust
// failures of the whole account (roster, pin, rollback) are CliError kExitIntegrity instead.
struct ItemSkipped : CliError {
    explicit ItemSkipped(const std::string& message) : CliError(kExitSkipped, message) {}
};

// This device was never given the pouch key of a generation (an approval that sealed only the
// newest one, say): a revision under it cannot be read here, the rest of the pouch can; when
// it is the pouch's current generation, a push writes nothing to the pouch (SyncEngine::
// may_write).
struct MissingKey : ItemSkipped {
    using ItemSkipped::ItemSkipped;
};

}  // namespace pouch::cli
