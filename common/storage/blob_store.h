// blob_store.h -- the one owner of the on-disk blob layout (decisions §5.5). The sync handler
// stages and places uploads through it, `pouchctl gc` lists and removes through it, and nginx's
// internal download location is named here (a unit test checks nginx/pouch.conf.template
// against kInternalLocation):
//
//   <root>/<account_id>/<blob_id>   one file per blob of a storage account, mode 0640
//   <root>/tmp/<32 hex>             an upload being received; removed unless placed
//
// Directories are 0750: in production the root is setgid www-data (docs/OPERATIONS.md), so
// nginx reads through the group. The store knows nothing of the database; its callers hold the
// account's storage_accounts row lock while they place or remove a file.
#pragma once

#include <ctime>
#include <string>
#include <string_view>
#include <vector>

namespace pouch::storage {

// The nginx `internal` location that serves <root>/ (X-Accel-Redirect target prefix).
inline constexpr std::string_view kInternalLocation = "/_blobs/";

class BlobStore;

// An upload being received: a temporary file under <root>/tmp/, removed on destruction unless
// place() moved it to its final name. Errors throw std::runtime_error (a 500: the disk, not
// the client, failed).
class StagedBlob {
  public:
    explicit StagedBlob(const BlobStore& store);
    ~StagedBlob();
    StagedBlob(const StagedBlob&) = delete;
    StagedBlob& operator=(const StagedBlob&) = delete;

    void write(const char* p, size_t n);
    // Makes the bytes durable and closes the file.
    void sync();
    // Renames the file to <root>/<account_id>/<blob_id> and makes the rename durable. A file
    // already there (left by an upload whose transaction failed) has the same bytes, as both
    // hash to the id, so replacing it is harmless.
    void place(const std::string& account_id, const std::string& blob_id);

  private:
    const BlobStore& store_;
    std::string path_;
    int fd_ = -1;
    bool placed_ = false;
};

class BlobStore {
  public:
    explicit BlobStore(std::string root) : root_(std::move(root)) {}

    const std::string& root() const { return root_; }
    std::string account_dir(const std::string& account_id) const { return root_ + "/" + account_id; }
    std::string path(const std::string& account_id, const std::string& blob_id) const {
        return account_dir(account_id) + "/" + blob_id;
    }
    std::string temp_dir() const { return root_ + "/tmp"; }
    // The X-Accel-Redirect value that makes nginx send this blob.
    static std::string internal_uri(const std::string& account_id, const std::string& blob_id) {
        return std::string(kInternalLocation) + account_id + "/" + blob_id;
    }

    // Names of the account directories present (canonical UUIDs only; anything else is left).
    std::vector<std::string> accounts() const;
    // Names of the regular files in an account's directory (none if it does not exist).
    std::vector<std::string> files(const std::string& account_id) const;
    // Full paths of temporary files last modified before `cutoff`.
    std::vector<std::string> temp_files_before(std::time_t cutoff) const;
    // True if the blob file exists and was last modified before `cutoff`.
    bool older_than(const std::string& account_id, const std::string& blob_id,
                    std::time_t cutoff) const;
    // Unlinks a blob or temporary file by full path; a file already gone counts as removed.
    // False with errno set on failure.
    static bool remove_path(const std::string& path);
    bool remove(const std::string& account_id, const std::string& blob_id) const {
        return remove_path(path(account_id, blob_id));
    }

  private:
    std::string root_;
};

}  // namespace pouch::storage
