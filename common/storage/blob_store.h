// blob_store.h -- where blob bytes live (decisions §5.5), behind one interface: a local
// directory (LocalBlobStore, local_store.h) or an S3 bucket (S3BlobStore, s3_store.h), chosen
// by POUCH_BLOB_STORE (open_blob_store). The sync handler stages, uploads, places and names
// downloads through it; `pouchctl gc` lists and removes through it; `pouchctl blobs migrate`
// copies a directory into a bucket. Keys are `<account_id>/<blob_id>` in both.
//
// An upload is staged -- in a local temporary file (<staging root>/tmp/<32 hex>), or in memory
// when the store keeps its own copy and the body is at most kMaxBodyInMemory -- checked (size,
// BLAKE3) by the caller, then upload() (slow, no lock held) and place() (under the account's
// storage_accounts row lock) make it visible under its final key. After place() returns the
// object is there, so the caller may insert the row that names it. The store knows nothing of
// the database.
#pragma once

#include <ctime>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace pouch::config {
struct Config;
}

namespace pouch::storage {

// The store cannot be reached or answered 5xx: the request may be retried later (the edge
// answers 503 unavailable). Any other failure is a std::runtime_error (500).
struct Unavailable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// One object as a listing sees it.
struct StoredObject {
    std::string account_id, blob_id;
    long long size = 0;
    std::time_t modified = 0;
};

// What a stat of one object finds. `etag` is the S3 ETag without its quotes (the MD5 of the
// bytes for a single PUT); empty for the local directory.
struct ObjectInfo {
    long long size = 0;
    std::string etag;
};

class BlobStore;

// The largest upload a store that keeps its own copy (S3) stages in memory rather than in a
// file: the clients' chunks are at most 4 MiB plus their header and tag (decisions §5.5), so
// they all fit; a handler thread then holds at most this much (16 threads: 128 MiB, and up to
// 8 buffers kept between uploads: staging_pool.h), and a larger body (up to the 64 MiB limit)
// goes through a staging file as before.
inline constexpr long long kMaxBodyInMemory = 8LL << 20;

// Gives a staged upload's memory back to StagingPool::instance() (staging_pool.h).
struct StagingRelease {
    void operator()(char* p) const noexcept;
};

// An upload being received: a temporary file under <staging root>/tmp/, removed on destruction
// unless the local store renamed it into place, or a buffer in memory (in_memory()). Errors
// throw std::runtime_error (a 500: the disk, not the client, failed).
class StagedBlob {
  public:
    // A file, whatever the size (what `pouchctl blobs migrate` and the tests use).
    explicit StagedBlob(const BlobStore& store);
    // An upload of `size` bytes: in memory when the store keeps its own copy and `size` is at
    // most kMaxBodyInMemory, else a file.
    StagedBlob(const BlobStore& store, long long size);
    ~StagedBlob();
    StagedBlob(const StagedBlob&) = delete;
    StagedBlob& operator=(const StagedBlob&) = delete;

    void write(const char* p, size_t n);
    // Where the next bytes may be read to, without a copy: the rest of the memory buffer
    // (empty once full), or a scratch buffer of the file's. commit(n) then takes the first n.
    std::span<char> space();
    void commit(size_t n);
    // Closes the file, first making its bytes durable when the store keeps the file itself
    // (BlobStore::keeps_staged_file). Nothing in memory.
    void sync();
    // Places the staged bytes through the store they were staged for (BlobStore::place).
    void place(const std::string& account_id, const std::string& blob_id, bool recheck = true);

    bool in_memory() const { return memory_ != nullptr; }
    // The bytes received, in memory only.
    std::string_view bytes() const { return {memory_.get(), static_cast<size_t>(size_)}; }
    const std::string& path() const { return path_; }
    long long size() const { return size_; }
    // The file was renamed away: the destructor leaves its name alone.
    void mark_moved() { moved_ = true; }

  private:
    void open_file();

