// files.cpp -- POSIX file helpers (files.h). Every failure becomes a CliError naming the path
// and errno's text; FolderRoot's failures on one item are ItemSkipped.
#include "clients/cli/files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <condition_variable>
#include <cstdio>  // renameat2
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "clients/cli/errors.h"
#include "common/clientfmt/artifact.h"
#include "common/clientfmt/cdc.h"
#include "common/crypto/b64url.h"
#include "common/crypto/random.h"

namespace pouch::cli {

namespace {

CliError io_error(const std::string& what, const std::string& path) {
    return CliError(kExitFailure, what + " " + path + ": " + std::strerror(errno));
}

}  // namespace

void write_all_fd(int fd, std::string_view data, const std::string& what) {
    for (size_t off = 0; off < data.size();) {
        ssize_t n = ::write(fd, data.data() + off, data.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw io_error("cannot write", what);
        off += static_cast<size_t>(n);
    }
}

Fd::~Fd() {
    if (fd_ >= 0) ::close(fd_);
}

Fd& Fd::operator=(Fd&& o) noexcept {
    if (this != &o) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = o.release();
    }
    return *this;
}

std::optional<std::string> read_file_limited(const std::string& path, size_t max_bytes,
                                             const std::string& what) {
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) {
        if (errno == ENOENT) return std::nullopt;
        throw io_error("cannot open", path);
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) == 0 && static_cast<unsigned long long>(st.st_size) > max_bytes)
        throw CliError(kExitFailure, what + " " + path + " is larger than " +
                                         std::to_string(max_bytes) + " bytes");
    std::string out;
    if (st.st_size > 0) out.reserve(static_cast<size_t>(st.st_size));
    char buf[65536];
    while (true) {
        ssize_t n = ::read(fd.get(), buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw io_error("cannot read", path);
        if (n == 0) break;
        out.append(buf, static_cast<size_t>(n));
        if (out.size() > max_bytes)
            throw CliError(kExitFailure, what + " " + path + " is larger than " +
                                             std::to_string(max_bytes) + " bytes");
    }
    return out;
}

std::optional<std::string> read_file(const std::string& path) {
    return read_file_limited(path, static_cast<size_t>(-1), "the file");
}

