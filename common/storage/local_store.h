// local_store.h -- blobs in a local (or shared) directory, the default store:
//
//   <root>/<account_id>/<blob_id>   one file per blob of a storage account, mode 0640
//   <root>/tmp/<32 hex>             an upload being received; removed unless placed
//
// Directories are 0750: in production the root is setgid www-data (docs/OPERATIONS.md), so
// nginx reads through the group from its internal location (a unit test checks
// nginx/pouch.conf.template against kInternalLocation).
#pragma once

#include <string_view>

#include "common/storage/blob_store.h"

namespace pouch::storage {

// The nginx `internal` location that serves <root>/ (X-Accel-Redirect target prefix).
inline constexpr std::string_view kInternalLocation = "/_blobs/";

class LocalBlobStore final : public BlobStore {
  public:
    explicit LocalBlobStore(std::string root) : BlobStore(root), root_(std::move(root)) {}

    const std::string& root() const { return root_; }
    std::string account_dir(const std::string& account_id) const {
        return root_ + "/" + account_id;
    }
    std::string path(const std::string& account_id, const std::string& blob_id) const {
        return account_dir(account_id) + "/" + blob_id;
    }
    static std::string internal_uri(const std::string& account_id, const std::string& blob_id) {
        return std::string(kInternalLocation) + account_id + "/" + blob_id;
    }
    // Names of the account directories present (canonical UUIDs only; anything else is left).
    std::vector<std::string> accounts() const;
    // Names of the regular files in an account's directory (none if it does not exist).
    std::vector<std::string> files(const std::string& account_id) const;
    // True if the blob file exists and was last modified before `cutoff`.
    bool older_than(const std::string& account_id, const std::string& blob_id,
                    std::time_t cutoff) const;

    std::string describe() const override { return "directory " + root_; }
    bool keeps_staged_file() const override { return true; }
    void upload(StagedBlob&, const std::string&, const std::string&) const override {}
    // Renames the file to <root>/<account_id>/<blob_id> and makes the rename durable (whatever
    // `recheck`). A file already there (left by an upload whose transaction failed) has the
    // same bytes, as both hash to the id, so replacing it is harmless.
    void place(StagedBlob& staged, const std::string& account_id, const std::string& blob_id,
               bool recheck) const override;
    void put_file(const std::string& path, const std::string& account_id,
                  const std::string& blob_id) const override;
    std::optional<ObjectInfo> stat(const std::string& account_id,
                                   const std::string& blob_id) const override;
    std::string download_uri(const std::string& account_id, const std::string& blob_id,
                             std::time_t) const override {
        return internal_uri(account_id, blob_id);
    }
    void list(const std::function<void(const std::vector<StoredObject>&)>& page) const override;
    void remove(const std::string& account_id, const std::string& blob_id) const override;

  private:
    std::string root_;
};

}  // namespace pouch::storage
