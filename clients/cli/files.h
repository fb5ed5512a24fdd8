// files.h -- small POSIX file helpers of the CLI: whole-file reads, atomic replacement
// (temp file, fsync, rename, fsync of the directory) with a chosen mode, directories made
// with a mode, and an advisory lock (flock) held by an RAII owner.
#pragma once

#include <optional>
#include <string>

namespace pouch::cli {

std::optional<std::string> read_file(
    const std::string& path);  // nullopt if absent; throws on other errors
// Writes data to path atomically with `mode`; throws CliError on failure.
void write_file_atomic(const std::string& path, const std::string& data, int mode = 0600);
// mkdir -p; the last component gets `mode` (and is chmod-ed to it if it existed).
void make_dirs(const std::string& path, int mode);
void remove_file(const std::string& path);  // absent is fine
bool exists(const std::string& path);
std::string parent_dir(const std::string& path);
std::string join_path(const std::string& a, const std::string& b);
std::string absolute_path(const std::string& path);  // realpath of an existing path

// flock(LOCK_EX) on path (created 0600) for the owner's lifetime.
class FileLock {
  public:
    explicit FileLock(const std::string& path);
    ~FileLock();
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

  private:
    int fd_ = -1;
};

}  // namespace pouch::cli
