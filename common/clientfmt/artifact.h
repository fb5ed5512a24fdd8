// artifact.h -- artifact envelopes of docs/CLIENT-FORMAT.md ("Artifact envelope"): the
// content object, its AES-256-GCM envelope under the artifact key, the revision signature,
// the name_index and the names of conflict copies.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clientfmt/encoding.h"
#include "common/crypto/p256_private.h"

namespace pouch::clientfmt {

constexpr long long kInlineMax = 65536;    // data inline up to this size
constexpr long long kChunkSize = 4194304;  // 4 MiB chunks above it

struct ChunkRef {
    std::string blob_id;  // b64url BLAKE3 of the stored bytes
    long long size = 0;   // plaintext bytes
    std::string key;      // b64url of the 32-byte chunk key
    std::string hash;     // b64url BLAKE3 of the plaintext
};

struct Content {
    std::string name;
    std::string kind = "file";  // file | note | folder
    long long size = 0;
    long long mtime = 0;  // ms since 1970
    std::optional<long long> mode;
    std::optional<std::string> data;              // b64url, size <= 65,536
    std::optional<std::vector<ChunkRef>> chunks;  // size > 65,536
    bool deleted = false;                         // a tombstone

    std::string jcs() const;
    // Reads the JSON content (unknown members are ignored, for later versions); throws
    // FormatError when a known member is mistyped or data/chunks contradict size.
    static Content parse(std::string_view json);
};

// A tombstone for a delete op: name, kind, size 0, mtime, deleted true.
Content tombstone(const std::string& name, const std::string& kind, long long mtime_ms);

// The per-artifact key: HKDF(pouch key, "pouch/artifact/v1" || id(artifact_id)).
std::string artifact_key(std::string_view pouch_key, std::string_view artifact_id);

// aad = id(pouch_id) || id(artifact_id) || id(revision_id) || u64be(key_gen)
std::string artifact_aad(std::string_view pouch_id, std::string_view artifact_id,
                         std::string_view revision_id, long long key_gen);

struct RevisionIds {
    std::string pouch_id, artifact_id, revision_id;
    long long key_gen = 0;
};

// envelope = b64url(nonce || AESGCM(k, nonce, aad, JCS(content))); nonce random unless given
// (test vectors).
std::string seal_envelope(std::string_view pouch_key, const RevisionIds& ids,
                          const Content& content, std::optional<std::string> nonce = {});
Content open_envelope(std::string_view pouch_key, const RevisionIds& ids,
                      std::string_view envelope);  // throws FormatError

// signature = b64url(ES256(BLAKE3(id(pouch) || id(artifact) || id(revision) || utf8(envelope))))
std::string sign_revision(const crypto::P256PrivateKey& signer, const RevisionIds& ids,
                          std::string_view envelope);
bool verify_revision(const PublicJwk& signer, const RevisionIds& ids, std::string_view envelope,
                     std::string_view signature);

// b64url(HMAC-SHA256(HKDF(pouch key, "pouch/name-index/v1"), utf8(name))), 43 characters.
std::string name_index(std::string_view pouch_key, std::string_view name);

// The path rules of `content.name`: not empty, no leading '/', no empty, '.' or '..' segment,
// no NUL. (NFC is the writer's job: it normalises before it names.)
bool valid_name(std::string_view name);

// The rule a reader applies before a name becomes a path on its disk (decisions §15): a
// valid_name that is also valid UTF-8 (no overlong form, no surrogate), holds no C0 control
// character and no DEL, has no segment over 255 bytes (NAME_MAX) and is at most 4,095 bytes
// long (PATH_MAX less its NUL). Every path a client builds -- a pulled name, a conflict
// copy -- passes it.
constexpr size_t kMaxSegmentBytes = 255;
constexpr size_t kMaxPathBytes = 4095;
bool safe_relative_path(std::string_view name);

// The file-name form of a roster label (decisions §15; a label is another member's text):
// each Unicode character outside [A-Za-z0-9 ._-] becomes '_' (each byte of an invalid UTF-8
// sequence, one '_'), the result is cut to 32 characters, leading and trailing spaces and
// dots are trimmed, and an empty result is "device".
std::string label_file_form(std::string_view label);

// "<stem> (conflict <label> <date>)<.ext>" with <label> = label_file_form(label): the
// extension is the last segment's text from its last '.', unless that '.' starts the segment
// (".bashrc" has none). The whole name is checked again with safe_relative_path; FormatError
// when it does not pass (a segment grown past 255 bytes, a name that was not safe already).
std::string conflict_name(std::string_view name, std::string_view label, std::string_view date);

}  // namespace pouch::clientfmt
