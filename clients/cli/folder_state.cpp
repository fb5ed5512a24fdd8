// folder_state.cpp -- the synced folder's state file and journal (folder_state.h) in JSON,
// read with RapidJSON directly (iterative, UTF-8 validated, a byte cap) and written
// atomically through files.h.
#include "clients/cli/folder_state.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

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

// The CLI's own JSON: well-formed UTF-8, any size up to kMaxStateBytes (the caller read it
// with that cap), parsed iteratively (no recursion however deep it nests; the document's
// allocator frees without recursion too). FormatError otherwise.
rapidjson::Document parse_own(const std::string& text) {
    rapidjson::Document d;
    d.Parse<rapidjson::kParseValidateEncodingFlag | rapidjson::kParseIterativeFlag>(text.data(),
                                                                                    text.size());
    if (d.HasParseError())
        throw fmt::FormatError(std::string("not valid JSON: ") +
                               rapidjson::GetParseError_En(d.GetParseError()) + " at byte " +
                               std::to_string(d.GetErrorOffset()));
    if (!d.IsObject()) throw fmt::FormatError("not a JSON object");
    return d;
}

}  // namespace

namespace {

void write_pending(json::Out& o, const PendingCommit& p) {
    // The body is megabytes of JSON whose every quote needs an escape: json::quote does it in
    // one pass (RapidJSON's writer, a byte at a time, was a tenth of a push's CPU).
    o.kv("operation_id", p.operation_id).key("body").raw(json::quote(p.body));
    o.key("intents").arr();
    for (const auto& i : p.intents) {
        o.obj().kv("type", i.type).kv("local_name", i.local_name);
        o.kv("prev_local_name", i.prev_local_name).key("entry");
        write_entry(o, i.entry);
        o.end_obj();
    }
    o.end_arr();
}

PendingCommit read_pending(const rapidjson::Value& p) {
    PendingCommit pc{fmt::get_str(p, "operation_id"), fmt::get_str(p, "body"), {}, {}};
    for (const auto& i : fmt::get_arr(p, "intents").GetArray())
        pc.intents.push_back({fmt::get_str(i, "type"), fmt::get_str(i, "local_name"),
                              fmt::get_str(i, "prev_local_name"),
                              read_entry(fmt::get_obj(i, "entry"))});
    return pc;
}

// The journal's records: one PendingCommit per line. A last line without its newline is a
// record whose append did not finish -- never sent (a batch is sent only once its line is
// durable) -- and is dropped; any other line that does not read is damage.
std::vector<PendingCommit> read_journal(const std::string& text) {
    std::vector<PendingCommit> out;
    for (size_t start = 0; start < text.size();) {
        size_t nl = text.find('\n', start);
        if (nl == std::string::npos) break;  // the torn last line
        if (nl > start) out.push_back(read_pending(parse_own(text.substr(start, nl - start))));
        start = nl + 1;
    }
    return out;
}

CliError damaged(const std::string& what, const std::string& path, const std::exception& e) {
    return CliError(kExitFailure, "a folder " + what + " is damaged (" + path + "): " + e.what());
}

}  // namespace

void FileTable::set(const std::string& name, FileEntry e) {
    auto it = by_name_.find(name);
    if (it != by_name_.end()) {
        auto idx = by_artifact_.find(it->second.artifact_id);
        if (idx != by_artifact_.end() && idx->second == name) by_artifact_.erase(idx);
        it->second = std::move(e);
    } else {
        it = by_name_.emplace(name, std::move(e)).first;
    }
    by_artifact_[it->second.artifact_id] = name;
}

void FileTable::erase(const std::string& name) {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) return;
    auto idx = by_artifact_.find(it->second.artifact_id);
    if (idx != by_artifact_.end() && idx->second == name) by_artifact_.erase(idx);
    by_name_.erase(it);
}

const std::string* FileTable::name_of(const std::string& artifact_id) const {
    auto idx = by_artifact_.find(artifact_id);
    if (idx == by_artifact_.end()) return nullptr;
    auto it = by_name_.find(idx->second);
    return it == by_name_.end() ? nullptr : &it->first;
}

std::string PendingCommit::to_json() const {
    json::Out o;
    write_pending(o, *this);
    return o.done();
}

long long PendingCommit::key_gen() const {
    try {
        auto d = parse_own(body);
        const auto& ops = fmt::get_arr(d, "ops");
        return ops.Empty() ? 0 : fmt::get_int(ops[0], "key_gen");
    } catch (const fmt::FormatError&) {
        return 0;
    }
}

