// cdc.h -- content-defined chunk boundaries for files over the inline limit
// (docs/CLIENT-FORMAT.md "Chunk boundaries"): a FastCDC-style gear hash with normalized
// chunking, so that an insertion or deletion moves only the boundaries near it and every other
// chunk keeps its plaintext hash (and is reused, never uploaded again).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace pouch::clientfmt {

constexpr size_t kCdcMin = 524288;       // 512 KiB: no boundary before it
constexpr size_t kCdcNormal = 2097152;   // 2 MiB: the harder mask before it, the easier after
constexpr size_t kCdcMax = 4194304;      // 4 MiB: the format's chunk limit
constexpr size_t kMaxFileChunks = 1000;  // an op's blob_ids bound (decisions §3)
constexpr uint32_t kCdcMaskHard = 0xFFFFFE00u;  // the top 23 bits of the 32-bit gear hash
constexpr uint32_t kCdcMaskEasy = 0xFFFFE000u;  // the top 19 bits

// The 256 gear values: the first 1,024 bytes of BLAKE3's extendable output of
// utf8("pouch/cdc/v1"), read as 256 little-endian 32-bit words.
const uint32_t* cdc_gear();

// The length of the chunk that starts at data[0]. `data` holds min(kCdcMax, bytes left in the
// file) bytes: a caller that streams a file passes at least kCdcMax bytes while that many remain.
// Returns data.size() when it is at most kCdcMin; otherwise a length in (kCdcMin, kCdcMax].
// A file these cuts would split into more than 1,000 chunks (the op's blob_ids bound) is cut
// every kCdcMax bytes instead (CLIENT-FORMAT.md), so files up to 4 GiB stay possible.
size_t cdc_cut(std::string_view data);

}  // namespace pouch::clientfmt