    const BlobStore& store_;
    std::string path_;
    int fd_ = -1;
    long long size_ = 0;
    bool moved_ = false;
    std::unique_ptr<char[], StagingRelease> memory_;  // in memory: `capacity_` bytes
    long long capacity_ = 0;
    std::unique_ptr<char[]> scratch_;  // a file's space()
};

// A body handed to the store while it is still arriving (BlobStore::upload_streamed). read()
// gives up to n more bytes, 0 at the end; it throws to abort the transfer, and the store then
// stores nothing. rewind() goes back to a byte it already gave, should the request be resent.
class UploadSource {
  public:
    virtual ~UploadSource() = default;
    virtual size_t read(char* buf, size_t n) = 0;
    virtual bool rewind(long long offset) = 0;
};

class BlobStore {
  public:
    // `staging_root`: the local directory whose tmp/ holds uploads being received.
    explicit BlobStore(std::string staging_root) : staging_root_(std::move(staging_root)) {}
    virtual ~BlobStore() = default;
    BlobStore(const BlobStore&) = delete;
    BlobStore& operator=(const BlobStore&) = delete;

    const std::string& staging_root() const { return staging_root_; }
    std::string temp_dir() const { return staging_root_ + "/tmp"; }
    // Full paths of temporary files last modified before `cutoff`.
    std::vector<std::string> temp_files_before(std::time_t cutoff) const;
    // Unlinks a temporary file by full path; a file already gone counts as removed. False
    // with errno set on failure.
    static bool remove_path(const std::string& path);

    // For messages: "directory /var/lib/pouch/blobs", "s3://bucket at http://host:7480".
    virtual std::string describe() const = 0;
    // True when the staged file itself becomes the blob (renamed into place), so its bytes must
    // be made durable before the row names it; false when the store keeps its own copy (an S3
    // PUT is durable once answered) and the staged file is only read back and removed.
    virtual bool keeps_staged_file() const = 0;
    // Step 1 of making checked staged bytes the object <account_id>/<blob_id>, with no lock
    // held: may take long (the S3 PUT). Nothing for the local directory.
    virtual void upload(StagedBlob& staged, const std::string& account_id,
                        const std::string& blob_id) const = 0;
    // True when upload_streamed() can send a body as it arrives (S3: a PUT fed as it reads).
    virtual bool streams_uploads() const { return false; }
    // Step 1 without waiting for the whole body: one request that stores `size` bytes pulled
    // from `source` as the object, complete only once source has given all of them. When
    // source throws, the request is abandoned before its last byte -- an S3 PUT of an
    // incomplete body stores nothing, and one already there stays -- and its exception is
    // rethrown. Throws std::logic_error where streams_uploads() is false.
    virtual void upload_streamed(UploadSource& source, long long size,
                                 const std::string& account_id, const std::string& blob_id) const;
    // Step 2, under the account's lock: when it returns, the object is there with the staged
    // bytes. The directory renames the file into place. On S3 the PUT of step 1 stands when
    // `recheck` is false -- the caller's promise that gc cannot have removed the object since
    // step 1 began (the upload's reservation was held all along: gc never removes an object
    // whose key is reserved, tools/pouchctl/gc.cpp) -- else a HEAD, and the PUT again when the
    // object is missing or of another size.
    virtual void place(StagedBlob& staged, const std::string& account_id,
                       const std::string& blob_id, bool recheck) const = 0;
    // True when place() without `recheck` does nothing (S3: the PUT of step 1 stands), so an
    // upload whose reservation was held all along records its row without the store.
    virtual bool placed_by_upload() const { return false; }
    // Stores a local file's bytes as the object (replacing one already there).
    virtual void put_file(const std::string& path, const std::string& account_id,
                          const std::string& blob_id) const = 0;
    // The object's size (and ETag), or nullopt when it is absent.
    virtual std::optional<ObjectInfo> stat(const std::string& account_id,
                                           const std::string& blob_id) const = 0;
    // The X-Accel-Redirect value that makes nginx send this blob at time `now`.
    virtual std::string download_uri(const std::string& account_id, const std::string& blob_id,
                                     std::time_t now) const = 0;
    // Every object whose key is <uuid>/<name>, in pages of at most 1,000 (other keys are left
    // alone). The callback may remove objects of the page it was given.
    virtual void list(const std::function<void(const std::vector<StoredObject>&)>& page) const = 0;
    // Removes an object; one already gone counts as removed. Throws on failure.
    virtual void remove(const std::string& account_id, const std::string& blob_id) const = 0;

  private:
    std::string staging_root_;
};

// The store POUCH_BLOB_STORE names: s3://BUCKET with the POUCH_S3_* settings, else the
// directory POUCH_BLOB_DIR. Uploads are staged under POUCH_BLOB_DIR in both cases.
std::unique_ptr<BlobStore> open_blob_store(const config::Config& config);

}  // namespace pouch::storage