size_t FolderState::pending_ops() const {
    size_t n = 0;
    for (const auto& p : pending) n += p.intents.size();
    return n;
}

std::string FolderState::to_json() const {
    json::Out o;
    o.kv("v", 2).kv("root", root).kv("pouch_id", pouch_id).kv("epoch", epoch).kv("seq", seq);
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
    o.key("skipped").obj();
    for (const auto& [id, why] : skipped) o.kv(id, why);
    o.end_obj();
    return o.done();
}

FolderState FolderState::from_json(const std::string& text) {
    try {
        auto d = parse_own(text);
        FolderState s;
        s.root = fmt::get_str(d, "root");
        s.pouch_id = fmt::get_str(d, "pouch_id");
        s.epoch = fmt::get_str(d, "epoch");
        s.seq = fmt::get_int(d, "seq");
        for (const auto& m : fmt::get_obj(d, "files").GetObject())
            s.files.set(name_of(m.name), read_entry(m.value));
        for (const auto& m : fmt::get_obj(d, "conflict_of").GetObject()) {
            if (!m.value.IsString()) throw fmt::FormatError("conflict_of: not a string");
            s.conflict_of[name_of(m.name)] = name_of(m.value);
        }
        for (const auto& m : fmt::get_obj(d, "chunk_cache").GetObject())
            s.chunk_cache[name_of(m.name)] = read_chunk(m.value);
        if (d.HasMember("skipped"))
            for (const auto& m : fmt::get_obj(d, "skipped").GetObject()) {
                if (!m.value.IsString())
                    throw fmt::FormatError("skipped: a reason is not a string");
                s.skipped[name_of(m.name)] = name_of(m.value);
            }
        if (d.HasMember("unreadable"))  // the files of earlier versions: keys it lacked
            for (const auto& id : fmt::get_arr(d, "unreadable").GetArray()) {
                if (!id.IsString()) throw fmt::FormatError("unreadable: an id is not a string");
                s.skipped.emplace(name_of(id), "this device holds no key for it");
            }
        if (d.HasMember("pending") && d["pending"].IsObject())  // earlier versions' batch
            s.pending.push_back(read_pending(d["pending"]));
        return s;
    } catch (const fmt::FormatError& e) {
        throw CliError(kExitFailure, std::string("a folder state file is damaged: ") + e.what());
    }
}

std::string folder_state_path(const Config& cfg, const std::string& root) {
    return join_path(cfg.path("folders"),
                     crypto::to_hex(crypto::sha256(root)).substr(0, 32) + ".json");
}

std::string folder_journal_path(const Config& cfg, const std::string& root) {
    std::string p = folder_state_path(cfg, root);
    return p.substr(0, p.size() - 5) + ".journal";
}

namespace {

std::optional<FolderState> load_state_file(const Config& cfg, const std::string& path) {
    auto text = read_file_limited(path, kMaxStateBytes, "the folder state file");
    if (!text) return std::nullopt;
    FolderState s = FolderState::from_json(*text);
    std::string jpath = folder_journal_path(cfg, s.root);
    auto journal = read_file_limited(jpath, kMaxStateBytes, "the folder journal");
    if (journal) {
        try {
            for (auto& p : read_journal(*journal)) s.pending.push_back(std::move(p));
        } catch (const fmt::FormatError& e) {
            throw damaged("journal", jpath, e);
        }
    }
    return s;
}

}  // namespace

std::optional<FolderState> load_folder_state(const Config& cfg, const std::string& root) {
    return load_state_file(cfg, folder_state_path(cfg, root));
}

void save_folder_state(const Config& cfg, const FolderState& s) {
    cfg.ensure_dir();
    std::string path = folder_state_path(cfg, s.root), text = s.to_json();
    // A state that did not change (an idle run of `sync --watch`) is not written again: a
    // read from the page cache costs less than the fsyncs of a rewrite.
    std::string jpath = folder_journal_path(cfg, s.root);
    auto unchanged = [&] {
        try {
            return read_file_limited(path, kMaxStateBytes, "the folder state") == text;
        } catch (const CliError&) {
            return false;
        }
    };
    if (s.pending.empty() && !exists(jpath) && unchanged()) return;
    write_file_atomic(path, text, 0600);
    // The state now holds every answered commit: the journal keeps only the others.
    if (s.pending.empty()) {
        remove_file(jpath);
        return;
    }
    std::string all;
    for (const auto& p : s.pending) all += p.line ? *p.line : p.to_json() + "\n";
    write_file_atomic(jpath, all, 0600);
}

