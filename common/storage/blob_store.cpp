// blob_store.cpp -- staging of uploads (common to every store) and the choice of the store.
#include "common/storage/blob_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "common/config/config.h"
#include "common/crypto/hash.h"
#include "common/crypto/random.h"
#include "common/storage/fs_util.h"
#include "common/storage/local_store.h"
#include "common/storage/s3_store.h"
#include "common/storage/staging_pool.h"

namespace pouch::storage {

namespace fs = std::filesystem;

void StagingRelease::operator()(char* p) const noexcept {
    StagingPool::instance().release(p);
}

StagedBlob::StagedBlob(const BlobStore& store) : store_(store) {
    open_file();
}

StagedBlob::StagedBlob(const BlobStore& store, long long size) : store_(store) {
    if (!store_.keeps_staged_file() && size >= 0 && size <= kMaxBodyInMemory) {
        // A reused buffer (staging_pool.h), not cleared: only the bytes received are read.
        memory_.reset(StagingPool::instance().acquire());
        capacity_ = size;
        return;
    }
    open_file();
}

void StagedBlob::open_file() {
    if (ensure_dir(store_.temp_dir())) fsync_dir(store_.staging_root());
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
    if (!moved_ && !path_.empty()) ::unlink(path_.c_str());
}

void StagedBlob::write(const char* p, size_t n) {
    if (in_memory()) {
        if (static_cast<long long>(n) > capacity_ - size_)
            throw std::logic_error("staged blob: more bytes than its size");
        std::memcpy(memory_.get() + size_, p, n);
        size_ += static_cast<long long>(n);
        return;
    }
    while (n > 0) {
        ssize_t w = ::write(fd_, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) io_failure("write", path_);
        p += w;
        n -= static_cast<size_t>(w);
        size_ += w;
    }
}

std::span<char> StagedBlob::space() {
    if (in_memory()) return {memory_.get() + size_, static_cast<size_t>(capacity_ - size_)};
    constexpr size_t kScratch = 256 * 1024;
    if (!scratch_) scratch_ = std::make_unique_for_overwrite<char[]>(kScratch);
    return {scratch_.get(), kScratch};
}

void StagedBlob::commit(size_t n) {
    if (in_memory()) {
        if (static_cast<long long>(n) > capacity_ - size_)
            throw std::logic_error("staged blob: more bytes than its size");
        size_ += static_cast<long long>(n);
        return;
    }
    write(scratch_.get(), n);
}

void StagedBlob::sync() {
    if (in_memory()) return;
    if (store_.keeps_staged_file() && ::fsync(fd_) != 0) io_failure("fsync", path_);
    ::close(fd_);
    fd_ = -1;
}

void StagedBlob::place(const std::string& account_id, const std::string& blob_id, bool recheck) {
    store_.place(*this, account_id, blob_id, recheck);
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

bool BlobStore::remove_path(const std::string& path) {
    return ::unlink(path.c_str()) == 0 || errno == ENOENT;
}

void BlobStore::upload_streamed(UploadSource&, long long, const std::string&,
                                const std::string&) const {
    throw std::logic_error("this blob store does not stream uploads: " + describe());
}

std::unique_ptr<BlobStore> open_blob_store(const config::Config& c) {
    if (c.s3_bucket.empty()) return std::make_unique<LocalBlobStore>(c.blob_dir);
    return std::make_unique<S3BlobStore>(c.blob_dir, S3Settings{.endpoint = c.s3_endpoint,
                                                                .region = c.s3_region,
                                                                .bucket = c.s3_bucket,
                                                                .access_key = c.s3_access_key,
                                                                .secret_key = c.s3_secret_key});
}

}  // namespace pouch::storage