std::string parent_dir(const std::string& path) {
    auto slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

std::string join_path(const std::string& a, const std::string& b) {
    if (a.empty() || a.back() == '/') return a + b;
    return a + "/" + b;
}

void write_file_atomic(const std::string& path, const std::string& data, int mode) {
    std::string tmp = path + ".tmp-" + crypto::b64url_encode(crypto::random_bytes(6));
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0) throw io_error("cannot create", tmp);
    try {
        write_all_fd(fd, data, tmp);
        if (::fsync(fd) != 0) throw io_error("cannot sync", tmp);
    } catch (...) {
        ::close(fd);
        ::unlink(tmp.c_str());
        throw;
    }
    if (::close(fd) != 0) {
        ::unlink(tmp.c_str());
        throw io_error("cannot write", tmp);
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        ::unlink(tmp.c_str());
        throw io_error("cannot replace", path);
    }
    // The rename is durable only once the directory entry is.
    int dfd = ::open(parent_dir(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

void make_dirs(const std::string& path, int mode) {
    if (path.empty()) return;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            throw CliError(kExitFailure, path + " exists and is not a directory");
        return;  // as it is: a directory that exists is never chmod-ed
    }
    std::string parent = parent_dir(path);
    if (parent != path && parent != "/" && parent != ".") {
        struct stat pst {};
        if (::stat(parent.c_str(), &pst) != 0) make_dirs(parent, 0755);
    }
    if (::mkdir(path.c_str(), static_cast<mode_t>(mode)) != 0) {
        if (errno == EEXIST) return;  // made meanwhile by someone else: theirs, left alone
        throw io_error("cannot create", path);
    }
    // mkdir's mode passes through the umask; the directory just made gets `mode` exactly,
    // through a descriptor of it (never a symlink put in its place).
    Fd d(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (d) ::fchmod(d.get(), static_cast<mode_t>(mode));
}

void remove_file(const std::string& path) {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) throw io_error("cannot remove", path);
}

bool exists(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
}

std::string absolute_path(const std::string& path) {
    char buf[PATH_MAX];
    if (!::realpath(path.c_str(), buf)) throw io_error("cannot resolve", path);
    return buf;
}

ChunkReader::ChunkReader(Fd fd, const std::string& name, size_t max_chunks)
    : path_(name), buf_(std::make_unique_for_overwrite<char[]>(kBufSize)), fd_(std::move(fd)) {
    // Every chunk but the last is over kCdcMin bytes, so only a file over kMaxFileChunks of
    // them can need more than kMaxFileChunks chunks: count its cuts, then read it again.
    struct stat st {};
    if (::fstat(fd_.get(), &st) != 0) throw io_error("cannot stat", path_);
    if (static_cast<unsigned long long>(st.st_size) <= max_chunks * clientfmt::kCdcMin) return;
    size_t chunks = 0;
    while (!next().empty()) ++chunks;
    fixed_ = chunks > max_chunks;
    if (::lseek(fd_.get(), 0, SEEK_SET) != 0) throw io_error("cannot seek", path_);
    start_ = end_ = 0;
    done_ = false;
}

std::string_view ChunkReader::next() {
    if (end_ - start_ < clientfmt::kCdcMax && !done_) {
        // Keep kCdcMax bytes ahead: the rest moves to the front, the buffer fills behind it.
        std::memmove(buf_.get(), buf_.get() + start_, end_ - start_);
        end_ -= start_;
        start_ = 0;
        while (!done_ && end_ < kBufSize) {
            ssize_t n = ::read(fd_.get(), buf_.get() + end_, kBufSize - end_);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) throw io_error("cannot read", path_);
            if (n == 0) done_ = true;
            end_ += static_cast<size_t>(n);
        }
    }
    size_t ahead = std::min(end_ - start_, clientfmt::kCdcMax);
    size_t cut = fixed_ ? ahead : clientfmt::cdc_cut(std::string_view(buf_.get() + start_, ahead));
    std::string_view out(buf_.get() + start_, cut);
    start_ += cut;
    return out;
}

// ---- FolderRoot ---------------------------------------------------------------------------

bool safe_local_path(std::string_view rel) {
    if (!clientfmt::safe_relative_path(rel)) return false;
    std::string_view prefix(kTempPrefix);
    for (size_t start = 0;;) {
        size_t end = rel.find('/', start);
        if (rel.substr(start, end == std::string_view::npos ? rel.npos : end - start)
                .substr(0, prefix.size()) == prefix)
            return false;
        if (end == std::string_view::npos) return true;
        start = end + 1;
    }
}

namespace {

std::string errno_text(int err) {
    return std::strerror(err);
}

// Why the directory component `name` of `dirfd` could not be opened as a directory (`err`
// from openat), in words: a symlink, a file where a directory belongs, or errno's text.
std::string why_not_a_dir(int dirfd, const std::string& name, const std::string& shown, int err) {
    struct stat st {};
    if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISLNK(st.st_mode)) return shown + " is a symlink (pouch never follows one)";
        if (!S_ISDIR(st.st_mode)) return shown + " is a file here, not a directory";
    }
    return shown + ": " + errno_text(err);
}

// (directory part, last segment) of a relative path.
std::pair<std::string_view, std::string_view> split_leaf(std::string_view rel) {
    size_t slash = rel.rfind('/');
    if (slash == std::string_view::npos) return {std::string_view(), rel};
    return {rel.substr(0, slash), rel.substr(slash + 1)};
}

ItemSkipped unsafe(std::string_view rel) {
    return ItemSkipped("\"" + std::string(rel) + "\" is not a safe relative path");
}

}  // namespace

// The writes behind of a FolderRoot: jobs (a written temporary file to fsync and rename into
// place) taken by kThreads threads; `pending` the names not yet in place.
struct FolderRoot::Behind {
    static constexpr int kThreads = 8;
    struct Job {
        Fd dir, file;
        std::string tmp, leaf, rel;
    };
    std::mutex mu;
    std::condition_variable cv, idle;
    std::deque<Job> jobs;
    std::multiset<std::string> pending;
    std::optional<std::string> error;
    bool stop = false;
    std::vector<std::thread> threads;

    Behind() {
        for (int i = 0; i < kThreads; ++i) threads.emplace_back([this] { work(); });
    }
    ~Behind() {
        {
            std::lock_guard<std::mutex> l(mu);
            stop = true;
        }
        cv.notify_all();
        for (auto& t : threads) t.join();
    }
    void work() {
        while (true) {
            Job j;
            {
                std::unique_lock<std::mutex> l(mu);
                cv.wait(l, [&] { return stop || !jobs.empty(); });
                if (jobs.empty()) return;  // stop, and nothing left
                j = std::move(jobs.front());
                jobs.pop_front();
            }
            std::string failed;
            if (::fsync(j.file.get()) != 0)
                failed = "cannot sync " + j.rel + ": " + std::strerror(errno);
            else if (::close(j.file.release()) != 0 ||
                     ::renameat(j.dir.get(), j.tmp.c_str(), j.dir.get(), j.leaf.c_str()) != 0)
                failed = "cannot write " + j.rel + ": " + std::strerror(errno);
            if (!failed.empty()) ::unlinkat(j.dir.get(), j.tmp.c_str(), 0);
            std::lock_guard<std::mutex> l(mu);
            if (!failed.empty() && !error) error = failed;
            pending.erase(pending.find(j.rel));
            idle.notify_all();
        }
    }
};

