// backup.cpp -- `pouchctl backup`: a pgBackRest backup of the database, then a copy of the
// blobs that are new since the last copy into the backup repository; `backup blobs` is the
// copy alone, which the archive_command runs before it pushes each WAL segment, so a segment
// is archived only after every blob it can name (docs/OPERATIONS.md "Backup and restore").
// Relies on the pgbackrest command (Debian's pgbackrest) and POSIX file calls.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/types/uuid.h"
#include "tools/pouchctl/backup.h"

namespace fs = std::filesystem;

namespace pouchctl::backup {

namespace {

// "--name V" or "--name=V": sets *value and advances i; false if args[i] is not that option.
bool take(const Args& args, size_t* i, const std::string& name, std::string* value, bool* missing) {
    const std::string& a = args[*i];
    if (a == name) {
        if (*i + 1 >= args.size()) {
            *missing = true;
            return true;
        }
        *value = args[++*i];
        return true;
    }
    if (a.compare(0, name.size() + 1, name + "=") == 0) {
        *value = a.substr(name.size() + 1);
        return true;
    }
    return false;
}

// repo1-path of pgBackRest's configuration file (any section; the first one wins).
std::string repo_path(const std::string& config) {
    std::ifstream in(config);
    std::string line;
    while (std::getline(in, line)) {
        size_t start = line.find_first_not_of(" \t");
        if (start == std::string::npos || line.compare(start, 10, "repo1-path") != 0) continue;
        size_t eq = line.find('=', start);
        if (eq == std::string::npos) continue;
        std::string v = line.substr(eq + 1);
        v.erase(0, v.find_first_not_of(" \t"));
        v.erase(v.find_last_not_of(" \t\r") + 1);
        return v;
    }
    return "";
}

bool fsync_path(const std::string& path, int flags) {
    int fd = ::open(path.c_str(), flags | O_CLOEXEC);
    if (fd < 0) return false;
    int rc = ::fsync(fd);
    ::close(fd);
    return rc == 0;
}

// Copies one file to `to` through a temporary name in its directory, durably.
bool copy_one(const fs::path& from, const fs::path& to, long long* bytes) {
    // The pid keeps two copies apart (an archive command beside `pouchctl backup`): each
    // renames its own whole file over the same name.
    fs::path tmp = to.parent_path() /
                   ("." + to.filename().string() + "." + std::to_string(::getpid()) + ".copy");
    std::error_code ec;
    fs::copy_file(from, tmp, fs::copy_options::overwrite_existing, ec);
    if (ec) {
        std::fprintf(stderr, "copy %s to %s: %s\n", from.c_str(), tmp.c_str(),
                     ec.message().c_str());
        return false;
    }
    // 0640 as the blob store writes them: nginx reads them through the directory's group.
    if (::chmod(tmp.c_str(), 0640) != 0 || !fsync_path(tmp.string(), O_RDONLY) ||
        ::rename(tmp.c_str(), to.c_str()) != 0) {
        std::fprintf(stderr, "place %s: %s\n", to.c_str(), std::strerror(errno));
        return false;
    }
    *bytes += static_cast<long long>(fs::file_size(to, ec));
    return true;
}

}  // namespace

bool parse_options(const Args& args, Options* o, const char* command) {
    bool missing = false;
    for (size_t i = 0; i < args.size(); ++i) {
        if (take(args, &i, "--config", &o->config, &missing) ||
            take(args, &i, "--stanza", &o->stanza, &missing) ||
            take(args, &i, "--blob-dir", &o->blob_dir, &missing) ||
            take(args, &i, "--blob-repo", &o->blob_repo, &missing)) {
            if (missing) {
                std::fprintf(stderr, "pouchctl %s: %s needs a value\n", command, args[i].c_str());
                return false;
            }
            continue;
        }
        o->rest.push_back(args[i]);
    }
    if (o->blob_dir.empty()) {
        const char* env = std::getenv("POUCH_BLOB_DIR");
        o->blob_dir = env && *env ? env : "/var/lib/pouch/blobs";
    }
    if (o->blob_repo.empty()) {
        std::string repo = repo_path(o->config);
        if (repo.empty()) {
            std::fprintf(stderr, "pouchctl %s: no repo1-path in %s (or give --blob-repo)\n",
                         command, o->config.c_str());
            return false;
        }
        o->blob_repo = repo + "/pouch-blobs";
    }
    return true;
}

int run_pgbackrest(const Options& o, const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"pgbackrest", "--config=" + o.config, "--stanza=" + o.stanza};
    argv.insert(argv.end(), args.begin(), args.end());
    std::fflush(nullptr);
    pid_t pid = ::fork();
    if (pid < 0) return 127;
    if (pid == 0) {
        std::vector<char*> c;
        for (auto& a : argv) c.push_back(a.data());
        c.push_back(nullptr);
        ::execvp(c[0], c.data());
        std::fprintf(stderr, "pouchctl: cannot run pgbackrest: %s\n", std::strerror(errno));
        ::_exit(127);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

namespace {

bool copy_blobs_or_throw(const std::string& src, const std::string& dst, CopyCount* count) {
    std::error_code ec;
    if (!fs::is_directory(src, ec)) {
        std::fprintf(stderr, "blob directory %s is missing\n", src.c_str());
        return false;
    }
    bool created = fs::create_directories(dst, ec);
    if (ec) {
        std::fprintf(stderr, "create %s: %s\n", dst.c_str(), ec.message().c_str());
        return false;
    }
    if (created && !fsync_path(fs::path(dst).parent_path().string(), O_RDONLY | O_DIRECTORY))
        return false;
    for (const auto& account : fs::directory_iterator(src, ec)) {
        std::string name = account.path().filename().string();
        if (!account.is_directory(ec) || !pouch::is_uuid(name)) continue;
        fs::path to_dir = fs::path(dst) / name;
        if (fs::create_directory(to_dir, ec)) {
            // 0750 as the blob store makes them (blob_store.h).
            fs::permissions(to_dir, fs::perms(0750), ec);
            if (!fsync_path(dst, O_RDONLY | O_DIRECTORY)) return false;
        }
        long before = count->files;
        for (const auto& f : fs::directory_iterator(account.path(), ec)) {
            std::string blob = f.path().filename().string();
            if (!f.is_regular_file(ec) || blob.empty() || blob[0] == '.') continue;
            fs::path to = to_dir / blob;
            std::error_code sec;
            if (fs::file_size(to, sec) == f.file_size(ec) && !sec) {
                ++count->kept;
                continue;
            }
            if (!copy_one(f.path(), to, &count->bytes)) return false;
            ++count->files;
        }
        if (ec) {
            std::fprintf(stderr, "read %s: %s\n", account.path().c_str(), ec.message().c_str());
            return false;
        }
        if (count->files > before && !fsync_path(to_dir.string(), O_RDONLY | O_DIRECTORY)) {
            std::fprintf(stderr, "fsync %s: %s\n", to_dir.c_str(), std::strerror(errno));
            return false;
        }
    }
    if (ec) {
        std::fprintf(stderr, "read %s: %s\n", src.c_str(), ec.message().c_str());
        return false;
    }
    return true;
}

}  // namespace

bool copy_blobs(const std::string& src, const std::string& dst, CopyCount* count) {
    // A directory_iterator's increment throws; a failure anywhere ends the copy with a message.
    try {
        return copy_blobs_or_throw(src, dst, count);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "copying blobs from %s to %s: %s\n", src.c_str(), dst.c_str(),
                     e.what());
        return false;
    }
}

}  // namespace pouchctl::backup

