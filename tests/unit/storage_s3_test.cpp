// storage_s3_test.cpp -- the parts of the S3 store that need no server: SigV4 presigning
// against AWS's published example (S3 API reference, "Authenticating Requests: Using Query
// Parameters": GET examplebucket/test.txt, 2013-05-24, 86400 s), the download URI nginx gets,
// the ListObjectsV2 reader, the POUCH_BLOB_STORE settings, nginx's /_s3/ location, and
// uploads staged in memory up to kMaxBodyInMemory. The
// same signatures are checked against a real radosgw by tests/s3/, which also runs the S3Live
// tests here (streamed PUTs: stored whole, or not at all when refused before the last byte).
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>

#include <gtest/gtest.h>

#include "common/config/config.h"
#include "common/storage/presign.h"
#include "common/storage/s3_store.h"

using namespace pouch::storage;

namespace {

const std::string kAccount = "0b6f3c1e-5a3d-4d8e-9f00-1234567890ab";

TEST(S3Presign, MatchesAwsPublishedExample) {
    Presigned p = presign({.method = "GET",
                           .host = "examplebucket.s3.amazonaws.com",
                           .path = "/test.txt",
                           .region = "us-east-1",
                           .access_key = "AKIAIOSFODNN7EXAMPLE",
                           .secret_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                           .now = 1369353600,  // 2013-05-24T00:00:00Z
                           .expires_seconds = 86400});
    EXPECT_EQ(p.canonical_request,
              "GET\n/test.txt\n"
              "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2F"
              "us-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&"
              "X-Amz-SignedHeaders=host\nhost:examplebucket.s3.amazonaws.com\n\nhost\n"
              "UNSIGNED-PAYLOAD");
    EXPECT_EQ(p.string_to_sign,
              "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
              "3bfa292879f6447bbcda7001decf97f4a54dc650c8942174ae0a9121cf58ad04");
    EXPECT_EQ(p.signature, "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
    EXPECT_EQ(p.query,
              "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2F"
              "us-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&"
              "X-Amz-SignedHeaders=host&X-Amz-Signature="
              "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
}

TEST(S3Presign, UriEncodingKeepsOnlyUnreservedBytes) {
    EXPECT_EQ(uri_encode("a-Z_0.~", false), "a-Z_0.~");
    EXPECT_EQ(uri_encode("a/b c+é", false), "a%2Fb%20c%2B%C3%A9");
    EXPECT_EQ(uri_encode("a/b", true), "a/b");
}

TEST(S3Store, DownloadUriIsTheNginxLocationSchemeHostPathAndPresignedQuery) {
    S3BlobStore store("/tmp", {.endpoint = "http://127.0.0.1:7480",
                               .region = "us-east-1",
                               .bucket = "pouch-blobs",
                               .access_key = "AK",
                               .secret_key = "SK"});
    const std::string blob = "Ab-_0123456789abcdefghijklmnopqrstuvwxyzABCDE";
    std::string uri = store.download_uri(kAccount, blob, 1369353600);
    Presigned p = presign({.method = "GET",
                           .host = "127.0.0.1:7480",
                           .path = "/pouch-blobs/" + kAccount + "/" + blob,
                           .region = "us-east-1",
                           .access_key = "AK",
                           .secret_key = "SK",
                           .now = 1369353600,
                           .expires_seconds = kPresignSeconds});
    EXPECT_EQ(uri, "/_s3/http/127.0.0.1:7480/pouch-blobs/" + kAccount + "/" + blob + "?" + p.query);
    EXPECT_NE(uri.find("&X-Amz-Expires=60&"), std::string::npos);
}

// An upload for the bucket is staged in memory up to kMaxBodyInMemory (no file under tmp/),
// read into without a copy through space()/commit(), and refuses more bytes than its size;
// above the bound it is a file, as every upload is for the local directory.
TEST(S3Store, UploadsUpToTheBoundAreStagedInMemoryLargerOnesInAFile) {
    char tmpl[] = "/tmp/pouch-s3stage-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    const std::string root = tmpl;
    S3BlobStore store(root, {.endpoint = "http://127.0.0.1:7480",
                             .region = "us-east-1",
                             .bucket = "pouch-blobs",
                             .access_key = "AK",
                             .secret_key = "SK"});
    auto temp_files = [&] {
        size_t n = 0;
        std::error_code ec;
        for ([[maybe_unused]] const auto& e :
             std::filesystem::directory_iterator(root + "/tmp", ec))
            ++n;
        return n;
    };
    {
        StagedBlob s(store, 11);
        EXPECT_TRUE(s.in_memory());
        EXPECT_EQ(temp_files(), 0u);
        std::span<char> into = s.space();
        ASSERT_EQ(into.size(), 11u);
        std::memcpy(into.data(), "hello ", 6);
        s.commit(6);
        EXPECT_EQ(s.space().size(), 5u);
        s.write("world", 5);
        EXPECT_TRUE(s.space().empty());
        EXPECT_EQ(s.bytes(), "hello world");
        EXPECT_EQ(s.size(), 11);
        EXPECT_THROW(s.write("!", 1), std::logic_error);
        EXPECT_THROW(s.commit(1), std::logic_error);
        s.sync();  // nothing to flush or close
        EXPECT_EQ(s.bytes(), "hello world");
    }
    EXPECT_TRUE(StagedBlob(store, kMaxBodyInMemory).in_memory());
    {
        StagedBlob s(store, kMaxBodyInMemory + 1);
        EXPECT_FALSE(s.in_memory());
        EXPECT_EQ(temp_files(), 1u);
        EXPECT_EQ(s.space().size(), 256u * 1024);
        std::memcpy(s.space().data(), "abc", 3);
        s.commit(3);
        EXPECT_EQ(s.size(), 3);
    }
    EXPECT_EQ(temp_files(), 0u) << "the staging file goes with its StagedBlob";
    std::filesystem::remove_all(root);
}

TEST(S3Store, ListPageReadsAccountKeysAndTheContinuationToken) {
    const std::string xml =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult><Name>b</Name>"
        "<IsTruncated>true</IsTruncated><NextContinuationToken>tok&amp;en</NextContinuationToken>"
        "<Contents><Key>" +
        kAccount +
        "/blob1</Key><LastModified>2026-11-27T13:00:05.123Z"
        "</LastModified><ETag>&quot;abc&quot;</ETag><Size>42</Size></Contents>"
        "<Contents><Key>stray-key</Key><Size>1</Size></Contents>"
        "<Contents><Key>" +
        kAccount +
        "/a/b</Key><Size>1</Size></Contents>"
        "</ListBucketResult>";
    ListPage p = parse_list_page(xml);
    ASSERT_EQ(p.objects.size(), 1u) << "keys that are not <uuid>/<name> are left alone";
    EXPECT_EQ(p.objects[0].account_id, kAccount);
    EXPECT_EQ(p.objects[0].blob_id, "blob1");
    EXPECT_EQ(p.objects[0].size, 42);
    EXPECT_EQ(p.objects[0].modified, 1795784405);  // 2026-11-27T13:00:05Z
    EXPECT_EQ(p.next_token, "tok&en");
    EXPECT_EQ(parse_list_page("<ListBucketResult><IsTruncated>false</IsTruncated>"
                              "</ListBucketResult>")
                  .next_token,
              "");
}

struct EnvGuard {
    std::vector<std::string> names;
    void set(const std::string& n, const std::string& v) {
        names.push_back(n);
        ::setenv(n.c_str(), v.c_str(), 1);
    }
    ~EnvGuard() {
        for (const auto& n : names) ::unsetenv(n.c_str());
    }
};

TEST(S3Config, BlobStoreS3NeedsEndpointAndKeys) {
    EnvGuard env;
    env.set("POUCH_BLOB_STORE", "s3://pouch-blobs");
    EXPECT_THROW(pouch::config::Config::from_env(), pouch::config::BadConfig);
    env.set("POUCH_S3_ENDPOINT", "http://127.0.0.1:7480/");
    EXPECT_THROW(pouch::config::Config::from_env(), pouch::config::BadConfig);
    env.set("POUCH_S3_ACCESS_KEY", "AK");
    env.set("POUCH_S3_SECRET_KEY", "SK");
    auto c = pouch::config::Config::from_env();
    EXPECT_EQ(c.s3_bucket, "pouch-blobs");
    EXPECT_EQ(c.s3_endpoint, "http://127.0.0.1:7480");
    EXPECT_EQ(c.s3_region, "us-east-1");
    env.set("POUCH_S3_ENDPOINT", "http://127.0.0.1:7480/bucket");
    EXPECT_THROW(pouch::config::Config::from_env(), pouch::config::BadConfig);
    env.set("POUCH_S3_ENDPOINT", "http://127.0.0.1:7480");
    env.set("POUCH_BLOB_STORE", "s3://Bad_Bucket");
    EXPECT_THROW(pouch::config::Config::from_env(), pouch::config::BadConfig);
}

TEST(S3Config, BlobStoreUnsetOrAPathIsTheDirectory) {
    EnvGuard env;
    env.set("POUCH_BLOB_DIR", "/srv/blobs");
    EXPECT_EQ(pouch::config::Config::from_env().blob_dir, "/srv/blobs");
    EXPECT_TRUE(pouch::config::Config::from_env().s3_bucket.empty());
    env.set("POUCH_BLOB_STORE", "/data/blobs");
    EXPECT_EQ(pouch::config::Config::from_env().blob_dir, "/data/blobs");
    env.set("POUCH_BLOB_STORE", "relative/path");
    EXPECT_THROW(pouch::config::Config::from_env(), pouch::config::BadConfig);
}

// nginx proxies the presigned URL from an internal regex location that splits what
// download_uri builds, and sends none of the client's credentials to the store.
TEST(S3Store, NginxConfigsProxyTheS3InternalLocation) {
    for (const char* file : {"nginx/pouch.conf.template", "nginx/pouch.conf"}) {
        std::ifstream f(file);
        ASSERT_TRUE(f) << file << " not found (run from the repository root)";
        std::stringstream s;
        s << f.rdbuf();
        std::string text = s.str();
        std::smatch m;
        ASSERT_TRUE(std::regex_search(
            text, m,
            std::regex(R"(location ~ \^/_s3/\(https\?\)/\(\[\^/\]\+\)/\(\.\+\)\$ \{([^}]*)\})")))
            << file << " has no /_s3/ location";
        std::string body = m[1];
        EXPECT_NE(body.find("internal;"), std::string::npos) << file;
        EXPECT_NE(body.find("proxy_pass $1://$2/$3$is_args$args;"), std::string::npos) << file;
        EXPECT_NE(body.find("proxy_pass_request_headers off;"), std::string::npos) << file;
        EXPECT_NE(body.find("proxy_method GET;"), std::string::npos) << file;
    }
}

}  // namespace

namespace {

// --- streamed PUTs on a real radosgw ------------------------------------------------------------
// Run by the s3 suite (tests/s3/run.sh sets POUCH_S3_* from its Ceph's s3.env); skipped when no
// store is named. An upload streamed while it arrives (S3BlobStore::upload_streamed) must store
// the object only when its source gave every byte: a source that throws before its last byte
// leaves nothing (and an object already there untouched), and the thread's curl handle serves
// the next request.

// The store the s3 suite names, or nullopt.
std::optional<S3Settings> live_settings() {
    const char* store = std::getenv("POUCH_BLOB_STORE");
    const char* endpoint = std::getenv("POUCH_S3_ENDPOINT");
    if (!store || std::strncmp(store, "s3://", 5) != 0 || !endpoint) return std::nullopt;
    auto env = [](const char* name) {
        const char* v = std::getenv(name);
        return std::string(v ? v : "");
    };
    return S3Settings{.endpoint = endpoint,
                      .region = env("POUCH_S3_REGION"),
                      .bucket = std::string(store + 5),
                      .access_key = env("POUCH_S3_ACCESS_KEY"),
                      .secret_key = env("POUCH_S3_SECRET_KEY")};
}

// Each test gets `store`, the live store; skipped when none is named.
class S3Live : public ::testing::Test {
  protected:
    void SetUp() override {
        std::optional<S3Settings> settings = live_settings();
        if (!settings)
            GTEST_SKIP() << "no S3 store named (POUCH_BLOB_STORE=s3://..., run by the s3 suite)";
        store.emplace("/tmp", *settings);
    }
    std::optional<S3BlobStore> store;
};

// Gives `bytes` in pieces of at most `piece`, and throws `refusal` instead of giving byte
// number `stop_at` (never, when it is npos).
class PiecesSource final : public UploadSource {
  public:
    PiecesSource(std::string bytes, size_t piece, size_t stop_at = std::string::npos)
        : bytes_(std::move(bytes)), piece_(piece), stop_at_(stop_at) {}
    size_t read(char* buf, size_t n) override {
        size_t end = std::min({bytes_.size(), at_ + std::min(n, piece_), stop_at_});
        if (at_ == stop_at_) throw std::invalid_argument("refused at byte " + std::to_string(at_));
        std::memcpy(buf, bytes_.data() + at_, end - at_);
        size_t got = end - at_;
        at_ = end;
        return got;
    }
    bool rewind(long long offset) override {
        at_ = static_cast<size_t>(offset);
        return true;
    }

  private:
    std::string bytes_;
    size_t piece_, stop_at_, at_ = 0;
};

// Gives half of its bytes, then says it is at its end.
class EndsEarlySource final : public UploadSource {
  public:
    explicit EndsEarlySource(size_t size) : left_(size / 2) {}
    size_t read(char* buf, size_t n) override {
        size_t len = std::min(n, left_);
        std::memset(buf, 'x', len);
        left_ -= len;
        return len;
    }
    bool rewind(long long) override { return false; }

  private:
    size_t left_;
};

std::string random_bytes(size_t n, unsigned seed) {
    std::string s(n, '\0');
    for (size_t i = 0; i < n; ++i) {
        seed = seed * 1103515245u + 12345u;
        s[i] = static_cast<char>(seed >> 16);
    }
    return s;
}

std::string unique_blob(const char* what) {
    return std::string("streamed-") + what + "-" + std::to_string(::getpid()) + "-" +
           std::to_string(std::time(nullptr));
}

TEST_F(S3Live, AStreamedPutStoresTheWholeBody) {
    const std::string id = unique_blob("whole"), bytes = random_bytes(4 << 20, 1);
    PiecesSource source(bytes, 10000);
    store->upload_streamed(source, static_cast<long long>(bytes.size()), kAccount, id);
    auto info = store->stat(kAccount, id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->size, 4 << 20);
    // The same bytes PUT from memory: the same ETag (the MD5 of the bytes).
    const std::string copy = id + "-copy";
    StagedBlob staged(*store, static_cast<long long>(bytes.size()));
    staged.write(bytes.data(), bytes.size());
    store->upload(staged, kAccount, copy);
    EXPECT_EQ(info->etag, store->stat(kAccount, copy)->etag);
    store->remove(kAccount, id);
    store->remove(kAccount, copy);
}

TEST_F(S3Live, AStreamRefusedBeforeItsLastByteStoresNothingAndTheHandleServesTheNext) {
    const std::string bytes = random_bytes(4 << 20, 2);
    const long long size = static_cast<long long>(bytes.size());
    for (size_t stop : {bytes.size() - 1, size_t{300000}, size_t{0}}) {
        const std::string id = unique_blob("refused") + "-" + std::to_string(stop);
        PiecesSource refused(bytes, 65536, stop);
        try {
            store->upload_streamed(refused, size, kAccount, id);
            ADD_FAILURE() << "stopped at " << stop << ": no exception";
        } catch (const std::invalid_argument& e) {
            EXPECT_EQ(std::string(e.what()), "refused at byte " + std::to_string(stop));
        }
        EXPECT_FALSE(store->stat(kAccount, id))
            << "stopped at " << stop << ": an object was stored";
        // The same thread's handle, at once: the whole body is stored under that key.
        PiecesSource whole(bytes, 65536);
        store->upload_streamed(whole, size, kAccount, id);
        auto info = store->stat(kAccount, id);
        ASSERT_TRUE(info) << "stopped at " << stop;
        EXPECT_EQ(info->size, size);
        store->remove(kAccount, id);
    }
}

TEST_F(S3Live, ARefusedStreamLeavesTheObjectAlreadyThereUntouched) {
    const std::string id = unique_blob("kept"), bytes = random_bytes(1 << 20, 3);
    PiecesSource first(bytes, 65536);
    store->upload_streamed(first, static_cast<long long>(bytes.size()), kAccount, id);
    const std::string etag = store->stat(kAccount, id)->etag;
    const std::string other = random_bytes(1 << 20, 4);
    PiecesSource refused(other, 65536, other.size() - 1);
    EXPECT_THROW(
        store->upload_streamed(refused, static_cast<long long>(other.size()), kAccount, id),
        std::invalid_argument);
    auto info = store->stat(kAccount, id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->etag, etag);
    EXPECT_EQ(info->size, 1 << 20);
    store->remove(kAccount, id);
}

TEST_F(S3Live, AStreamThatEndsBeforeItsSizeIsRefusedAndStoresNothing) {
    const std::string id = unique_blob("short");
    EndsEarlySource source(1 << 20);
    try {
        store->upload_streamed(source, 1 << 20, kAccount, id);
        ADD_FAILURE() << "no exception";
    } catch (const std::logic_error& e) {
        EXPECT_EQ(std::string(e.what()), "s3: the streamed body ended at 524288 of 1048576 bytes");
    }
    EXPECT_FALSE(store->stat(kAccount, id));
}

}  // namespace