FolderRoot::FolderRoot(const std::string& root)
    : root_(root), fd_(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) {
    if (!fd_) throw io_error("cannot open the synced folder", root);
}

FolderRoot::~FolderRoot() = default;  // ~Behind finishes every job first

void FolderRoot::settle() {
    if (!writer_) return;
    std::unique_lock<std::mutex> l(writer_->mu);
    writer_->idle.wait(l, [&] { return writer_->pending.empty(); });
    if (auto e = std::move(writer_->error)) {
        writer_->error.reset();
        throw CliError(kExitFailure, *e);
    }
}

void FolderRoot::settle(std::string_view rel) {
    if (!writer_) return;
    {
        std::lock_guard<std::mutex> l(writer_->mu);
        if (!writer_->pending.count(std::string(rel))) return;
    }
    settle();
}

int FolderRoot::file_mode(std::optional<long long> artifact_mode) {
    long long m = artifact_mode.value_or(0644);
    return static_cast<int>((m & 0755) | 0600);
}

Fd FolderRoot::walk(std::string_view dir, bool create, std::string_view item) {
    Fd cur(::fcntl(fd_.get(), F_DUPFD_CLOEXEC, 0));
    if (!cur) throw io_error("cannot use the synced folder", root_);
    for (size_t start = 0; start < dir.size();) {
        size_t end = dir.find('/', start);
        if (end == std::string_view::npos) end = dir.size();
        std::string name(dir.substr(start, end - start));
        std::string shown(dir.substr(0, end));
        constexpr int kFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
        int f = ::openat(cur.get(), name.c_str(), kFlags);
        if (f < 0 && errno == ENOENT) {
            if (!create) return Fd();
            bool made = ::mkdirat(cur.get(), name.c_str(), 0755) == 0;
            if (!made && errno != EEXIST)
                throw ItemSkipped("cannot write " + std::string(item) + ": cannot create " + shown +
                                  ": " + errno_text(errno));
            f = ::openat(cur.get(), name.c_str(), kFlags);
            // mkdirat's mode passes through the umask: a directory made here is 0755.
            if (f >= 0 && made) ::fchmod(f, 0755);
        }
        if (f < 0)
            throw ItemSkipped("cannot use " + std::string(item) + ": " +
                              why_not_a_dir(cur.get(), name, shown, errno));
        cur = Fd(f);
        start = end + 1;
    }
    return cur;
}

Fd FolderRoot::open_dir(std::string_view rel, bool create) {
    settle(rel);
    if (rel.empty()) return walk("", false, ".");
    if (!safe_local_path(rel)) throw unsafe(rel);
    Fd d = walk(rel, create, rel);
    if (!d) throw ItemSkipped(std::string(rel) + " is not there");
    return d;
}

