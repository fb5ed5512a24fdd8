// client_args.h -- the small option parser shared by the client subcommands:
// `--name VALUE` options (also `--name=VALUE`) and positional arguments.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tools/pouchctl/commands.h"

namespace pouchctl {

struct ParsedArgs {
    std::map<std::string, std::string> opts;  // without the leading "--"
    std::vector<std::string> positional;

    std::optional<std::string> get(const std::string& name) const {
        auto it = opts.find(name);
        if (it == opts.end()) return std::nullopt;
        return it->second;
    }
};

// Every option takes a value and must be in `known`; a repeated or unknown option, or
// one missing its value, prints a message naming `cmd` and returns nullopt (exit 2).
std::optional<ParsedArgs> parse_args(const char* cmd, const Args& args,
                                     const std::set<std::string>& known);

// Reads the whole of stdin; false on a read error.
bool read_stdin(std::string& out);

}  // namespace pouchctl
