// storage_s3_test.cpp -- the parts of the S3 store that need no server: SigV4 presigning
// against AWS's published example (S3 API reference, "Authenticating Requests: Using Query
// Parameters": GET examplebucket/test.txt, 2013-05-24, 86400 s), the download URI nginx gets,
// the ListObjectsV2 reader, the POUCH_BLOB_STORE settings, nginx's /_s3/ location, and
// uploads staged in memory up to kMaxBodyInMemory. The
// same signatures are checked against a real radosgw by tests/s3/.
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

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
