// args.h -- the command line of `pouch`: options that take a value (--server URL), flags
// (--json) and positional arguments, checked against what the command accepts.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace pouch::cli {

struct Args {
    std::string command;
    std::map<std::string, std::string> opts;  // without "--"
    std::set<std::string> flags;
    std::vector<std::string> positional;

    std::optional<std::string> get(const std::string& name) const;
    bool flag(const std::string& name) const { return flags.count(name) > 0; }
};

// argv after the program name. `--config DIR`, `--ca-file PATH` and `--help` are accepted by
// every command.
// Throws CliError kExitUsage naming the problem.
Args parse_args(const std::vector<std::string>& argv, const std::set<std::string>& value_opts,
                const std::set<std::string>& flag_opts);

}  // namespace pouch::cli
