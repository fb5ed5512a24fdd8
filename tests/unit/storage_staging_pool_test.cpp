// storage_staging_pool_test.cpp -- the buffers uploads are staged in (common/storage/
// staging_pool.h): aligned for huge pages, writable end to end, reused up to the idle bound
// and unmapped beyond it.
#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <set>

#include <gtest/gtest.h>

#include "common/storage/blob_store.h"
#include "common/storage/staging_pool.h"

using pouch::storage::StagingPool;

namespace {

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;

// True while [p, p + len) is mapped in this process (msync fails with ENOMEM otherwise).
bool mapped(char* p, size_t len) {
    return ::msync(p, len, MS_ASYNC) == 0;
}

TEST(StagingPool, BufferHoldsTheLargestInMemoryBodyOnAHugePageBoundary) {
    StagingPool pool(1);
    char* b = pool.acquire();
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b) % kHugePage, 0u);
    EXPECT_GE(StagingPool::kBufferBytes, static_cast<size_t>(pouch::storage::kMaxBodyInMemory));
    EXPECT_EQ(StagingPool::kBufferBytes % kHugePage, 0u);
    std::memset(b, 0x5a, StagingPool::kBufferBytes);
    EXPECT_EQ(b[StagingPool::kBufferBytes - 1], 0x5a);
    pool.release(b);
}

TEST(StagingPool, ReleasedBuffersAreReusedUpToTheIdleBoundAndUnmappedBeyond) {
    StagingPool pool(2);
    char* a = pool.acquire();
    char* b = pool.acquire();
    char* c = pool.acquire();
    std::memcpy(a, "first", 5);
    pool.release(a);
    pool.release(b);
    EXPECT_EQ(pool.idle(), 2u);
    pool.release(c);  // the idle list is full: c is given back to the kernel
    EXPECT_EQ(pool.idle(), 2u);
    EXPECT_FALSE(mapped(c, StagingPool::kBufferBytes));
    EXPECT_EQ(errno, ENOMEM);

    std::set<char*> kept{a, b};
    char* again = pool.acquire();
    EXPECT_EQ(kept.count(again), 1u);
    EXPECT_TRUE(mapped(again, StagingPool::kBufferBytes));
    EXPECT_EQ(pool.idle(), 1u);
    // not cleared: the bytes of the upload before are still there (StagedBlob reads only
    // what it received)
    EXPECT_EQ(std::memcmp(a, "first", 5), 0);
    pool.release(again);
}

TEST(StagingPool, ReleasingNothingKeepsNothing) {
    StagingPool pool(2);
    pool.release(nullptr);
    EXPECT_EQ(pool.idle(), 0u);
}

}  // namespace
