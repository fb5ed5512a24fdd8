// local_store.cpp -- see local_store.h.
#include "common/storage/local_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <stdexcept>

#include "common/storage/fs_util.h"
#include "common/types/uuid.h"

namespace pouch::storage {

namespace fs = std::filesystem;

void LocalBlobStore::place(StagedBlob& staged, const std::string& account_id,
                           const std::string& blob_id, bool) const {
    std::string dir = account_dir(account_id);
    if (ensure_dir(dir)) fsync_dir(root_);
    std::string target = path(account_id, blob_id);
    if (::rename(staged.path().c_str(), target.c_str()) != 0) io_failure("rename to", target);
    staged.mark_moved();
    fsync_dir(dir);
}

void LocalBlobStore::put_file(const std::string& from, const std::string& account_id,
                              const std::string& blob_id) const {
    int fd = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) io_failure("open", from);
    StagedBlob staged(*this);
    char buf[64 * 1024];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            int err = errno;
            ::close(fd);
            errno = err;
            io_failure("read", from);
        }
        if (n == 0) break;
        staged.write(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    staged.sync();
    place(staged, account_id, blob_id, true);
}

std::optional<ObjectInfo> LocalBlobStore::stat(const std::string& account_id,
                                               const std::string& blob_id) const {
    struct stat st {};
    std::string p = path(account_id, blob_id);
    if (::stat(p.c_str(), &st) != 0) {
        if (errno == ENOENT) return std::nullopt;
        io_failure("stat", p);
    }
    return ObjectInfo{.size = st.st_size, .etag = {}};
}

std::vector<std::string> LocalBlobStore::accounts() const {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root_, ec)) {
        std::string name = e.path().filename().string();
        if (e.is_directory(ec) && is_uuid(name)) out.push_back(name);
    }
    return out;
}

std::vector<std::string> LocalBlobStore::files(const std::string& account_id) const {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(account_dir(account_id), ec))
        if (e.is_regular_file(ec)) out.push_back(e.path().filename().string());
    return out;
}

bool LocalBlobStore::older_than(const std::string& account_id, const std::string& blob_id,
                                std::time_t cutoff) const {
    return modified_before(path(account_id, blob_id), cutoff);
}

void LocalBlobStore::list(const std::function<void(const std::vector<StoredObject>&)>& page) const {
    constexpr size_t kPage = 1000;
    for (const std::string& account_id : accounts()) {
        std::vector<StoredObject> objects;
        for (const std::string& name : files(account_id)) {
            struct stat st {};
            if (::lstat(path(account_id, name).c_str(), &st) != 0) continue;  // gone meanwhile
            objects.push_back({account_id, name, st.st_size, st.st_mtime});
            if (objects.size() == kPage) {
                page(objects);
                objects.clear();
            }
        }
        if (!objects.empty()) page(objects);
    }
}

void LocalBlobStore::remove(const std::string& account_id, const std::string& blob_id) const {
    std::string p = path(account_id, blob_id);
    if (!remove_path(p)) io_failure("unlink", p);
}

}  // namespace pouch::storage
