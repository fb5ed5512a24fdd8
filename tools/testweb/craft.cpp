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
    fmt::Roster r = w.roster();
    auto keys = w.keys(r);
    auto pouch = w.must("GET", "/v1/pouches/" + w.st.pouch_id);
    long long gen = jint(pouch.data(), "key_gen");
    std::string key = keys.at(w.st.pouch_id).at(gen);

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
    std::string revision = crypto::uuid_v4();
    fmt::RevisionIds ids{w.st.pouch_id, artifact, revision, gen};
    std::string env = fmt::seal_envelope(key, ids, c);
    pouch::json::Out op;
    op.kv("type", "put").kv("artifact_id", artifact).kv("revision_id", revision);
    op.kv_null("base_revision_id").kv_null("merge_parent_id");
    op.kv("name_index", fmt::name_index(key, c.name)).kv_null("conflict_id");
    op.kv("key_gen", gen).kv("envelope", env);
    op.kv("signature", fmt::sign_revision(w.sign_key(), ids, env));
    op.kv("signer_member_id", w.st.member_id).key("blob_ids").arr().end_arr();
    pouch::json::Out body;
    body.kv("operation_id", crypto::uuid_v4()).kv("epoch", jstr(pouch.data(), "epoch"));
    body.key("ops").arr().raw(op.done()).end_arr();
    auto ans = w.must("POST", "/v1/pouches/" + w.st.pouch_id + "/operations", body.done());
    std::string status = jstr(ans.data()["results"][0], "status");
    if (status != "applied") throw CliError(1, "craft: " + status);
    std::printf("%s\n", artifact.c_str());
    return 0;
}

}  // namespace testweb
