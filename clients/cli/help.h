// help.h -- the one source of `pouch`'s documentation: every command's synopsis, options and
// description, printed by `--help`, and turned into the man page docs/pouch.1 by
// `pouch help --man` (so the two cannot drift; the CLI suite checks the committed page).
#pragma once

#include <string>
#include <vector>

namespace pouch::cli {

struct OptionDoc {
    std::string flag;  // "--server URL"
    std::string text;
};

struct CommandDoc {
    std::string name;
    std::string synopsis;  // after "pouch "
    std::string summary;   // one line
    std::string description;
    std::vector<OptionDoc> options;
};

const std::vector<CommandDoc>& command_docs();
const CommandDoc* find_command_doc(const std::string& name);

std::string overview_help();                    // `pouch --help`
std::string command_help(const CommandDoc& c);  // `pouch CMD --help`
std::string man_page();                         // roff for docs/pouch.1

}  // namespace pouch::cli
