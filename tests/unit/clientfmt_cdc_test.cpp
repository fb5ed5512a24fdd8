// clientfmt_cdc_test.cpp -- content-defined chunk boundaries (common/clientfmt/cdc.h,
// docs/CLIENT-FORMAT.md "Chunk boundaries"): the streaming contract, where the cuts fall, and
// the point of it all, that an inserted byte re-uploads only the chunks it touches. Files are
// read through a 4 MiB window as a client streams them, from a counter-based generator, so a
// 256 MiB file costs no memory. The shared vectors are checked in clientfmt_vectors_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/clientfmt/cdc.h"
#include "common/crypto/hash.h"

using namespace pouch::clientfmt;

namespace {

constexpr uint64_t kMiB = 1048576;

uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// A file of `size` pseudo-random bytes (byte p depends only on the seed and p), optionally with
// one byte inserted at `insert_at`: then it is size + 1 bytes long.
struct File {
    uint64_t seed = 1;
    uint64_t size = 0;
    std::optional<uint64_t> insert_at;
    char inserted = '*';

    uint64_t length() const { return size + (insert_at ? 1 : 0); }

    void read(uint64_t from, char* dst, size_t len) const {
        if (insert_at && from <= *insert_at && *insert_at < from + len) {
            size_t before = *insert_at - from;
            random(from, dst, before);
            dst[before] = inserted;
            random(*insert_at, dst + before + 1, len - before - 1);
        } else {
            random(insert_at && from > *insert_at ? from - 1 : from, dst, len);
        }
    }

    // Bytes [p, p + len) of the random stream, eight at a time.
    void random(uint64_t p, char* dst, size_t len) const {
        while (len > 0) {
            uint64_t w = splitmix64(seed * 0x100000001b3ull ^ (p >> 3));
            size_t off = p & 7, take = std::min<size_t>(8 - off, len);
            std::memcpy(dst, reinterpret_cast<const char*>(&w) + off, take);
            dst += take;
            p += take;
            len -= take;
        }
    }
};

File random_file(uint64_t seed, uint64_t size) {
    File f;
    f.seed = seed;
    f.size = size;
    return f;
}

struct Chunk {
    uint64_t length;
    std::string hash;  // BLAKE3 of the plaintext, the entry's `hash`
};

// What a writer does: a window holding min(kCdcMax, rest) bytes from the chunk start, cut, hash
// the chunk, slide.
std::vector<Chunk> chunk_file(const File& f) {
    std::vector<Chunk> out;
    std::string window;
    for (uint64_t pos = 0; pos < f.length();) {
        size_t want = static_cast<size_t>(std::min<uint64_t>(kCdcMax, f.length() - pos));
        if (window.size() < want) {
            size_t have = window.size();
            window.resize(want);
            f.read(pos + have, window.data() + have, want - have);
        }
        size_t len = cdc_cut(std::string_view(window).substr(0, want));
        out.push_back({len, pouch::crypto::blake3_256(std::string_view(window).substr(0, len))});
        window.erase(0, len);
        pos += len;
    }
    return out;
}

// The bytes a writer uploads for `edited` when `original` is the head: every chunk whose
// plaintext hash is not one of the head's (the reuse rule).
uint64_t new_bytes(const std::vector<Chunk>& original, const std::vector<Chunk>& edited,
                   size_t* new_chunks) {
    std::set<std::string> have;
    for (const Chunk& c : original) have.insert(c.hash);
    uint64_t bytes = 0;
    *new_chunks = 0;
    for (const Chunk& c : edited)
        if (!have.count(c.hash)) {
            bytes += c.length;
            ++*new_chunks;
        }
    return bytes;
}

std::string bytes_of(const File& f) {
    std::string s(f.length(), '\0');
    f.read(0, s.data(), s.size());
    return s;
}

}  // namespace

TEST(Cdc, FilesUpToTheMinimumAreOneChunk) {
    std::string data = bytes_of(random_file(2, kCdcMin + 1));
    for (size_t n : {size_t{0}, size_t{1}, size_t{65537}, kCdcMin - 1, kCdcMin})
        EXPECT_EQ(cdc_cut(std::string_view(data).substr(0, n)), n);
}

