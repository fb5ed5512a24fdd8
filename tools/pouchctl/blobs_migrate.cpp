// blobs_migrate.cpp -- `pouchctl blobs migrate`: copies a blob directory (the local store's
// layout, common/storage/local_store.h) into the S3 bucket POUCH_BLOB_STORE names. Resumable:
// an object already in the bucket with the file's size and MD5 (its ETag) is skipped, anything
// else is PUT again, so a run stopped at any point is finished by running it again. It reads
// no database: rows already name these blobs, and the bucket serves them once the handlers
// are switched to it (docs/OPERATIONS.md, "Blobs on object storage").
#include <openssl/evp.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "common/config/config.h"
#include "common/crypto/hash.h"
#include "common/storage/local_store.h"
#include "tools/pouchctl/commands.h"

namespace {

int migrate_usage(FILE* to) {
    std::fprintf(to,
                 "usage: pouchctl blobs migrate [--from DIR] [--limit N]\n"
                 "       pouchctl blobs url ACCOUNT_ID BLOB_ID [--expires SECONDS]\n\n"
                 "Copies every blob file of DIR (default POUCH_BLOB_DIR) into the bucket of\n"
                 "POUCH_BLOB_STORE=s3://BUCKET (POUCH_S3_ENDPOINT, _REGION, _ACCESS_KEY,\n"
                 "_SECRET_KEY), under the same <account_id>/<blob_id> keys. Objects already\n"
                 "there with the file's size and MD5 are skipped: run it again after an\n"
                 "interruption, or until it copies nothing. --limit N stops after N copies.\n"
                 "Exit status 1 if any copy failed.\n");
    return to == stdout ? 0 : 2;
}

// The lower-case hex MD5 of a file (what S3 answers as the ETag of a single PUT); empty if
// the file cannot be read.
std::string md5_of(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return {};
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_md5(), nullptr) != 1) return {};
    char buf[64 * 1024];
    while (in.read(buf, sizeof buf) || in.gcount() > 0)
        EVP_DigestUpdate(ctx.get(), buf, static_cast<size_t>(in.gcount()));
    if (in.bad()) return {};
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_DigestFinal_ex(ctx.get(), md, &n);
    return pouch::crypto::to_hex(std::string_view(reinterpret_cast<char*>(md), n));
}

struct Counts {
    long long copied = 0, present = 0, failed = 0;
};

}  // namespace

namespace pouchctl {

int cmd_blobs(const Args& args) {
    if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) return migrate_usage(stdout);
    if (!args.empty() && args[0] == "url") return blobs_url(Args(args.begin() + 1, args.end()));
    if (args.empty() || args[0] != "migrate") return migrate_usage(stderr);
    pouch::config::Config config;
    try {
        config = pouch::config::Config::from_env();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pouchctl blobs migrate: bad configuration: %s\n", e.what());
        return 2;
    }
    std::string from = config.blob_dir;
    long long limit = -1;
    for (size_t i = 1; i < args.size(); ++i) {
        if (args[i] == "--help") return migrate_usage(stdout);
        if (i + 1 >= args.size()) return migrate_usage(stderr);
        if (args[i] == "--from") {
            from = args[++i];
        } else if (args[i] == "--limit") {
            const std::string& n = args[++i];
            if (n.empty() || n.size() > 12 ||
                n.find_first_not_of("0123456789") != std::string::npos)
                return migrate_usage(stderr);
            limit = std::atoll(n.c_str());
        } else {
            return migrate_usage(stderr);
        }
    }
    if (config.s3_bucket.empty()) {
        std::fprintf(stderr,
                     "pouchctl blobs migrate: POUCH_BLOB_STORE must name the target, "
                     "s3://BUCKET\n");
        return 2;
    }
    std::unique_ptr<pouch::storage::BlobStore> target = pouch::storage::open_blob_store(config);
    pouch::storage::LocalBlobStore source(from);

    Counts c;
    bool stopped = false;
    try {
        source.list([&](const std::vector<pouch::storage::StoredObject>& page) {
            for (const auto& o : page) {
                if (stopped) return;
                const std::string path = source.path(o.account_id, o.blob_id);
                auto there = target->stat(o.account_id, o.blob_id);
                if (there && there->size == o.size && there->etag == md5_of(path)) {
                    ++c.present;
                    continue;
                }
                if (limit >= 0 && c.copied >= limit) {
                    stopped = true;
                    return;
                }
                try {
                    target->put_file(path, o.account_id, o.blob_id);
                    ++c.copied;
                } catch (const pouch::storage::Unavailable&) {
                    throw;  // the store is down: nothing more will succeed now
                } catch (const std::exception& e) {
                    std::fprintf(stderr, "pouchctl blobs migrate: %s/%s: %s\n",
                                 o.account_id.c_str(), o.blob_id.c_str(), e.what());
                    ++c.failed;
                }
            }
        });
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pouchctl blobs migrate: the %s failed: %s\n",
                     target->describe().c_str(), e.what());
        std::printf("copied %lld, already there %lld, failed %lld (interrupted: run it again)\n",
                    c.copied, c.present, c.failed);
        return 1;
    }
    std::printf("copied %lld, already there %lld, failed %lld%s\n", c.copied, c.present, c.failed,
                stopped ? " (stopped at --limit: run it again to continue)" : "");
    return c.failed > 0 ? 1 : 0;
}

}  // namespace pouchctl
