// files.h -- small POSIX file helpers of the CLI: whole-file reads, atomic replacement
// (temp file, fsync, rename, fsync of the directory) with a chosen mode, directories made
// with a mode, and an advisory lock (flock) held by an RAII owner.
#pragma once

#include <optional>
#include <string>
#include <string_view>

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

// A file read in chunks of a fixed size (4 MiB for pouch's chunks): next() fills the buffer
// as far as the file allows and returns the bytes read, an empty view at the end. The file
// descriptor is owned and closed with the reader.
class ChunkReader {
  public:
    ChunkReader(const std::string& path, size_t chunk_size);  // CliError when it cannot open
    ~ChunkReader();
    ChunkReader(const ChunkReader&) = delete;
    ChunkReader& operator=(const ChunkReader&) = delete;
    std::string_view next();

  private:
    std::string path_, buf_;
    int fd_ = -1;
    bool done_ = false;
};

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
