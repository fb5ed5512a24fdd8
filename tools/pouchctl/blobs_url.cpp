// blobs_url.cpp -- `pouchctl blobs url`: a presigned GET URL of one blob straight at the S3 store
// of POUCH_BLOB_STORE, signed as the sync handler signs the downloads it hands nginx
// (common/storage/presign.h). For an operator checking the store, and for the s3 suite, which
// fetches it from radosgw (fresh, expired, tampered).
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>

#include "common/config/config.h"
#include "common/storage/s3_store.h"
#include "common/types/uuid.h"
#include "tools/pouchctl/commands.h"

namespace {

int url_usage(FILE* to) {
    std::fprintf(to,
                 "usage: pouchctl blobs url ACCOUNT_ID BLOB_ID [--expires SECONDS]\n\n"
                 "Prints a presigned GET URL of the object ACCOUNT_ID/BLOB_ID in the bucket of\n"
                 "POUCH_BLOB_STORE=s3://BUCKET, valid SECONDS (1..604800, default 60). It does\n"
                 "not check that the object exists. The bytes are the client's ciphertext.\n");
    return to == stdout ? 0 : 2;
}

}  // namespace

namespace pouchctl {

int blobs_url(const Args& args) {  // args after "url"
    if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) return url_usage(stdout);
    if (args.size() != 2 && args.size() != 4) return url_usage(stderr);
    int expires = 60;
    if (args.size() == 4) {
        const std::string& n = args[3];
        if (args[2] != "--expires" || n.empty() || n.size() > 6 ||
            n.find_first_not_of("0123456789") != std::string::npos)
            return url_usage(stderr);
        expires = std::atoi(n.c_str());
        if (expires < 1 || expires > 604800) return url_usage(stderr);
    }
    if (!pouch::is_uuid(args[0]) || args[1].empty() ||
        args[1].find_first_not_of(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") !=
            std::string::npos)
        return url_usage(stderr);
    pouch::config::Config config;
    try {
        config = pouch::config::Config::from_env();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pouchctl blobs url: bad configuration: %s\n", e.what());
        return 2;
    }
    if (config.s3_bucket.empty()) {
        std::fprintf(stderr, "pouchctl blobs url: POUCH_BLOB_STORE is not s3://BUCKET\n");
        return 2;
    }
    pouch::storage::S3BlobStore store(config.blob_dir, {.endpoint = config.s3_endpoint,
                                                        .region = config.s3_region,
                                                        .bucket = config.s3_bucket,
                                                        .access_key = config.s3_access_key,
                                                        .secret_key = config.s3_secret_key});
    std::printf("%s\n", store.presigned_url(args[0], args[1], std::time(nullptr), expires).c_str());
    return 0;
}

}  // namespace pouchctl
