// args.cpp -- command-line parsing for `pouch` (args.h).
#include "clients/cli/args.h"

#include "clients/cli/errors.h"

namespace pouch::cli {

std::optional<std::string> Args::get(const std::string& name) const {
    auto it = opts.find(name);
    if (it == opts.end()) return std::nullopt;
    return it->second;
}

Args parse_args(const std::vector<std::string>& argv, const std::set<std::string>& value_opts,
                const std::set<std::string>& flag_opts) {
    Args a;
    bool only_positional = false;
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& s = argv[i];
        if (only_positional || s.size() < 3 || s.compare(0, 2, "--") != 0) {
            if (s == "--" && !only_positional) {
                only_positional = true;
                continue;
            }
            a.positional.push_back(s);
            continue;
        }
        std::string name = s.substr(2), value;
        bool has_value = false;
        if (auto eq = name.find('='); eq != std::string::npos) {
            value = name.substr(eq + 1);
            name.resize(eq);
            has_value = true;
        }
        if (flag_opts.count(name) || name == "help") {
            if (has_value) throw CliError(kExitUsage, "--" + name + " takes no value");
            a.flags.insert(name);
            continue;
        }
        if (!value_opts.count(name) && name != "config" && name != "ca-file")
            throw CliError(kExitUsage, "unknown option --" + name);
        if (!has_value) {
            if (i + 1 >= argv.size()) throw CliError(kExitUsage, "--" + name + " needs a value");
            value = argv[++i];
        }
        if (!a.opts.emplace(name, value).second)
            throw CliError(kExitUsage, "--" + name + " given twice");
    }
    return a;
}

}  // namespace pouch::cli
