// staging_pool.cpp -- reused, huge-page-aligned buffers for uploads staged in memory (mmap,
// madvise).
#include "common/storage/staging_pool.h"

#include <sys/mman.h>

#include <cstdint>
#include <new>

#include "common/storage/blob_store.h"

namespace pouch::storage {

namespace {

constexpr size_t kHugePage = size_t{2} << 20;

// kMaxBodyInMemory rounded up to whole huge pages.
constexpr size_t buffer_bytes() {
    return (static_cast<size_t>(kMaxBodyInMemory) + kHugePage - 1) / kHugePage * kHugePage;
}

// A mapping of buffer_bytes() starting on a huge-page boundary: one huge page more is mapped
// and the unaligned head and the tail beyond the buffer are unmapped again.
char* map_aligned() {
    const size_t len = buffer_bytes();
    void* raw = ::mmap(nullptr, len + kHugePage, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    const auto start = reinterpret_cast<std::uintptr_t>(raw);
    const std::uintptr_t aligned = (start + kHugePage - 1) & ~(std::uintptr_t{kHugePage} - 1);
    if (aligned > start) ::munmap(raw, aligned - start);
    const std::uintptr_t end = start + len + kHugePage;
    if (end > aligned + len) ::munmap(reinterpret_cast<void*>(aligned + len), end - aligned - len);
    // Advice only: a kernel with transparent huge pages off serves small pages.
    ::madvise(reinterpret_cast<void*>(aligned), len, MADV_HUGEPAGE);
    return reinterpret_cast<char*>(aligned);
}

}  // namespace

const size_t StagingPool::kBufferBytes = buffer_bytes();

StagingPool& StagingPool::instance() {
    static StagingPool pool(8);
    return pool;
}

// The idle list never grows past idle_max, so release() never allocates.
StagingPool::StagingPool(size_t idle_max) : idle_max_(idle_max) {
    idle_.reserve(idle_max);
}

StagingPool::~StagingPool() {
    for (char* b : idle_) ::munmap(b, kBufferBytes);
}

char* StagingPool::acquire() {
    {
        std::lock_guard lock(mu_);
        if (!idle_.empty()) {
            char* b = idle_.back();
            idle_.pop_back();
            return b;
        }
    }
    return map_aligned();
}

void StagingPool::release(char* buffer) noexcept {
    if (!buffer) return;
    {
        std::lock_guard lock(mu_);
        if (idle_.size() < idle_max_) {
            idle_.push_back(buffer);
            return;
        }
    }
    ::munmap(buffer, kBufferBytes);
}

size_t StagingPool::idle() const {
    std::lock_guard lock(mu_);
    return idle_.size();
}

}  // namespace pouch::storage
