// folder_state.cpp -- the synced folder's state file (folder_state.h) in JSON, written
// atomically through files.h.
#include "clients/cli/folder_state.h"

#include <dirent.h>

#include "clients/cli/errors.h"
#include "clients/cli/files.h"
#include "common/clientfmt/encoding.h"
#include "common/crypto/hash.h"
#include "common/json/out.h"

namespace pouch::cli {

namespace fmt = pouch::clientfmt;

namespace {

void write_chunk(json::Out& o, const fmt::ChunkRef& c) {
    o.obj()
        .kv("blob_id", c.blob_id)
        .kv("size", c.size)
        .kv("key", c.key)
        .kv("hash", c.hash)
        .end_obj();
}

fmt::ChunkRef read_chunk(const rapidjson::Value& v) {
    return {fmt::get_str(v, "blob_id"), fmt::get_int(v, "size"), fmt::get_str(v, "key"),
            fmt::get_str(v, "hash")};
}

void write_entry(json::Out& o, const FileEntry& e) {
    o.obj();
    o.kv("artifact_id", e.artifact_id).kv("revision_id", e.revision_id);
    o.kv("remote_name", e.remote_name).kv("fp", e.fp).kv("size", e.size);
    o.kv("mtime_ns", e.mtime_ns).kv("mode", e.mode);
    o.key("chunks").arr();
    for (const auto& c : e.chunks) write_chunk(o, c);
    o.end_arr();
    o.end_obj();
}

FileEntry read_entry(const rapidjson::Value& v) {
    FileEntry e;
    e.artifact_id = fmt::get_str(v, "artifact_id");
    e.revision_id = fmt::get_str(v, "revision_id");
    e.remote_name = fmt::get_str(v, "remote_name");
    e.fp = fmt::get_str(v, "fp");
    e.size = fmt::get_int(v, "size");
    e.mtime_ns = fmt::get_int(v, "mtime_ns");
    e.mode = fmt::get_int(v, "mode");
    for (const auto& c : fmt::get_arr(v, "chunks").GetArray()) e.chunks.push_back(read_chunk(c));
    return e;
}

std::string name_of(const rapidjson::Value& n) {
    return std::string(n.GetString(), n.GetStringLength());
}

}  // namespace

std::string FolderState::to_json() const {
    json::Out o;
    o.kv("v", 1).kv("root", root).kv("pouch_id", pouch_id).kv("epoch", epoch).kv("seq", seq);
    o.key("files").obj();
    for (const auto& [name, e] : files) {
        o.key(name);
        write_entry(o, e);
    }
    o.end_obj();
    o.key("conflict_of").obj();
    for (const auto& [name, rev] : conflict_of) o.kv(name, rev);
    o.end_obj();
    o.key("chunk_cache").obj();
    for (const auto& [hash, c] : chunk_cache) {
        o.key(hash);
        write_chunk(o, c);
    }
    o.end_obj();
    o.key("unreadable").arr();
    for (const auto& id : unreadable) o.str(id);
    o.end_arr();
    o.key("pending");
    if (!pending) {
        o.null();
    } else {
        o.obj().kv("operation_id", pending->operation_id).kv("body", pending->body);
        o.key("intents").arr();
        for (const auto& i : pending->intents) {
            o.obj().kv("type", i.type).kv("local_name", i.local_name);
            o.kv("prev_local_name", i.prev_local_name).key("entry");
            write_entry(o, i.entry);
            o.end_obj();
        }
        o.end_arr().end_obj();
    }
    return o.done();
}

FolderState FolderState::from_json(const std::string& text) {
    try {
        auto d = fmt::parse_object(text);
        FolderState s;
        s.root = fmt::get_str(d, "root");
        s.pouch_id = fmt::get_str(d, "pouch_id");
        s.epoch = fmt::get_str(d, "epoch");
        s.seq = fmt::get_int(d, "seq");
        for (const auto& m : fmt::get_obj(d, "files").GetObject())
            s.files[name_of(m.name)] = read_entry(m.value);
        for (const auto& m : fmt::get_obj(d, "conflict_of").GetObject())
            s.conflict_of[name_of(m.name)] = name_of(m.value);
        for (const auto& m : fmt::get_obj(d, "chunk_cache").GetObject())
            s.chunk_cache[name_of(m.name)] = read_chunk(m.value);
        if (d.HasMember("unreadable"))  // absent in the files of earlier versions
            for (const auto& id : fmt::get_arr(d, "unreadable").GetArray()) {
                if (!id.IsString()) throw fmt::FormatError("unreadable: an id is not a string");
                s.unreadable.insert(name_of(id));
            }
        if (d.HasMember("pending") && d["pending"].IsObject()) {
            const auto& p = d["pending"];
            PendingCommit pc{fmt::get_str(p, "operation_id"), fmt::get_str(p, "body"), {}};
            for (const auto& i : fmt::get_arr(p, "intents").GetArray())
                pc.intents.push_back({fmt::get_str(i, "type"), fmt::get_str(i, "local_name"),
                                      fmt::get_str(i, "prev_local_name"),
                                      read_entry(fmt::get_obj(i, "entry"))});
            s.pending = std::move(pc);
        }
        return s;
    } catch (const fmt::FormatError& e) {
        throw CliError(kExitFailure, std::string("a folder state file is damaged: ") + e.what());
    }
}

const std::string* FolderState::local_name_of(const std::string& artifact_id) const {
    for (const auto& [name, e] : files)
        if (e.artifact_id == artifact_id) return &name;
    return nullptr;
}

std::string folder_state_path(const Config& cfg, const std::string& root) {
    return join_path(cfg.path("folders"),
                     crypto::to_hex(crypto::sha256(root)).substr(0, 32) + ".json");
}

std::optional<FolderState> load_folder_state(const Config& cfg, const std::string& root) {
    auto text = read_file(folder_state_path(cfg, root));
    if (!text) return std::nullopt;
    return FolderState::from_json(*text);
}

void save_folder_state(const Config& cfg, const FolderState& s) {
    cfg.ensure_dir();
    write_file_atomic(folder_state_path(cfg, s.root), s.to_json(), 0600);
}

std::vector<FolderState> all_folder_states(const Config& cfg) {
    std::vector<FolderState> out;
    DIR* d = ::opendir(cfg.path("folders").c_str());
    if (!d) return out;
    while (dirent* e = ::readdir(d)) {
        std::string n = e->d_name;
        if (n.size() < 6 || n.substr(n.size() - 5) != ".json") continue;
        if (auto text = read_file(join_path(cfg.path("folders"), n)))
            out.push_back(FolderState::from_json(*text));
    }
    ::closedir(d);
    return out;
}

}  // namespace pouch::cli
