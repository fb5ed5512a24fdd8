// scan.h -- the local side of a synced folder: walking it (regular files only; symlinks,
// devices and pouch's own temporary files are left out, never followed) and content
// fingerprints that a local file and a remote content object share, so "is it the same?"
// never needs the remote bytes.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "clients/cli/files.h"
#include "common/clientfmt/artifact.h"

namespace pouch::cli {

struct LocalFile {
    std::string name;  // relative, '/'-separated, as on disk
    long long size = 0;
    long long mtime_ns = 0;
    long long mode = 0644;  // permission bits
};

// What a scan left out, as "name: why" lines: `skipped` are files pouch would sync but cannot
// (a name that is not valid UTF-8 or holds a control character, a directory it cannot read)
// -- the command reports them and ends with exit code 7; `ignored` are what pouch never syncs
// (symlinks, devices, sockets, FIFOs), said once per run and not counted.
struct ScanReport {
    std::vector<std::string> skipped, ignored;
};

// Every regular file under the folder, by relative name, read through the folder's handle
// (openat/fstatat, never following a symlink; pouch's temporary files are left out).
std::map<std::string, LocalFile> scan_folder(FolderRoot& root, ScanReport* report = nullptr);
std::map<std::string, LocalFile> scan_folder(const std::string& root, ScanReport* report = nullptr);
// The regular file `name` (nullopt when absent, not a regular file, or behind a symlink).
std::optional<LocalFile> stat_file(FolderRoot& root, const std::string& name);

// fingerprint = "<size>:i:<b64url BLAKE3(bytes)>" for size <= 64 KiB,
//               "<size>:c:<b64url BLAKE3(hash_1 || ... || hash_n)>" above, with hash_i the
// BLAKE3 of the i-th 4 MiB chunk: the same value for a file and for its content object.
std::string fingerprint_of_content(const clientfmt::Content& c);
// The file's fingerprint and, for chunked sizes, each chunk's plaintext hash (b64url).
struct FileDigest {
    std::string fp;
    std::vector<std::string> chunk_hashes;
};
FileDigest digest_file(FolderRoot& root, const std::string& name);  // ItemSkipped when unreadable
FileDigest digest_fd(Fd fd, const std::string& name);
std::string fingerprint_from_parts(long long size, const std::string& inline_hash_raw,
                                   const std::vector<std::string>& chunk_hashes_b64);

// YYYY-MM-DD (UTC) of a unix time, for conflict names.
std::string utc_date(long long unix_seconds);

}  // namespace pouch::cli
