// files.cpp -- pouch-testweb put and get: a file written and read by the browser member in
// the client format (inline data or chunks through blob check and upload), so the CLI suite
// can check that what one client writes the other opens.
#include <cstdio>

#include "clients/cli/args.h"
#include "clients/cli/errors.h"
#include "clients/cli/files.h"
#include "common/clientfmt/artifact.h"
#include "common/clientfmt/chunk.h"
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

namespace {

struct Found {
    std::string artifact_id, revision_id;
    fmt::Content content;
};

// The live artifact named `name` (the first listed), decrypted and verified against the
// roster; every head of the pouch must verify.
std::optional<Found> find(Web& w, const PouchKeyMap& keys, const fmt::Roster& r,
                          const std::string& name) {
    std::optional<Found> found;
    w.list(
        "/v1/pouches/" + w.st.pouch_id + "/artifacts", "",
        [&](const rapidjson::Value& it) {
            const auto& h = it["head"];
            fmt::RevisionIds ids{w.st.pouch_id, jstr(h, "artifact_id"), jstr(h, "id"),
                                 jint(h, "key_gen")};
            const fmt::Member* signer = r.find(jstr(h, "signer_member_id"));
            if (!signer || !signer->trusted_at(ids.key_gen) ||
                !fmt::verify_revision(signer->sign_pub, ids, jstr(h, "envelope"),
                                      jstr(h, "signature")))
                throw CliError(5, "a revision does not verify");
            fmt::Content c = fmt::open_envelope(keys.at(w.st.pouch_id).at(ids.key_gen), ids,
                                                jstr(h, "envelope"));
            if (!found && c.name == name && !c.deleted)
                found = Found{ids.artifact_id, ids.revision_id, c};
        },
        500);
    return found;
}

}  // namespace

WriteKey current_write_key(Web& w, const PouchKeyMap& keys) {
    auto pouch = w.must("GET", "/v1/pouches/" + w.st.pouch_id);
    WriteKey k;
    k.gen = jint(pouch.data(), "key_gen");
    k.key = keys.at(w.st.pouch_id).at(k.gen);
    k.epoch = jstr(pouch.data(), "epoch");
    return k;
}

void commit_put(Web& w, const WriteKey& k, const fmt::Content& c, const std::string& artifact,
                const std::optional<std::string>& base, const std::vector<std::string>& blob_ids,
                const std::string& what) {
    std::string revision = crypto::uuid_v4();
    fmt::RevisionIds ids{w.st.pouch_id, artifact, revision, k.gen};
    std::string env = fmt::seal_envelope(k.key, ids, c);
    pouch::json::Out op;
    op.kv("type", "put").kv("artifact_id", artifact).kv("revision_id", revision);
    op.kv("base_revision_id", base).kv_null("merge_parent_id");
    op.kv("name_index", fmt::name_index(k.key, c.name)).kv_null("conflict_id");
    op.kv("key_gen", k.gen).kv("envelope", env);
    op.kv("signature", fmt::sign_revision(w.sign_key(), ids, env));
    op.kv("signer_member_id", w.st.member_id).key("blob_ids").arr();
    for (const auto& b : blob_ids) op.str(b);
    op.end_arr();
    pouch::json::Out body;
    body.kv("operation_id", crypto::uuid_v4()).kv("epoch", k.epoch);
    body.key("ops").arr().raw(op.done()).end_arr();
    auto ans = w.must("POST", "/v1/pouches/" + w.st.pouch_id + "/operations", body.done());
    std::string status = jstr(ans.data()["results"][0], "status");
    if (status != "applied") throw CliError(1, what + ": " + status);
}

namespace {

// The chunks of a file over 64 KiB, each sealed, checked and uploaded when the service lacks it.
std::vector<fmt::ChunkRef> upload_chunks(Web& w, std::string_view bytes) {
    std::vector<fmt::ChunkRef> refs;
    for (size_t off = 0; off < bytes.size(); off += fmt::kChunkSize) {
        fmt::SealedChunk sc = fmt::seal_chunk(bytes.substr(off, fmt::kChunkSize));
        pouch::json::Out chk;
        chk.key("blobs").arr().obj().kv("id", sc.entry.blob_id);
        chk.kv("stored_size", static_cast<long long>(sc.stored.size())).end_obj().end_arr();
        auto m = w.must("POST", "/v1/pouches/" + w.st.pouch_id + "/blobs/check", chk.done());
        if (!m.data()["missing"].Empty()) {
            pouch::cli::CallOptions opt;
            opt.content_type = "application/octet-stream";
            auto up = w.call("PUT", "/v1/pouches/" + w.st.pouch_id + "/blobs/" + sc.entry.blob_id,
                             sc.stored, opt);
            if (!up.ok()) throw CliError(1, "upload: " + pouch::cli::describe(up));
        }
        refs.push_back(sc.entry);
    }
    return refs;
}

}  // namespace

int cmd_put(const Args& argv) {
    auto a = pouch::cli::parse_args(argv, {"state", "file"}, {});
    if (a.positional.size() != 1 || !a.get("file"))
        throw CliError(2, "usage: put --state DIR NAME --file PATH");
    Web w(WebState::load(*a.get("state")));
    fmt::Roster r = w.roster();
    auto keys = w.keys(r);
    WriteKey k = current_write_key(w, keys);
    auto bytes = pouch::cli::read_file(*a.get("file"));
    if (!bytes) throw CliError(1, "no file " + *a.get("file"));
    auto existing = find(w, keys, r, a.positional[0]);

    fmt::Content c;
    c.name = a.positional[0];
    c.kind = "file";
    c.size = static_cast<long long>(bytes->size());
    c.mtime = fmt::now_unix() * 1000;  // the web app sends no mode
    std::vector<std::string> blob_ids;
    if (c.size <= fmt::kInlineMax) {
        c.data = crypto::b64url_encode(*bytes);
    } else {
        c.chunks = upload_chunks(w, *bytes);
        for (const auto& ch : *c.chunks) blob_ids.push_back(ch.blob_id);
    }
    std::string artifact = existing ? existing->artifact_id : crypto::uuid_v4();
    commit_put(w, k, c, artifact,
               existing ? std::optional<std::string>(existing->revision_id) : std::nullopt,
               blob_ids, "put");
    std::printf("%s\n", artifact.c_str());
    return 0;
}

int cmd_get(const Args& argv) {
    auto a = pouch::cli::parse_args(argv, {"state"}, {});
    if (a.positional.size() != 1) throw CliError(2, "usage: get --state DIR NAME");
    Web w(WebState::load(*a.get("state")));
    fmt::Roster r = w.roster();
    auto keys = w.keys(r);
    auto f = find(w, keys, r, a.positional[0]);
    if (!f) throw CliError(1, "no file " + a.positional[0]);
    std::string out;
    if (f->content.data) {
        out = crypto::b64url_decode(*f->content.data).value_or("");
    } else if (f->content.chunks) {
        for (const auto& ch : *f->content.chunks) {
            pouch::cli::CallOptions opt;
            opt.raw = true;
            auto b =
                w.call("GET", "/v1/pouches/" + w.st.pouch_id + "/blobs/" + ch.blob_id, "", opt);
            if (!b.ok()) throw CliError(1, "blob: " + pouch::cli::describe(b));
            out += fmt::open_chunk(ch, b.raw);
        }
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

}  // namespace testweb
