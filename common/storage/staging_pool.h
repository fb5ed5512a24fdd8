// staging_pool.h -- the memory of uploads staged in memory (StagedBlob), kept between uploads.
// A fresh buffer costs the kernel a page fault and a cleared page for every page the body
// fills: for a 4 MiB body on S3 that was about a quarter of the sync handler's CPU (perf,
// docs/PERFORMANCE.md, issue 27). Buffers are anonymous mappings of kMaxBodyInMemory bytes,
// aligned to 2 MiB and marked for transparent huge pages (two faults for 4 MiB where the
// kernel allows them), and a released buffer goes back to an idle list of at most `idle_max`
// for the next upload, so it is neither faulted nor cleared again.
//
// A reused buffer still holds an earlier upload's bytes: StagedBlob reads only what it
// received into it. A buffer's pages are resident once touched, a huge page at a time, and
// stay so while it is idle: at most 8 x 8 MiB between uploads, 8 x 6 MiB after the clients'
// chunks (4 MiB plus their header and tag touch three 2 MiB pages).
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

namespace pouch::storage {

class StagingPool {
  public:
    // Every buffer's size: kMaxBodyInMemory (blob_store.h).
    static const size_t kBufferBytes;

    // The process's pool (8 idle buffers at most).
    static StagingPool& instance();

    explicit StagingPool(size_t idle_max);
    ~StagingPool();
    StagingPool(const StagingPool&) = delete;
    StagingPool& operator=(const StagingPool&) = delete;

    // A buffer of kBufferBytes: an idle one, else a new mapping (std::bad_alloc when the
    // kernel refuses it).
    char* acquire();
    // Gives a buffer from acquire() back: kept idle, or unmapped when idle_max are.
    void release(char* buffer) noexcept;

    size_t idle() const;

  private:
    const size_t idle_max_;
    mutable std::mutex mu_;
    std::vector<char*> idle_;  // under mu_
};

}  // namespace pouch::storage
