// scan.cpp -- walking a folder (scan.h) with opendir/lstat, NFC with libunistring's
// u8_normalize, and fingerprints with BLAKE3.
#include "clients/cli/scan.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <uninorm.h>
#include <unistd.h>
#include <unistr.h>

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

void walk(const std::string& root, const std::string& rel, std::map<std::string, LocalFile>& out,
          std::vector<std::string>* skipped) {
    std::string dir = rel.empty() ? root : join_path(root, rel);
    DIR* d = ::opendir(dir.c_str());
    if (!d) {
        if (rel.empty())
            throw CliError(kExitFailure, "cannot read " + dir + ": " + std::strerror(errno));
        if (skipped) skipped->push_back(rel);
        return;
    }
    std::unique_ptr<DIR, int (*)(DIR*)> owner(d, ::closedir);
    while (dirent* e = ::readdir(d)) {
        std::string n = e->d_name;
        if (n == "." || n == "..") continue;
        if (n.rfind(kTempPrefix, 0) == 0) continue;
        std::string child = rel.empty() ? n : rel + "/" + n;
        struct stat st {};
        if (::lstat(join_path(root, child).c_str(), &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            walk(root, child, out, skipped);
        } else if (S_ISREG(st.st_mode)) {
            if (!to_nfc(child)) {
                if (skipped) skipped->push_back(child);
                continue;
            }
            out[child] = LocalFile{
                child, static_cast<long long>(st.st_size),
                static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec,
                static_cast<long long>(st.st_mode & 07777)};
        }
    }
}

}  // namespace

std::map<std::string, LocalFile> scan_folder(const std::string& root,
                                             std::vector<std::string>* skipped) {
    std::map<std::string, LocalFile> out;
    walk(root, "", out, skipped);
    return out;
}

std::optional<LocalFile> stat_file(const std::string& root, const std::string& name) {
    struct stat st {};
    if (::lstat(join_path(root, name).c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        return std::nullopt;
    return LocalFile{name, static_cast<long long>(st.st_size),
                     static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec,
                     static_cast<long long>(st.st_mode & 07777)};
}

std::optional<std::string> to_nfc(const std::string& s) {
    auto* p = reinterpret_cast<const uint8_t*>(s.data());
    if (u8_check(p, s.size()) != nullptr) return std::nullopt;
    size_t len = 0;
    uint8_t* out = u8_normalize(UNINORM_NFC, p, s.size(), nullptr, &len);
    if (!out) return std::nullopt;
    std::string r(reinterpret_cast<char*>(out), len);
    std::free(out);
    return r;
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

FileDigest digest_file(const std::string& path) {
    ChunkReader file(path, static_cast<size_t>(fmt::kChunkSize));
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

std::string utc_date(long long unix_seconds) {
    std::time_t t = static_cast<std::time_t>(unix_seconds);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[16];
    std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
    return buf;
}

}  // namespace pouch::cli