namespace pouchctl {

namespace {

constexpr const char* kUsage =
    "usage: pouchctl backup [init|blobs|info] [--type full|diff|incr] [--config FILE]\n"
    "                       [--stanza NAME] [--blob-dir DIR] [--blob-repo DIR]\n"
    "  (none)  a pgBackRest backup (default type incr; full when none exists), then the blobs\n"
    "  init    creates the stanza and checks that WAL archiving works\n"
    "  blobs   copies the blobs new since the last copy (the archive_command's first step)\n"
    "  info    pgBackRest's list of backups and archived WAL\n";

int sync_blobs(const backup::Options& o) {
    backup::CopyCount n;
    if (!backup::copy_blobs(o.blob_dir, o.blob_repo, &n)) {
        std::fprintf(stderr, "pouchctl backup: copying the blobs to %s failed\n",
                     o.blob_repo.c_str());
        return 1;
    }
    std::printf("{\"blobs_copied\":%ld,\"bytes_copied\":%lld,\"blobs_already_there\":%ld}\n",
                n.files, n.bytes, n.kept);
    return 0;
}

}  // namespace

int cmd_backup(const Args& args) {
    backup::Options o;
    if (!backup::parse_options(args, &o, "backup")) return 2;
    std::string verb, type = "incr";
    for (size_t i = 0; i < o.rest.size(); ++i) {
        const std::string& a = o.rest[i];
        if ((a == "init" || a == "blobs" || a == "info") && verb.empty() && i == 0) {
            verb = a;
        } else if (a == "--type" && i + 1 < o.rest.size()) {
            type = o.rest[++i];
        } else if (a.rfind("--type=", 0) == 0) {
            type = a.substr(7);
        } else {
            std::fputs(kUsage, stderr);
            return 2;
        }
    }
    if (type != "full" && type != "diff" && type != "incr") {
        std::fputs(kUsage, stderr);
        return 2;
    }
    if (verb == "blobs") return sync_blobs(o);
    if (verb == "info") return backup::run_pgbackrest(o, {"info"});
    if (verb == "init") {
        // The blob copy first: `check` switches the WAL segment, and archive_command copies
        // into it.
        if (int rc = sync_blobs(o)) return rc;
        if (int rc = backup::run_pgbackrest(o, {"stanza-create"})) return rc;
        return backup::run_pgbackrest(o, {"check"});
    }
    // The database first, then the blobs: a blob uploaded in between is only an unreferenced
    // file in the copy, whereas the other order could miss a blob that a row of the backup
    // names. (archive_command copies the blobs before each WAL segment anyway; this copy makes
    // the backup complete on its own.)
    if (int rc = backup::run_pgbackrest(o, {"--type=" + type, "backup"})) {
        std::fprintf(stderr, "pouchctl backup: pgbackrest backup failed (%d)\n", rc);
        return 1;
    }
    return sync_blobs(o);
}

}  // namespace pouchctl
