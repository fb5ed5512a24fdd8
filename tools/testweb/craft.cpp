// craft.cpp -- pouch-testweb craft: a member of the account that writes what no reference
// client would -- any name (`../x`, `lnk/x`, `a/x` where another device has a file `a`), any
// mode (0777, 04755), a folder artifact -- correctly signed and sealed, so the CLI suite can
// check that the CLI keeps such items out of the folder, skips them and goes on.
//   pouch-testweb craft --state DIR NAME [--data TEXT] [--mode OCTAL] [--kind file|folder]
#include <cstdio>
#include <cstdlib>

#include "clients/cli/args.h"
#include "clients/cli/errors.h"
#include "common/clientfmt/artifact.h"
#include "common/crypto/b64url.h"
#include "common/crypto/random.h"
#include "common/json/out.h"
#include "tools/testweb/web.h"

namespace testweb {

namespace fmt = pouch::clientfmt;
namespace crypto = pouch::crypto;
using pouch::cli::CliError;
using pouch::cli::jint;
using pouch::cli::jstr;

int cmd_craft(const Args& argv) {
    auto a = pouch::cli::parse_args(argv, {"state", "data", "mode", "kind"}, {});
    if (a.positional.size() != 1 || !a.get("state"))
        throw CliError(2, "usage: craft --state DIR NAME [--data TEXT] [--mode OCTAL] [--kind K]");
    Web w(WebState::load(*a.get("state")));
    WriteKey k = current_write_key(w, w.keys(w.roster()));
    fmt::Content c;
    c.name = a.positional[0];  // as given: not checked, not normalised
    c.kind = a.get("kind").value_or("file");
    c.mtime = fmt::now_unix() * 1000;
    if (auto m = a.get("mode")) c.mode = std::strtoll(m->c_str(), nullptr, 8);
    if (c.kind != "folder") {
        std::string bytes = a.get("data").value_or("");
        if (static_cast<long long>(bytes.size()) > fmt::kInlineMax)
            throw CliError(2, "--data holds at most 65,536 bytes (inline)");
        c.size = static_cast<long long>(bytes.size());
        c.data = crypto::b64url_encode(bytes);
    }
    std::string artifact = crypto::uuid_v4();
    commit_put(w, k, c, artifact, std::nullopt, {}, "craft");
    std::printf("%s\n", artifact.c_str());
    return 0;
}

}  // namespace testweb