void append_pending(const Config& cfg, FolderState& s, PendingCommit pc) {
    cfg.ensure_dir();
    std::string jpath = folder_journal_path(cfg, s.root);
    auto shared = std::make_shared<std::string>(pc.to_json() + "\n");
    const std::string& line = *shared;
    Fd fd(::open(jpath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (!fd) throw CliError(kExitFailure, "cannot open " + jpath + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0)
        throw CliError(kExitFailure, "cannot read " + jpath + ": " + std::strerror(errno));
    off_t end = st.st_size;
    if (end > 0) {
        // A torn last line (an append cut short by a crash) is cut off first, so that the new
        // record starts a line of its own.
        char last = 0;
        if (::pread(fd.get(), &last, 1, end - 1) != 1)
            throw CliError(kExitFailure, "cannot read " + jpath + ": " + std::strerror(errno));
        if (last != '\n') {
            auto text = read_file_limited(jpath, kMaxStateBytes, "the folder journal");
            size_t keep = text ? text->rfind('\n') : std::string::npos;
            end = keep == std::string::npos ? 0 : static_cast<off_t>(keep + 1);
        }
    }
    try {
        if (::ftruncate(fd.get(), end) != 0 || ::lseek(fd.get(), end, SEEK_SET) < 0)
            throw CliError(kExitFailure, "cannot write " + jpath + ": " + std::strerror(errno));
        write_all_fd(fd.get(), line, jpath);
        if (::fdatasync(fd.get()) != 0)
            throw CliError(kExitFailure, "cannot sync " + jpath + ": " + std::strerror(errno));
    } catch (...) {
        if (::ftruncate(fd.get(), end) == 0) ::fdatasync(fd.get());  // not sent: not kept
        throw;
    }
    if (end == 0) {  // a new journal: its directory entry must be durable too
        Fd dir(::open(parent_dir(jpath).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        if (dir) ::fsync(dir.get());
    }
    pc.line = std::move(shared);
    s.pending.push_back(std::move(pc));
}

std::vector<FolderState> all_folder_states(const Config& cfg) {
    std::vector<FolderState> out;
    DIR* d = ::opendir(cfg.path("folders").c_str());
    if (!d) return out;
    std::unique_ptr<DIR, int (*)(DIR*)> owner(d, ::closedir);
    while (dirent* e = ::readdir(d)) {
        std::string n = e->d_name;
        if (n.size() < 6 || n.substr(n.size() - 5) != ".json") continue;
        if (auto s = load_state_file(cfg, join_path(cfg.path("folders"), n)))
            out.push_back(std::move(*s));
    }
    return out;
}

namespace {

// SAX handler that keeps the top-level "root" string and stops the parse there.
struct RootFinder : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, RootFinder> {
    int depth = 0;
    bool want = false;
    std::optional<std::string> root;
    bool Default() {
        want = false;
        return true;
    }
    bool StartObject() {
        ++depth;
        want = false;
        return true;
    }
    bool EndObject(rapidjson::SizeType) {
        --depth;
        return true;
    }
    bool StartArray() {
        ++depth;
        want = false;
        return true;
    }
    bool EndArray(rapidjson::SizeType) {
        --depth;
        return true;
    }
    bool Key(const char* s, rapidjson::SizeType n, bool) {
        want = depth == 1 && std::string_view(s, n) == "root";
        return true;
    }
    bool String(const char* s, rapidjson::SizeType n, bool) {
        if (!want) return true;
        root = std::string(s, n);
        return false;  // found: stop reading
    }
};

}  // namespace

std::vector<std::string> all_folder_roots(const Config& cfg) {
    std::vector<std::string> out;
    DIR* d = ::opendir(cfg.path("folders").c_str());
    if (!d) return out;
    std::unique_ptr<DIR, int (*)(DIR*)> owner(d, ::closedir);
    while (dirent* e = ::readdir(d)) {
        std::string n = e->d_name;
        if (n.size() < 6 || n.substr(n.size() - 5) != ".json") continue;
        std::string path = join_path(cfg.path("folders"), n);
        auto text = read_file_limited(path, kMaxStateBytes, "the folder state file");
        if (!text) continue;
        RootFinder h;
        rapidjson::Reader r;
        rapidjson::StringStream in(text->c_str());
        r.Parse<rapidjson::kParseValidateEncodingFlag | rapidjson::kParseIterativeFlag>(in, h);
        if (!h.root)
            throw CliError(kExitFailure, "a folder state file is damaged (" + path + "): no root");
        out.push_back(*h.root);
    }
    return out;
}

}  // namespace pouch::cli
