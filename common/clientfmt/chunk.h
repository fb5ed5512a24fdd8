// chunk.h -- the blobs of large files (docs/CLIENT-FORMAT.md "Chunks"): each chunk of at most
// 4 MiB sealed with AES-256-GCM under its own random key, the blob id the BLAKE3 of the
// stored bytes, and the entry a content's `chunks` list keeps.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/clientfmt/artifact.h"

namespace pouch::clientfmt {

constexpr size_t kChunkOverhead = 12 + 16;  // nonce + tag: stored_size = size + 28

struct SealedChunk {
    std::string stored;  // nonce || AESGCM(key, nonce, "pouch/chunk/v1", plaintext)
    ChunkRef entry;
};

// key and nonce random unless given (test vectors).
SealedChunk seal_chunk(std::string_view plaintext, std::optional<std::string> key = {},
                       std::optional<std::string> nonce = {});
// As seal_chunk, given the plaintext's entry.hash (b64url BLAKE3) the caller has already
// computed (the CLI looks it up in its chunk cache first): the bytes are not hashed again.
SealedChunk seal_chunk_hashed(std::string_view plaintext, std::string hash_b64);

// Checks the blob id against the stored bytes, opens them, and checks size and hash of the
// plaintext; throws FormatError.
std::string open_chunk(const ChunkRef& entry, std::string_view stored);

}  // namespace pouch::clientfmt
