// main.cpp -- `pouch`, the reference CLI of Pouch Sync (docs/CLI.md): dispatches to one
// function per command (session.h), prints --help and the man page from help.h, and turns
// every CliError into its message on stderr and its documented exit code.
#include <malloc.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "clients/cli/args.h"
#include "clients/cli/errors.h"
#include "clients/cli/help.h"
#include "clients/cli/session.h"
#include "clients/cli/terminal_text.h"
#include "clients/cli/version.h"

using namespace pouch::cli;

namespace {

struct Command {
    const char* name;
    int (*fn)(const Args&);
    std::set<std::string> values, flags;
};

const Command kCommands[] = {
    {"login", cmd_login, {"server", "name", "connect-token"}, {"insecure-http"}},
    {"logout", cmd_logout, {}, {"local"}},
    {"status", cmd_status, {}, {"json"}},
    {"devices", cmd_devices, {}, {"json"}},
    {"rename", cmd_rename, {}, {}},
    {"ls", cmd_ls, {}, {"json", "deleted"}},
    {"push", cmd_push, {"pouch"}, {}},
    {"pull", cmd_pull, {"pouch"}, {"watch"}},
    {"sync", cmd_sync, {"pouch"}, {"watch"}},
    {"shared", cmd_shared, {}, {"json"}},
    {"invitations", cmd_invitations, {}, {"json"}},
    {"members", cmd_members, {}, {"json"}},
    {"verify", cmd_verify, {}, {"compared", "accept-new", "json"}},
};

int help(const std::vector<std::string>& rest) {
    Args a = parse_args(rest, {}, {"man"});
    if (a.flag("man")) {
        std::fputs(man_page().c_str(), stdout);
        return kExitOk;
    }
    if (a.flag("help")) {
        std::fputs(command_help(*find_command_doc("help")).c_str(), stdout);
        return kExitOk;
    }
    if (a.positional.empty()) {
        std::fputs(overview_help().c_str(), stdout);
        return kExitOk;
    }
    const CommandDoc* d = find_command_doc(a.positional[0]);
    if (!d) throw CliError(kExitUsage, "no command " + a.positional[0]);
    std::fputs(command_help(*d).c_str(), stdout);
    return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
    // A sync allocates and frees a buffer of about 4 MiB per blob and per page of revisions
    // (the body, its document, the decrypted chunk). glibc maps each such block afresh, or gives
    // the top of the heap back once more than twice its adapted threshold is free, so every
    // one was faulted in again page by page: 100,000-300,000 minor faults and about 0.3-0.45 s
    // of system time in a pull of 1 GiB. Kept in the heap (mapped only from 32 MiB, the top given
    // back from 64 MiB free) they are reused: about 15,000 faults.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    std::vector<std::string> args(argv + 1, argv + argc);
    try {
        if (args.empty()) {
            std::fputs(overview_help().c_str(), stderr);
            return kExitUsage;
        }
        std::string cmd = args[0];
        std::vector<std::string> rest(args.begin() + 1, args.end());
        if (cmd == "--help" || cmd == "-h" || cmd == "help") return help(rest);
        if (cmd == "--version") {
            std::printf("pouch %s\n", kPouchVersion);
            return kExitOk;
        }
        for (const auto& c : kCommands) {
            if (cmd != c.name) continue;
            Args a = parse_args(rest, c.values, c.flags);
            a.command = cmd;
            if (a.flag("help")) {
                std::fputs(command_help(*find_command_doc(cmd)).c_str(), stdout);
                return kExitOk;
            }
            return c.fn(a);
        }
        throw CliError(kExitUsage, "unknown command '" + cmd + "' (pouch --help lists them)");
    } catch (const CliError& e) {
        std::fprintf(stderr, "pouch: %s\n", defang(e.what()).c_str());  // may quote the server
        return e.code;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pouch: %s\n", defang(e.what()).c_str());
        return kExitFailure;
    }
}
