// s3_store.h -- blobs as objects of one S3 bucket (Ceph's RADOS Gateway, or any S3 store),
// path-style: <endpoint>/<bucket>/<account_id>/<blob_id>. Requests go through libcurl, signed
// by its CURLOPT_AWS_SIGV4 with `x-amz-content-sha256: UNSIGNED-PAYLOAD` sent (RGW refuses
// the signature without it, decisions §11); downloads are presigned here (presign.h) for
// nginx's internal /_s3/ location. One curl handle per thread keeps connections alive.
#pragma once

#include "common/storage/blob_store.h"

namespace pouch::storage {

// The nginx `internal` location that proxies to the store (X-Accel-Redirect target prefix):
// /_s3/<scheme>/<host[:port]>/<bucket>/<key>?<presigned query>.
inline constexpr std::string_view kS3InternalLocation = "/_s3/";
// How long a presigned download URL is valid: nginx uses it at once.
inline constexpr int kPresignSeconds = 60;

struct S3Settings {
    std::string endpoint;  // "http://127.0.0.1:7480" (no trailing slash)
    std::string region;
    std::string bucket;
    std::string access_key;
    std::string secret_key;
};

class S3BlobStore final : public BlobStore {
  public:
    S3BlobStore(std::string staging_root, S3Settings s);

    const S3Settings& settings() const { return s_; }
    std::string describe() const override;
    bool keeps_staged_file() const override { return false; }
    // The PUT of the staged bytes (from memory, or from the staged file).
    void upload(StagedBlob& staged, const std::string& account_id,
                const std::string& blob_id) const override;
    bool streams_uploads() const override { return true; }
    bool placed_by_upload() const override { return true; }
    // The PUT with Content-Length `size`, its body read from `source` as curl sends it (the
    // connection's usual timeouts apply); an exception of source aborts it mid-body.
    void upload_streamed(UploadSource& source, long long size, const std::string& account_id,
                         const std::string& blob_id) const override;
    // Nothing unless `recheck`; then a HEAD, and the PUT again if the object is missing or of
    // another size.
    void place(StagedBlob& staged, const std::string& account_id, const std::string& blob_id,
               bool recheck) const override;
    void put_file(const std::string& path, const std::string& account_id,
                  const std::string& blob_id) const override;
    std::optional<ObjectInfo> stat(const std::string& account_id,
                                   const std::string& blob_id) const override;
    std::string download_uri(const std::string& account_id, const std::string& blob_id,
                             std::time_t now) const override;
    // A presigned GET URL of the object straight at the store, valid `expires_seconds` from
    // `now` (what download_uri hands nginx, for `pouchctl blobs url`).
    std::string presigned_url(const std::string& account_id, const std::string& blob_id,
                              std::time_t now, int expires_seconds) const;
    // ListObjectsV2, 1,000 keys a page, following the continuation token.
    void list(const std::function<void(const std::vector<StoredObject>&)>& page) const override;
    void remove(const std::string& account_id, const std::string& blob_id) const override;

  private:
    // "/<bucket>/<key>?<presigned query>".
    std::string presigned_path(const std::string& account_id, const std::string& blob_id,
                               std::time_t now, int expires_seconds) const;
    std::string object_url(const std::string& account_id, const std::string& blob_id) const;

    S3Settings s_;
    std::string scheme_, authority_;  // of the endpoint: "http", "127.0.0.1:7480"
};

// Reads one ListObjectsV2 answer: the objects of keys <uuid>/<name>, and the continuation
// token ("" on the last page). Exposed for the unit test.
struct ListPage {
    std::vector<StoredObject> objects;
    std::string next_token;
};
ListPage parse_list_page(const std::string& xml);

}  // namespace pouch::storage
