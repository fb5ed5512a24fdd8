// scan.cpp -- walking a folder (scan.h) with openat/fdopendir/fstatat, and fingerprints with
// BLAKE3.
#include "clients/cli/scan.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>

#include "clients/cli/errors.h"
#include "clients/cli/files.h"
#include "common/crypto/b64url.h"
#include "common/crypto/hash.h"

namespace pouch::cli {

namespace fmt = pouch::clientfmt;

namespace {

LocalFile local_file(const std::string& name, const struct stat& st) {
    return LocalFile{name, static_cast<long long>(st.st_size),
                     static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec,
                     static_cast<long long>(st.st_mode & 07777)};
}

// Reads the directory `dirfd` (owned here) whose relative name is `rel`.
void walk(int dirfd, const std::string& rel, std::map<std::string, LocalFile>& out,
          ScanReport* report) {
    DIR* d = ::fdopendir(dirfd);
    if (!d) {
        ::close(dirfd);
        if (report) report->skipped.push_back(rel + ": cannot be read: " + std::strerror(errno));
        return;
    }
    std::unique_ptr<DIR, int (*)(DIR*)> owner(d, ::closedir);
    while (true) {
        errno = 0;
        dirent* e = ::readdir(d);
        if (!e) {
            if (errno != 0 && report)
                report->skipped.push_back((rel.empty() ? "." : rel) +
                                          ": cannot be read: " + std::strerror(errno));
            break;
        }
        std::string n = e->d_name;
        if (n == "." || n == "..") continue;
        if (n.rfind(kTempPrefix, 0) == 0) continue;
        std::string child = rel.empty() ? n : rel + "/" + n;
        struct stat st {};
        if (::fstatat(dirfd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // gone
        if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
            if (report)
                report->ignored.push_back(
                    child + (S_ISLNK(st.st_mode) ? ": a symlink" : ": not a regular file"));
            continue;
        }
        if (!safe_local_path(child)) {
            if (report)
                report->skipped.push_back(
                    child +
                    ": its name is not valid UTF-8, holds a control character or is "
                    "too long");
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            int sub = ::openat(dirfd, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub < 0) {
                if (report)
                    report->skipped.push_back(child + ": cannot be read: " + std::strerror(errno));
                continue;
            }
            walk(sub, child, out, report);
        } else {
            out[child] = local_file(child, st);
        }
    }
}

}  // namespace

std::map<std::string, LocalFile> scan_folder(FolderRoot& root, ScanReport* report) {
    std::map<std::string, LocalFile> out;
    root.settle();  // every write behind in place first
    int fd = ::fcntl(root.fd(), F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
        throw CliError(kExitFailure, "cannot read " + root.path() + ": " + std::strerror(errno));
    // fdopendir reads from the descriptor's offset: a fresh one for the root.
    int rootfd = ::openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ::close(fd);
    if (rootfd < 0)
        throw CliError(kExitFailure, "cannot read " + root.path() + ": " + std::strerror(errno));
    walk(rootfd, "", out, report);
    return out;
}

std::map<std::string, LocalFile> scan_folder(const std::string& root, ScanReport* report) {
    FolderRoot r(root);
    return scan_folder(r, report);
}

std::optional<LocalFile> stat_file(FolderRoot& root, const std::string& name) {
    auto st = root.lstat(name);
    if (!st || !S_ISREG(st->st_mode)) return std::nullopt;
    return local_file(name, *st);
}

std::string fingerprint_from_parts(long long size, const std::string& inline_hash_raw,
                                   const std::vector<std::string>& chunk_hashes_b64) {
    if (size <= fmt::kInlineMax)
        return std::to_string(size) + ":i:" + crypto::b64url_encode(inline_hash_raw);
    std::string cat;
    for (const auto& h : chunk_hashes_b64) cat += crypto::b64url_decode(h).value_or(h);
    return std::to_string(size) + ":c:" + crypto::b64url_encode(crypto::blake3_256(cat));
}

std::string fingerprint_of_content(const fmt::Content& c) {
    if (c.data) {
        auto bytes = crypto::b64url_decode(*c.data).value_or("");
        return fingerprint_from_parts(c.size, crypto::blake3_256(bytes), {});
    }
    std::vector<std::string> hashes;
    if (c.chunks)
        for (const auto& ch : *c.chunks) hashes.push_back(ch.hash);
    return fingerprint_from_parts(c.size, crypto::blake3_256(""), hashes);
}

FileDigest digest_fd(Fd fd, const std::string& name) {
    ChunkReader file(std::move(fd), name);
    FileDigest d;
    crypto::Blake3Hasher whole;
    long long total = 0;
    for (std::string_view chunk = file.next(); !chunk.empty(); chunk = file.next()) {
        whole.update(chunk);
        d.chunk_hashes.push_back(crypto::b64url_encode(crypto::blake3_256(chunk)));
        total += static_cast<long long>(chunk.size());
    }
    // The size the fingerprint names is the one read, so a file that grew meanwhile is
    // simply seen as changed again at the next scan.
    if (total <= fmt::kInlineMax) d.chunk_hashes.clear();
    d.fp = fingerprint_from_parts(total, whole.finish(), d.chunk_hashes);
    return d;
}

FileDigest digest_file(FolderRoot& root, const std::string& name) {
    return digest_fd(root.open_read(name), name);
}

std::string utc_date(long long unix_seconds) {
    std::time_t t = static_cast<std::time_t>(unix_seconds);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[16];
    std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
    return buf;
}

}  // namespace pouch::cli
