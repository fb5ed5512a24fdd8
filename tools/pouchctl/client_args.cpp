// client_args.cpp -- option parsing and stdin reading for the client subcommands
// (client_args.h); plain std:: only.
#include "tools/pouchctl/client_args.h"

#include <cstdio>
#include <iostream>
#include <iterator>

namespace pouchctl {

std::optional<ParsedArgs> parse_args(const char* cmd, const Args& args,
                                     const std::set<std::string>& known) {
    ParsedArgs out;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a.size() < 3 || a.compare(0, 2, "--") != 0) {
            out.positional.push_back(a);
            continue;
        }
        std::string name = a.substr(2), value;
        bool has_value = false;
        if (auto eq = name.find('='); eq != std::string::npos) {
            value = name.substr(eq + 1);
            name.resize(eq);
            has_value = true;
        }
        if (!known.count(name)) {
            std::fprintf(stderr, "pouchctl %s: unknown option --%s\n", cmd, name.c_str());
            return std::nullopt;
        }
        if (!has_value) {
            if (i + 1 >= args.size()) {
                std::fprintf(stderr, "pouchctl %s: --%s needs a value\n", cmd, name.c_str());
                return std::nullopt;
            }
            value = args[++i];
        }
        if (!out.opts.emplace(name, value).second) {
            std::fprintf(stderr, "pouchctl %s: --%s given twice\n", cmd, name.c_str());
            return std::nullopt;
        }
    }
    return out;
}

bool read_stdin(std::string& out) {
    std::ios::sync_with_stdio(false);
    out.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return !std::cin.bad();
}

}  // namespace pouchctl
