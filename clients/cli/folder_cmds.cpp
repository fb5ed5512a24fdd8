// folder_cmds.cpp -- `pouch ls`, `push`, `pull` and `sync [--watch]`: binding folders to
// pouches, one SyncEngine per folder under the folder's lock, inotify for --watch, and the
// summaries people read.
#include <dirent.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <thread>

#include "clients/cli/errors.h"
#include "clients/cli/files.h"
#include "clients/cli/folder_state.h"
#include "clients/cli/revision.h"
#include "clients/cli/session.h"
#include "clients/cli/sync.h"
#include "clients/cli/terminal_text.h"
#include "common/json/out.h"

namespace pouch::cli {

namespace {

struct PouchInfo {
    std::string id;
    long long key_gen = 0, high_water = 0;
    std::string created_at;
};

std::vector<PouchInfo> list_pouches(Session& s) {
    std::vector<PouchInfo> out;
    s.api.list("/v1/pouches", "", [&](const rapidjson::Value& p) {
        out.push_back(
            {jstr(p, "id"), jint(p, "key_gen"), jint(p, "high_water"), jstr(p, "created_at")});
    });
    return out;
}

std::string resolve_pouch(Session& s, const std::optional<std::string>& spec) {
    auto pouches = list_pouches(s);
    if (pouches.empty()) throw CliError(kExitFailure, "the account has no pouch yet");
    if (!spec) return pouches.front().id;  // the account's first pouch (genesis)
    std::vector<std::string> hits;
    for (const auto& p : pouches)
        if (p.id.rfind(*spec, 0) == 0) hits.push_back(p.id);
    if (hits.size() == 1) return hits[0];
    throw CliError(kExitUsage,
                   hits.empty() ? "no pouch " + *spec : "\"" + *spec + "\" names several pouches");
}

struct Binding {
    std::string root, scope;  // scope: relative path inside root ("" = all of it)
};

// The bound folder that holds `path`, or a new binding when `path` is a folder outside every
// bound one (and `may_bind`).
Binding find_or_bind(Session& s, const std::string& path, const std::optional<std::string>& pouch,
                     bool may_bind) {
    std::string abs = absolute_path(path);
    for (const auto& root : all_folder_roots(s.cfg)) {
        if (abs == root) return {root, ""};
        if (abs.size() > root.size() && abs.compare(0, root.size(), root) == 0 &&
            abs[root.size()] == '/')
            return {root, abs.substr(root.size() + 1)};
        if (root.size() > abs.size() && root.compare(0, abs.size(), abs) == 0 &&
            root[abs.size()] == '/')
            throw CliError(kExitUsage,
                           abs + " holds the synced folder " + root + "; folders cannot nest");
    }
    struct stat st {};
    if (!may_bind || ::stat(abs.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw CliError(
            kExitUsage,
            path + " is not inside a synced folder; push, pull or sync its folder first");
    FolderState fs;
    fs.root = abs;
    fs.pouch_id = resolve_pouch(s, pouch);
    save_folder_state(s.cfg, fs);
    s.progress.say("bound " + abs + " to pouch " + fs.pouch_id);
    return {abs, ""};
}

std::string summary(const SyncStats& st) {
    std::string out;
    auto add = [&](int n, const char* what) {
        if (!n) return;
        if (!out.empty()) out += ", ";
        out += std::to_string(n) + " " + what;
    };
    add(st.downloaded, "received");
    add(st.removed, "removed here");
    add(st.uploaded, "sent");
    add(st.renamed, "renamed");
    add(st.deleted, "deleted");
    add(st.conflicts, "conflicts kept as copies");
    add(st.skipped, "skipped");
    add(st.refused, "refused");
    if (st.bytes_sent)
        out += (out.empty() ? "" : ", ") + human_bytes(st.bytes_sent) + " of chunks uploaded";
    if (st.chunks_reused)
        out +=
            (out.empty() ? "" : ", ") + std::to_string(st.chunks_reused) + " chunks already stored";
    return out.empty() ? "nothing to do" : out;
}

enum class Mode { kPush, kPull, kSync };

// One pull and/or push of a folder, under its lock, on its freshly read state.
SyncStats run_once(Session& s, const Binding& b, Mode mode) {
    FileLock lock(folder_state_path(s.cfg, b.root) + ".lock");
    auto st = load_folder_state(s.cfg, b.root);
    if (!st) throw CliError(kExitFailure, "the state of " + b.root + " vanished");
    SyncEngine e(s.api, s.trust, s.cfg, s.device, *st, s.progress);
    if (mode != Mode::kPush) e.pull();
    if (mode != Mode::kPull) e.push(b.scope);
    return e.stats();
}

// The exit code of a run: a refusal by the server is a failure (1); items skipped here, with
// everything else done, are kExitSkipped (7).
int exit_code(const SyncStats& st) {
    return st.refused ? kExitFailure : st.skipped ? kExitSkipped : kExitOk;
}

int finish(Session& s, const SyncStats& st, const std::string& root) {
    constexpr size_t kMaxLines = 50;  // a folder of 100,000 unreadable files says "and N more"
    s.progress.say(root + ": " + summary(st));
    for (size_t i = 0; i < st.messages.size() && i < kMaxLines; ++i)
        s.progress.say("  " + st.messages[i]);
    if (st.messages.size() > kMaxLines)
        s.progress.say("  ... and " + std::to_string(st.messages.size() - kMaxLines) + " more");
    return exit_code(st);
}

// inotify on every directory of the folder (IN_* of changes that matter to a push).
class Watcher {
  public:
    explicit Watcher(const std::string& root)
        : root_(root), fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
        if (fd_ < 0) throw CliError(kExitFailure, "inotify is not available");
        rewatch();
    }
    ~Watcher() { ::close(fd_); }
    void rewatch() { add(root_); }
    int fd() const { return fd_; }
    bool pending() const {
        pollfd p{fd_, POLLIN, 0};
        return ::poll(&p, 1, 0) > 0;
    }
    void drain() {
        char buf[16384];
        while (::read(fd_, buf, sizeof buf) > 0) {
        }
    }

  private:
    void add(const std::string& dir) {
        ::inotify_add_watch(
            fd_, dir.c_str(),
            IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB);
        DIR* d = ::opendir(dir.c_str());
        if (!d) return;
        while (dirent* e = ::readdir(d)) {
            std::string n = e->d_name;
            if (n == "." || n == "..") continue;
            std::string child = join_path(dir, n);
            struct stat st {};
            if (::lstat(child.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) add(child);
        }
        ::closedir(d);
    }
    std::string root_;
    int fd_;
};

}  // namespace

namespace {

// `pouch ls` without POUCH: the pouches, and whether this device holds a key of each.
int ls_pouches(Session& s, bool json) {
    auto pouches = list_pouches(s);
    Keyring keys = s.cfg.load_keys();
    if (json) {
        json::Out o;
        o.key("items").arr();
        for (const auto& p : pouches)
            o.obj()
                .kv("id", p.id)
                .kv("key_gen", p.key_gen)
                .kv("high_water", p.high_water)
                .kv("created_at", p.created_at)
                .kv("readable", keys.count(p.id) > 0)
                .end_obj();
        o.end_arr();
        std::printf("%s\n", ascii_json(o.done()).c_str());
        return kExitOk;
    }
    for (const auto& p : pouches)
        std::printf("%s  key generation %lld  %lld events  %s%s\n", defang(p.id).c_str(), p.key_gen,
                    p.high_water, defang(p.created_at).c_str(),
                    keys.count(p.id) ? "" : "  (no key here)");
    return kExitOk;
}

void print_files_json(const std::string& pouch, const std::vector<Revision>& items) {
    json::Out o;
    o.kv("pouch_id", pouch).key("items").arr();
    for (const auto& r : items) {
        o.obj().kv("name", r.content.name).kv("kind", r.content.kind).kv("size", r.content.size);
        o.kv("mtime", r.content.mtime).kv("deleted", r.deleted()).kv("artifact_id", r.artifact_id);
        o.kv("revision_id", r.revision_id).kv("signer_member_id", r.signer);
        o.kv("key_gen", r.key_gen);
        o.kv("chunks", static_cast<long long>(r.content.chunks ? r.content.chunks->size() : 0));
        o.end_obj();
    }
    o.end_arr();
    std::printf("%s\n", ascii_json(o.done()).c_str());
}

void print_files_text(const std::vector<Revision>& items) {
    for (const auto& r : items) {
        std::time_t t = static_cast<std::time_t>(r.content.mtime / 1000);
        char when[32];
        std::strftime(when, sizeof when, "%Y-%m-%d %H:%M", std::gmtime(&t));
        std::printf("%10s  %s  %s%s\n", human_bytes(r.content.size).c_str(), when,
                    defang(r.content.name).c_str(), r.deleted() ? "  (deleted)" : "");
    }
}

// --watch: run after run until interrupted. Between runs the event feed's long-poll waits for a
// remote change; under sync the folder's inotify watch also ends the wait, so a local change is
// pushed at once. A pull (a receive-only folder) watches nothing local: its local changes are
// neither sent nor noticed, as in a single pull.
int keep_at_it(Session& s, const Binding& b, Mode mode) {
    install_interrupt_handler();
    std::optional<Watcher> watcher;
    if (mode == Mode::kSync) watcher.emplace(b.root);
    s.progress.say(mode == Mode::kSync
                       ? "watching " + b.root + " (Ctrl-C to stop)"
                       : "pulling into " + b.root + " as changes arrive (Ctrl-C to stop)");
    std::vector<std::string>
        said;  // the skipped items last reported: said again only when they change
    auto local_change = [&] { return watcher && watcher->pending(); };
    while (!interrupted()) {
        // Drained before the run, not after: a change made while the run works stays pending
        // and starts the next run at once (this run's own writes cost one idle run at most).
        if (watcher) watcher->drain();
        try {
            SyncStats st = run_once(s, b, mode);
            if (st.downloaded || st.removed || st.uploaded || st.renamed || st.deleted ||
                st.conflicts || st.refused || st.messages != said)
                finish(s, st, b.root);
            said = st.messages;
        } catch (const CliError& e) {
            if (e.code != kExitUnreachable) throw;
            s.progress.say(std::string(e.what()) + "; trying again in 5 s");
            for (int i = 0; i < 50 && !interrupted(); ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
            continue;
        }
        if (watcher) watcher->rewatch();  // directories made by the run
        auto st = load_folder_state(s.cfg, b.root);
        SyncEngine waiter(s.api, s.trust, s.cfg, s.device, *st, s.progress);
        // A local change ends the long-poll at once (the inotify descriptor wakes it).
        waiter.wait_for_events(
            25, [&] { return interrupted() || local_change(); }, watcher ? watcher->fd() : -1);
        // A burst of writes (a save, a copy of many files) settles first: the run starts once
        // kQuiet has passed without a new change, or after kSettleMax at the most.
        constexpr auto kQuiet = std::chrono::milliseconds(15);
        constexpr int kSettleMax = 20;  // times kQuiet: 300 ms
        for (int i = 0; i < kSettleMax && local_change() && !interrupted(); ++i) {
            watcher->drain();
            std::this_thread::sleep_for(kQuiet);
            if (!watcher->pending()) break;
        }
    }
    s.progress.say("stopped");
    return kExitInterrupted;
}

}  // namespace

int cmd_ls(const Args& a) {
    Session s(a);
    if (a.positional.size() > 1) throw CliError(kExitUsage, "usage: pouch ls [POUCH]");
    if (a.positional.empty()) return ls_pouches(s, a.flag("json"));
    // The files of one pouch: every head verified and opened; one that cannot be is said and
    // left out (exit 7), the others are listed by name.
    std::string pouch = resolve_pouch(s, a.positional[0]);
    std::vector<Revision> items;
    int unreadable = 0;
    s.api.list(
        "/v1/pouches/" + pouch + "/artifacts", a.flag("deleted") ? "include_deleted=true&" : "",
        [&](const rapidjson::Value& it) {
            if (!it.IsObject() || !it.HasMember("head") || !it["head"].IsObject()) return;
            try {
                items.push_back(open_revision(s.trust, pouch, it["head"]));
            } catch (const ItemSkipped& e) {
                ++unreadable;
                s.progress.say("artifact " + jstr(it, "id") + " cannot be read here: " + e.what());
            }
        },
        500);
    std::sort(items.begin(), items.end(),
              [](const Revision& x, const Revision& y) { return x.content.name < y.content.name; });
    if (a.flag("json"))
        print_files_json(pouch, items);
    else
        print_files_text(items);
    return unreadable ? kExitSkipped : kExitOk;
}

int cmd_push(const Args& a) {
    if (a.positional.empty()) throw CliError(kExitUsage, "usage: pouch push PATH...");
    Session s(a);
    int code = kExitOk;
    for (const auto& path : a.positional) {
        Binding b = find_or_bind(s, path, a.get("pouch"), true);
        int c = finish(s, run_once(s, b, Mode::kPush), path);
        if (code == kExitOk || c == kExitFailure) code = c;  // a failure outranks skipped items
    }
    return code;
}

int cmd_pull(const Args& a) {
    if (a.positional.size() != 1) throw CliError(kExitUsage, "usage: pouch pull DIR [--watch]");
    Session s(a);
    make_dirs(a.positional[0], 0755);
    Binding b = find_or_bind(s, a.positional[0], a.get("pouch"), true);
    if (!b.scope.empty())
        throw CliError(kExitUsage, "pull takes a synced folder, not a path inside one");
    if (!a.flag("watch")) return finish(s, run_once(s, b, Mode::kPull), b.root);
    return keep_at_it(s, b, Mode::kPull);
}

int cmd_sync(const Args& a) {
    if (a.positional.size() != 1) throw CliError(kExitUsage, "usage: pouch sync DIR [--watch]");
    Session s(a);
    make_dirs(a.positional[0], 0755);
    Binding b = find_or_bind(s, a.positional[0], a.get("pouch"), true);
    if (!b.scope.empty())
        throw CliError(kExitUsage, "sync takes a synced folder, not a path inside one");
    if (!a.flag("watch")) return finish(s, run_once(s, b, Mode::kSync), b.root);
    return keep_at_it(s, b, Mode::kSync);
}

}  // namespace pouch::cli