TEST(Cdc, EveryCutIsTheFirstPositionItsMaskAllowsAndWithinTheLimits) {
    // The definition, byte by byte: the hash restarts at kCdcMin; the hard mask applies while
    // the chunk is at most kCdcNormal long, the easy one after; no cut means kCdcMax.
    File f = random_file(3, 48 * kMiB);
    std::string data = bytes_of(f);
    const uint32_t* gear = cdc_gear();
    size_t pos = 0, chunks = 0;
    while (pos < data.size()) {
        std::string_view rest = std::string_view(data).substr(pos, kCdcMax);
        size_t len = cdc_cut(rest);
        size_t want = rest.size();
        if (rest.size() > kCdcMin) {
            uint32_t h = 0;
            for (size_t i = kCdcMin; i < rest.size(); ++i) {
                h = (h << 1) + gear[static_cast<unsigned char>(rest[i])];
                uint32_t mask = i + 1 <= kCdcNormal ? kCdcMaskHard : kCdcMaskEasy;
                if ((h & mask) == 0) {
                    want = i + 1;
                    break;
                }
            }
        }
        ASSERT_EQ(len, want) << "chunk " << chunks << " at " << pos;
        if (pos + len < data.size()) {
            EXPECT_GT(len, kCdcMin);
            EXPECT_LE(len, kCdcMax);
        }
        pos += len;
        ++chunks;
    }
    EXPECT_GE(chunks, 12u);
}

TEST(Cdc, BytesBeyondTheMaximumChangeNothing) {
    std::string data = bytes_of(random_file(4, 16 * kMiB));
    for (size_t pos = 0; pos + kCdcMax < data.size();) {
        size_t len = cdc_cut(std::string_view(data).substr(pos, kCdcMax));
        EXPECT_EQ(cdc_cut(std::string_view(data).substr(pos)), len);
        pos += len;
    }
}

TEST(Cdc, RunsOfOneByteValueAreCutAtTheMaximum) {
    // The hash of a run of value v settles at -gear[v] mod 2^32, which for this table meets
    // neither mask: zero-filled regions are cut every 4 MiB (and reused as one chunk).
    std::string run(kCdcMax, '\0');
    for (int v = 0; v < 256; ++v) {
        std::fill(run.begin(), run.end(), static_cast<char>(v));
        EXPECT_EQ(cdc_cut(run), kCdcMax) << "byte value " << v;
    }
}

TEST(Cdc, ChunkSizesOnRandomDataCentreNearTheNormalSize) {
    // Expected for uniform bytes: 2.27 MiB mean, 1.5 % of chunks at kCdcMax (no cut).
    std::vector<Chunk> chunks = chunk_file(random_file(5, 128 * kMiB));
    chunks.pop_back();  // the tail is whatever is left
    uint64_t sum = 0;
    size_t at_max = 0;
    for (const Chunk& c : chunks) {
        sum += c.length;
        at_max += c.length == kCdcMax;
    }
    double mean = static_cast<double>(sum) / static_cast<double>(chunks.size());
    EXPECT_GT(mean, 2.0 * kMiB);
    EXPECT_LT(mean, 2.6 * kMiB);
    EXPECT_LE(at_max, chunks.size() / 10);
}

TEST(Cdc, AByteInsertedAtTheStartReuploadsOnlyTheFirstChunk) {
    File original = random_file(6, 64 * kMiB);
    File edited = original;
    edited.insert_at = 0;
    std::vector<Chunk> a = chunk_file(original), b = chunk_file(edited);
    size_t n = 0;
    uint64_t bytes = new_bytes(a, b, &n);
    EXPECT_EQ(n, 1u);
    EXPECT_EQ(bytes, a[0].length + 1);
    EXPECT_EQ(b.size(), a.size());
}

TEST(Cdc, AByteInsertedInTheMiddleReuploadsAtMostTwoChunks) {
    File original = random_file(7, 64 * kMiB);
    for (uint64_t at : {uint64_t{21 * kMiB + 12345}, uint64_t{40 * kMiB}}) {
        File edited = original;
        edited.insert_at = at;
        size_t n = 0;
        uint64_t bytes = new_bytes(chunk_file(original), chunk_file(edited), &n);
        EXPECT_GE(n, 1u);
        EXPECT_LE(n, 2u) << "inserted at " << at;
        EXPECT_LE(bytes, 2 * kCdcMax + 1);
    }
}

TEST(Cdc, AByteInsertedAtTheStartOfA256MiBFileReuploadsAtMost3Percent) {
    // Issue 25 row 3, as the bench measures it: one byte at the start of a 256 MiB file.
    File original = random_file(8, 256 * kMiB);
    File edited = original;
    edited.insert_at = 0;
    size_t n = 0;
    uint64_t bytes = new_bytes(chunk_file(original), chunk_file(edited), &n);
    EXPECT_LE(bytes * 100, original.size * 3) << bytes << " bytes in " << n << " chunks";
}
