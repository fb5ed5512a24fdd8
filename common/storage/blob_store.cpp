// blob_store.cpp -- see blob_store.h.
#include "common/storage/blob_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "common/crypto/hash.h"
#include "common/crypto/random.h"
#include "common/types/uuid.h"

namespace pouch::storage {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void io_failure(const std::string& what, const std::string& path) {
    throw std::runtime_error(what + " " + path + ": " + std::strerror(errno));
}

// Creates a directory if it is missing (0750, see blob_store.h). Returns true if it was created:
// its parent then needs an fsync for the entry to last.
bool ensure_dir(const std::string& path) {
    if (::mkdir(path.c_str(), 0750) == 0) return true;
    if (errno == EEXIST) return false;
    io_failure("mkdir", path);
}

void fsync_dir(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) io_failure("open", path);
    int rc = ::fsync(fd);
    ::close(fd);
    if (rc != 0) io_failure("fsync", path);
}

bool modified_before(const std::string& path, std::time_t cutoff) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 && st.st_mtime < cutoff;
}

}  // namespace

StagedBlob::StagedBlob(const BlobStore& store) : store_(store) {
    if (ensure_dir(store_.temp_dir())) fsync_dir(store_.root());
    path_ = store_.temp_dir() + "/" + crypto::to_hex(crypto::random_bytes(16));
    // 0640 exactly (fchmod: the umask may differ between deployments): nginx reads the file
    // through the directory's group once it is in place.
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
    if (fd_ < 0) io_failure("create", path_);
    if (::fchmod(fd_, 0640) != 0) {
        // A throwing constructor runs no destructor: the fd and the file are let go here.
        int err = errno;
        ::close(fd_);
        ::unlink(path_.c_str());
        errno = err;
        io_failure("fchmod", path_);
    }
}

StagedBlob::~StagedBlob() {
    if (fd_ >= 0) ::close(fd_);
    if (!placed_) ::unlink(path_.c_str());
}

void StagedBlob::write(const char* p, size_t n) {
    while (n > 0) {
        ssize_t w = ::write(fd_, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) io_failure("write", path_);
        p += w;
        n -= static_cast<size_t>(w);
    }
}

void StagedBlob::sync() {
    if (::fsync(fd_) != 0) io_failure("fsync", path_);
    ::close(fd_);
    fd_ = -1;
}

void StagedBlob::place(const std::string& account_id, const std::string& blob_id) {
    std::string dir = store_.account_dir(account_id);
    if (ensure_dir(dir)) fsync_dir(store_.root());
    std::string target = store_.path(account_id, blob_id);
    if (::rename(path_.c_str(), target.c_str()) != 0) io_failure("rename to", target);
    placed_ = true;
    fsync_dir(dir);
}

std::vector<std::string> BlobStore::accounts() const {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root_, ec)) {
        std::string name = e.path().filename().string();
        if (e.is_directory(ec) && is_uuid(name)) out.push_back(name);
    }
    return out;
}

std::vector<std::string> BlobStore::files(const std::string& account_id) const {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(account_dir(account_id), ec))
        if (e.is_regular_file(ec)) out.push_back(e.path().filename().string());
    return out;
}

std::vector<std::string> BlobStore::temp_files_before(std::time_t cutoff) const {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(temp_dir(), ec)) {
        std::string p = e.path().string();
        if (e.is_regular_file(ec) && modified_before(p, cutoff)) out.push_back(p);
    }
    return out;
}

bool BlobStore::older_than(const std::string& account_id, const std::string& blob_id,
                           std::time_t cutoff) const {
    return modified_before(path(account_id, blob_id), cutoff);
}

bool BlobStore::remove_path(const std::string& path) {
    return ::unlink(path.c_str()) == 0 || errno == ENOENT;
}

}  // namespace pouch::storage
