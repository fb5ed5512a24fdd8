// storage_blob_store_test.cpp -- the blob layout of common/storage on a real temporary
// directory: staging, placing, modes, listing for gc, removal, and that nginx's internal
// location is the one the store names.
#include <sys/stat.h>
#include <utime.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "common/storage/local_store.h"

namespace fs = std::filesystem;
using pouch::storage::LocalBlobStore;
using pouch::storage::StagedBlob;

namespace {

const std::string kAccount = "0b6f3c1e-5a3d-4d8e-9f00-1234567890ab";
const std::string kBlob = "Ab-_0123456789abcdefghijklmnopqrstuvwxyzABCDE";

class BlobStoreTest : public ::testing::Test {
  protected:
    void SetUp() override {
        char tmpl[] = "/tmp/pouch-blobstore-XXXXXX";
        ASSERT_NE(::mkdtemp(tmpl), nullptr);
        root_ = tmpl;
    }
    void TearDown() override { fs::remove_all(root_); }

    static mode_t mode_of(const std::string& p) {
        struct stat st {};
        EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
        return st.st_mode & 07777;
    }
    static std::string read(const std::string& p) {
        std::ifstream f(p, std::ios::binary);
        std::stringstream s;
        s << f.rdbuf();
        return s.str();
    }
    static void age(const std::string& p, long seconds) {
        struct utimbuf t {};
        t.actime = t.modtime = std::time(nullptr) - seconds;
        ASSERT_EQ(::utime(p.c_str(), &t), 0) << p;
    }
    size_t temp_count() const {
        size_t n = 0;
        for ([[maybe_unused]] const auto& e : fs::directory_iterator(root_ + "/tmp")) ++n;
        return n;
    }