std::optional<struct stat> FolderRoot::lstat(std::string_view rel) {
    settle(rel);
    if (!safe_local_path(rel)) return std::nullopt;
    auto [dir, leaf] = split_leaf(rel);
    Fd d;
    try {
        d = walk(dir, false, rel);
    } catch (const ItemSkipped&) {
        return std::nullopt;
    }
    if (!d) return std::nullopt;
    struct stat st {};
    if (::fstatat(d.get(), std::string(leaf).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return std::nullopt;
    return st;
}

Fd FolderRoot::open_read(std::string_view rel) {
    settle(rel);
    if (!safe_local_path(rel)) throw unsafe(rel);
    auto [dir, leaf] = split_leaf(rel);
    Fd d = walk(dir, false, rel);
    if (!d) throw ItemSkipped(std::string(rel) + " disappeared while it was being read");
    // O_NONBLOCK: a FIFO put in the file's place must not hang the run.
    Fd f(::openat(d.get(), std::string(leaf).c_str(),
                  O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!f) {
        int err = errno;
        if (err == ENOENT)
            throw ItemSkipped(std::string(rel) + " disappeared while it was being read");
        if (err == ELOOP) throw ItemSkipped(std::string(rel) + " is a symlink now");
        throw ItemSkipped("cannot read " + std::string(rel) + ": " + errno_text(err));
    }
    struct stat st {};
    if (::fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode))
        throw ItemSkipped(std::string(rel) + " is not a regular file now");
    return f;
}

struct stat FolderRoot::write_file(std::string_view rel, const std::function<void(int fd)>& fill,
                                   int mode, long long mtime_ms) {
    if (!safe_local_path(rel)) throw unsafe(rel);
    settle(rel);
    auto [dir, leaf_view] = split_leaf(rel);
    std::string leaf(leaf_view);
    Fd d = walk(dir, true, rel);
    struct stat st {};
    if (::fstatat(d.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
        throw ItemSkipped("cannot write " + std::string(rel) + ": a directory has its name here");
    std::string tmp = std::string(kTempPrefix) + crypto::b64url_encode(crypto::random_bytes(9));
    Fd f(
        ::openat(d.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!f) throw ItemSkipped("cannot write " + std::string(rel) + ": " + errno_text(errno));
    try {
        fill(f.get());
    } catch (...) {
        ::unlinkat(d.get(), tmp.c_str(), 0);
        throw;
    }
    auto fail = [&](const char* what) {
        int err = errno;
        ::unlinkat(d.get(), tmp.c_str(), 0);
        return ItemSkipped(std::string(what) + " " + std::string(rel) + ": " + errno_text(err));
    };
    if (!behind_ && ::fsync(f.get()) != 0) throw fail("cannot sync");
    if (::fchmod(f.get(), static_cast<mode_t>(mode)) != 0) throw fail("cannot set the mode of");
    timespec times[2];
    times[0].tv_sec = times[1].tv_sec = static_cast<time_t>(mtime_ms / 1000);
    times[0].tv_nsec = times[1].tv_nsec = static_cast<long>((mtime_ms % 1000) * 1000000);
    ::futimens(f.get(), times);
    struct stat written {};
    if (::fstat(f.get(), &written) != 0) throw fail("cannot write");
    if (behind_) {
        if (!writer_) writer_ = std::make_unique<Behind>();
        {
            std::lock_guard<std::mutex> l(writer_->mu);
            writer_->pending.insert(std::string(rel));
            writer_->jobs.push_back({std::move(d), std::move(f), tmp, leaf, std::string(rel)});
        }
        writer_->cv.notify_one();
        return written;
    }
    if (::close(f.release()) != 0) throw fail("cannot write");
    if (::renameat(d.get(), tmp.c_str(), d.get(), leaf.c_str()) != 0) throw fail("cannot write");
    return written;
}

bool FolderRoot::rename_noreplace(std::string_view from, std::string_view to) {
    for (auto rel : {from, to}) {
        if (!safe_local_path(rel)) throw unsafe(rel);
        settle(rel);
    }
    auto [fdir, fleaf] = split_leaf(from);
    auto [tdir, tleaf] = split_leaf(to);
    Fd fd = walk(fdir, false, from);
    if (!fd) throw ItemSkipped(std::string(from) + " is not there");
    Fd td = walk(tdir, true, to);
    std::string f(fleaf), t(tleaf);
    if (::renameat2(fd.get(), f.c_str(), td.get(), t.c_str(), RENAME_NOREPLACE) == 0) return true;
    if (errno == EEXIST) return false;
    if (errno == EINVAL || errno == ENOSYS) {  // a file system without RENAME_NOREPLACE
        struct stat st {};
        if (::fstatat(td.get(), t.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) return false;
        if (::renameat(fd.get(), f.c_str(), td.get(), t.c_str()) == 0) return true;
    }
    throw ItemSkipped("cannot move " + std::string(from) + " to " + std::string(to) + ": " +
                      errno_text(errno));
}

void FolderRoot::remove_file(std::string_view rel) {
    if (!safe_local_path(rel)) throw unsafe(rel);
    settle(rel);
    auto [dir, leaf] = split_leaf(rel);
    Fd d = walk(dir, false, rel);
    if (!d) return;
    if (::unlinkat(d.get(), std::string(leaf).c_str(), 0) != 0 && errno != ENOENT)
        throw ItemSkipped("cannot remove " + std::string(rel) + ": " + errno_text(errno));
}

FileLock::FileLock(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0) throw io_error("cannot open lock", path);
    while (::flock(fd_, LOCK_EX) != 0) {
        if (errno != EINTR) {
            ::close(fd_);
            throw io_error("cannot lock", path);
        }
    }
}

FileLock::~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace pouch::cli
