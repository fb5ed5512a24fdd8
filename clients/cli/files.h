// files.h -- small POSIX file helpers of the CLI: whole-file reads, atomic replacement
// (temp file, fsync, rename, fsync of the directory) with a chosen mode, directories made
// with a mode, an advisory lock (flock) held by an RAII owner, and FolderRoot: a synced
// folder opened once, through which every file of it is read and written without ever
// following a symlink (docs/CLI.md "Files on disk").
#pragma once

#include "common/clientfmt/cdc.h"

#include <sys/stat.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace pouch::cli {

std::optional<std::string> read_file(
    const std::string& path);  // nullopt if absent; throws on other errors
// The same with a size limit: a file larger than `max_bytes` is a CliError naming `what`.
std::optional<std::string> read_file_limited(const std::string& path, size_t max_bytes,
                                             const std::string& what);
// Writes data to path atomically with `mode`; throws CliError on failure.
void write_file_atomic(const std::string& path, const std::string& data, int mode = 0600);
// mkdir -p: the missing directories are created with `mode` (umask aside); a directory that
// exists already is left exactly as it is (never chmod-ed).
void make_dirs(const std::string& path, int mode);
void remove_file(const std::string& path);  // absent is fine
bool exists(const std::string& path);
std::string parent_dir(const std::string& path);
std::string join_path(const std::string& a, const std::string& b);
std::string absolute_path(const std::string& path);  // realpath of an existing path

// An owned file descriptor (closed with its owner).
class Fd {
  public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd();
    Fd(Fd&& o) noexcept : fd_(o.release()) {}
    Fd& operator=(Fd&& o) noexcept;
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return fd_; }
    int release() {
        int f = fd_;
        fd_ = -1;
        return f;
    }
    explicit operator bool() const { return fd_ >= 0; }

  private:
    int fd_ = -1;
};

// A file cut into pouch's chunks as it is read (docs/CLIENT-FORMAT.md "Chunk boundaries"):
// next() returns the next chunk, its length chosen by clientfmt::cdc_cut over the bytes that
// follow (at least kCdcMax of them are kept buffered while the file has that many left), an
// empty view at the end. A view stays valid until the next call. The file descriptor is owned
// and closed with the reader. A file those cuts would split into more than
// clientfmt::kMaxFileChunks chunks is cut every kCdcMax bytes instead (the format's exception):
// the constructor counts the cuts first for a file large enough to need it.
class ChunkReader {
  public:
    // max_chunks: the format's bound, lowered only by tests.
    ChunkReader(Fd fd, const std::string& name, size_t max_chunks = clientfmt::kMaxFileChunks);
    ChunkReader(const ChunkReader&) = delete;
    ChunkReader& operator=(const ChunkReader&) = delete;
    std::string_view next();

  private:
    std::string path_;
    // kBufSize bytes, not zeroed (every byte is read into before it is used); 4 x kCdcMax, so
    // the bytes kept ahead (under kCdcMax) move to the front once per 12 MiB or more read, not
    // once per 4 MiB or more as with 2 x kCdcMax.
    static constexpr size_t kBufSize = 4 * clientfmt::kCdcMax;
    std::unique_ptr<char[]> buf_;
    size_t start_ = 0, end_ = 0;  // buf_[start_, end_): read, not yet returned
    Fd fd_;
    bool done_ = false;
    bool fixed_ = false;  // the 1,000-chunk exception: every kCdcMax bytes
};

// The prefix of pouch's own temporary files (never synced, never a pulled name).
constexpr const char* kTempPrefix = ".pouch-tmp-";

// The one rule for a path the CLI reads or writes inside a synced folder, relative to its
// root: clientfmt::safe_relative_path (no '..', '.', empty or absolute segment, valid UTF-8,
// no control character, NAME_MAX and PATH_MAX kept) and no segment starting with pouch's
// temporary prefix (".pouch-tmp-"). FolderRoot refuses every other name.
bool safe_local_path(std::string_view rel);

// A synced folder's root directory, opened once (O_DIRECTORY|O_NOFOLLOW). Every path below
// it is checked with safe_local_path and walked one directory at a time with
// openat(O_DIRECTORY|O_NOFOLLOW), so a symlink anywhere on the way -- planted before or
// during the run -- is never followed: the item is refused with an ItemSkipped (errors.h)
// that names the component. Writes are temp file (O_EXCL|O_NOFOLLOW), fsync, fchmod,
// futimens, renameat in the item's own directory; directories the folder gains are mkdirat
// 0755; a directory that exists is never chmod-ed.
class FolderRoot {
  public:
    explicit FolderRoot(const std::string& root);  // CliError when the root cannot be opened
    ~FolderRoot();  // waits for the writes behind (their failures are then dropped)
    FolderRoot(const FolderRoot&) = delete;
    FolderRoot& operator=(const FolderRoot&) = delete;
    const std::string& path() const { return root_; }
    // The root's descriptor, for reading the whole folder (scan): settle() first.
    int fd() const { return fd_.get(); }

    // Writes behind (a pull of many files): write_file returns once the temporary file is
    // written, its mode and mtime set; its fsync and rename run on a few threads of their
    // own, so that many files' fsyncs overlap (each still before its rename). Every other
    // method waits for the pending write of the name it touches; settle() waits for all of
    // them, and is called before the folder state is saved, so that the state never names a
    // file that is not durable in place. A write behind that failed is a CliError from
    // settle() (the run ends; the next pull writes it again).
    void write_behind(bool on) { behind_ = on; }
    void settle();

    // The directory `rel` ("" = the root). With `create`, missing directories are made (0755).
    // ItemSkipped when a component is a symlink or not a directory, or cannot be opened.
    Fd open_dir(std::string_view rel, bool create);
    // The entry's own lstat; nullopt when it is absent, or when a directory on its way is
    // absent, a symlink or not a directory.
    std::optional<struct stat> lstat(std::string_view rel);
    // A regular file opened for reading (O_NOFOLLOW); ItemSkipped otherwise.
    Fd open_read(std::string_view rel);
    // Replaces (or creates) the regular file `rel` atomically: `fill` writes the bytes to the
    // temporary file's descriptor; then fsync, mode, mtime (ms since 1970), rename. Missing
    // directories are made. ItemSkipped when it cannot be written there (the temporary file is
    // removed); an exception thrown by `fill` (a transfer that failed) passes as is. Returns the
    // written file's stat.
    struct stat write_file(std::string_view rel, const std::function<void(int fd)>& fill, int mode,
                           long long mtime_ms);
    // Renames `from` to `to` (both inside the folder) unless `to` exists; false when it does.
    // ItemSkipped when the move fails otherwise.
    bool rename_noreplace(std::string_view from, std::string_view to);
    // Removes the regular file `rel`; absent is fine. ItemSkipped when it cannot.
    void remove_file(std::string_view rel);

    // The mode a file written from an artifact gets (decisions §15): the artifact's mode
    // & 0755 with owner read/write always set -- never group/other write, setuid, setgid or
    // sticky. 0644 when the artifact has none (the web app sends none).
    static int file_mode(std::optional<long long> artifact_mode);

  private:
    // Walks `dir` (a safe relative directory) from the root; `create` makes what is missing.
    Fd walk(std::string_view dir, bool create, std::string_view item);
    void settle(std::string_view rel);  // waits for the write behind of `rel`, if any

    struct Behind;
    std::string root_;
    Fd fd_;
    bool behind_ = false;
    std::unique_ptr<Behind> writer_;
};

// write(2) until every byte is written; CliError naming `what` otherwise.
void write_all_fd(int fd, std::string_view data, const std::string& what);

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