    std::string root_;
};

TEST_F(BlobStoreTest, PlacedBlobLandsAtAccountSlashIdWithItsModes) {
    LocalBlobStore store(root_);
    {
        StagedBlob s(store);
        s.write("hello ", 6);
        s.write("world", 5);
        s.sync();
        s.place(kAccount, kBlob);
    }
    std::string p = root_ + "/" + kAccount + "/" + kBlob;
    EXPECT_EQ(store.path(kAccount, kBlob), p);
    EXPECT_EQ(read(p), "hello world");
    EXPECT_EQ(mode_of(p), 0640u);
    EXPECT_EQ(mode_of(root_ + "/" + kAccount), 0750u);
    EXPECT_EQ(temp_count(), 0u) << "the staged file was moved, not copied";
}

TEST_F(BlobStoreTest, TheDirectoryStagesEveryUploadInAFileWhateverItsSize) {
    LocalBlobStore store(root_);
    StagedBlob s(store, 11);
    EXPECT_FALSE(s.in_memory());
    EXPECT_EQ(temp_count(), 1u);
    s.write("hello world", 11);
    s.sync();
    s.place(kAccount, kBlob, false);  // renamed into place, whatever `recheck`
    EXPECT_EQ(read(store.path(kAccount, kBlob)), "hello world");
    EXPECT_EQ(temp_count(), 0u);
}

TEST_F(BlobStoreTest, UnplacedStagedFileIsRemoved) {
    LocalBlobStore store(root_);
    {
        StagedBlob s(store);
        s.write("partial", 7);
        EXPECT_EQ(temp_count(), 1u);
    }
    EXPECT_EQ(temp_count(), 0u);
    EXPECT_TRUE(store.accounts().empty());
}

TEST_F(BlobStoreTest, PlacingOverAStrayFileReplacesIt) {
    LocalBlobStore store(root_);
    fs::create_directory(root_ + "/" + kAccount);
    std::ofstream(store.path(kAccount, kBlob)) << "stale";
    StagedBlob s(store);
    s.write("fresh", 5);
    s.sync();
    s.place(kAccount, kBlob);
    EXPECT_EQ(read(store.path(kAccount, kBlob)), "fresh");
}

TEST_F(BlobStoreTest, ListingForGcSeesUuidDirectoriesFilesAndOldTemporaries) {
    LocalBlobStore store(root_);
    fs::create_directory(root_ + "/" + kAccount);
    fs::create_directory(root_ + "/not-an-account");
    fs::create_directory(root_ + "/tmp");
    std::ofstream(store.path(kAccount, "a")) << "1";
    std::ofstream(store.path(kAccount, "b")) << "2";
    std::ofstream(root_ + "/tmp/old") << "x";
    std::ofstream(root_ + "/tmp/new") << "y";
    age(root_ + "/tmp/old", 25 * 3600);
    age(store.path(kAccount, "a"), 25 * 3600);

    EXPECT_EQ(store.accounts(), std::vector<std::string>{kAccount});
    auto files = store.files(kAccount);
    std::sort(files.begin(), files.end());
    EXPECT_EQ(files, (std::vector<std::string>{"a", "b"}));
    EXPECT_TRUE(store.files("0b6f3c1e-5a3d-4d8e-9f00-000000000000").empty());

    const std::time_t day_ago = std::time(nullptr) - 24 * 3600;
    EXPECT_EQ(store.temp_files_before(day_ago), std::vector<std::string>{root_ + "/tmp/old"});
    EXPECT_TRUE(store.older_than(kAccount, "a", day_ago));
    EXPECT_FALSE(store.older_than(kAccount, "b", day_ago));
    EXPECT_FALSE(store.older_than(kAccount, "missing", day_ago));
}

TEST_F(BlobStoreTest, RemoveTreatsAMissingFileAsRemoved) {
    LocalBlobStore store(root_);
    fs::create_directory(root_ + "/" + kAccount);
    std::ofstream(store.path(kAccount, kBlob)) << "x";
    EXPECT_NO_THROW(store.remove(kAccount, kBlob));
    EXPECT_FALSE(fs::exists(store.path(kAccount, kBlob)));
    EXPECT_NO_THROW(store.remove(kAccount, kBlob));
}

TEST_F(BlobStoreTest, ListingPagesEveryAccountsFilesWithSizeAndTime) {
    LocalBlobStore store(root_);
    fs::create_directory(root_ + "/" + kAccount);
    fs::create_directory(root_ + "/tmp");
    std::ofstream(store.path(kAccount, "a")) << "123";
    std::ofstream(root_ + "/tmp/upload") << "x";
    age(store.path(kAccount, "a"), 3600);
    std::vector<pouch::storage::StoredObject> seen;
    store.list([&](const auto& page) { seen.insert(seen.end(), page.begin(), page.end()); });
    ASSERT_EQ(seen.size(), 1u) << "tmp/ is not an account";
    EXPECT_EQ(seen[0].account_id, kAccount);
    EXPECT_EQ(seen[0].blob_id, "a");
    EXPECT_EQ(seen[0].size, 3);
    EXPECT_NEAR(static_cast<double>(seen[0].modified),
                static_cast<double>(std::time(nullptr) - 3600), 5);
}

TEST_F(BlobStoreTest, PutFileCopiesAndStatSeesTheSize) {
    LocalBlobStore store(root_);
    std::string src = root_ + "/source";
    std::ofstream(src) << "copied bytes";
    EXPECT_FALSE(store.stat(kAccount, kBlob));
    store.put_file(src, kAccount, kBlob);
    EXPECT_EQ(read(store.path(kAccount, kBlob)), "copied bytes");
    ASSERT_TRUE(store.stat(kAccount, kBlob));
    EXPECT_EQ(store.stat(kAccount, kBlob)->size, 12);
    EXPECT_EQ(read(src), "copied bytes") << "the source stays";
    EXPECT_EQ(temp_count(), 0u);
}

TEST(BlobStoreLayout, InternalUriIsTheNginxLocationPlusTheRelativePath) {
    EXPECT_EQ(LocalBlobStore::internal_uri(kAccount, kBlob), "/_blobs/" + kAccount + "/" + kBlob);
}

// nginx serves downloads from the location the store names, aliased to the blob root: the
// template and the example production config must agree with kInternalLocation.
TEST(BlobStoreLayout, NginxConfigsServeTheStoresInternalLocation) {
    const std::string loc(pouch::storage::kInternalLocation);
    for (const char* file : {"nginx/pouch.conf.template", "nginx/pouch.conf"}) {
        std::ifstream f(file);
        ASSERT_TRUE(f) << file << " not found (run from the repository root)";
        std::stringstream s;
        s << f.rdbuf();
        std::smatch m;
        std::string text = s.str();
        std::regex block("location " + loc + R"( \{([^}]*)\})");
        ASSERT_TRUE(std::regex_search(text, m, block)) << file << " has no location " << loc;
        std::string body = m[1];
        EXPECT_NE(body.find("internal;"), std::string::npos) << file;
        EXPECT_TRUE(std::regex_search(body, std::regex(R"(alias [^;]*/;)"))) << file;
    }
}

}  // namespace
