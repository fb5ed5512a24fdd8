// files.cpp -- POSIX file helpers (files.h). Every failure becomes a CliError naming the path
// and errno's text.
#include "clients/cli/files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "clients/cli/errors.h"
#include "common/crypto/b64url.h"
#include "common/crypto/random.h"

namespace pouch::cli {

namespace {

CliError io_error(const std::string& what, const std::string& path) {
    return CliError(kExitFailure, what + " " + path + ": " + std::strerror(errno));
}

void write_all(int fd, const std::string& data, const std::string& path) {
    for (size_t off = 0; off < data.size();) {
        ssize_t n = ::write(fd, data.data() + off, data.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw io_error("cannot write", path);
        off += static_cast<size_t>(n);
    }
}

}  // namespace

std::optional<std::string> read_file(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return std::nullopt;
        throw io_error("cannot open", path);
    }
    std::string out;
    char buf[65536];
    while (true) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            ::close(fd);
            throw io_error("cannot read", path);
        }
        if (n == 0) break;
        out.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return out;
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
        write_all(fd, data, tmp);
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
        if ((st.st_mode & 0777) != static_cast<unsigned>(mode) && ::chmod(path.c_str(), mode) != 0)
            throw io_error("cannot chmod", path);
        return;
    }
    std::string parent = parent_dir(path);
    if (parent != path && parent != "/" && parent != ".") {
        struct stat pst {};
        if (::stat(parent.c_str(), &pst) != 0) make_dirs(parent, 0755);
    }
    if (::mkdir(path.c_str(), mode) != 0 && errno != EEXIST) throw io_error("cannot create", path);
    ::chmod(path.c_str(), mode);  // mkdir's mode passes through the umask
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

ChunkReader::ChunkReader(const std::string& path, size_t chunk_size)
    : path_(path), buf_(chunk_size, '\0'), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) throw io_error("cannot open", path);
}

ChunkReader::~ChunkReader() {
    ::close(fd_);
}

std::string_view ChunkReader::next() {
    size_t filled = 0;
    while (!done_ && filled < buf_.size()) {
        ssize_t n = ::read(fd_, buf_.data() + filled, buf_.size() - filled);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw io_error("cannot read", path_);
        if (n == 0) done_ = true;
        filled += static_cast<size_t>(n);
    }
    return std::string_view(buf_.data(), filled);
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
