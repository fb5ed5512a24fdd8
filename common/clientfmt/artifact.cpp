// artifact.cpp -- content JSON, envelopes, revision signatures, name_index and conflict
// names (artifact.h) on common/crypto (HKDF, HMAC, AES-GCM, BLAKE3, ES256).
#include "common/clientfmt/artifact.h"

#include "common/crypto/aead.h"
#include "common/crypto/b64url.h"
#include "common/crypto/es256.h"
#include "common/crypto/hash.h"
#include "common/crypto/kdf.h"
#include "common/crypto/key_cache.h"
#include "common/crypto/random.h"
#include "common/json/out.h"
#include "common/json/utf8.h"
#include "common/types/limits.h"

namespace pouch::clientfmt {

namespace {

// Whether json::Out writes `s` exactly as JCS does: valid UTF-8 and no control character (the
// two escape only '"' and '\\' then, alike).
bool plain(std::string_view s) {
    for (unsigned char c : s)
        if (c < 0x20) return false;
    return json::utf8_valid(s);
}

bool exact(long long v) {
    return v >= -kMaxSafeInt && v <= kMaxSafeInt;
}

}  // namespace

std::string Content::jcs() const {
    // The common case written in JCS form at once (members sorted, as RFC 8785 orders these
    // ASCII keys); parsing and rewriting it was a quarter of a push's CPU for small files.
    bool direct = plain(name) && plain(kind) && exact(size) && exact(mtime) &&
                  (!mode || exact(*mode)) && (!data || plain(*data));
    if (direct && chunks)
        for (const auto& c : *chunks)
            direct = direct && plain(c.blob_id) && plain(c.key) && plain(c.hash) && exact(c.size);
    // One writer, members in JCS order: the text is canonical as written when nothing in it
    // needs JCS's escapes or number forms; otherwise the canonicalizer rewrites it.
    json::Out o;
    if (chunks) {
        o.key("chunks").arr();
        for (const auto& c : *chunks) {
            o.obj();
            o.kv("blob_id", c.blob_id).kv("hash", c.hash).kv("key", c.key).kv("size", c.size);
            o.end_obj();
        }
        o.end_arr();
    }
    if (data) o.kv("data", *data);
    if (deleted) o.kv("deleted", true);
    o.kv("kind", kind);
    if (mode) o.kv("mode", *mode);
    o.kv("mtime", mtime).kv("name", name).kv("size", size);
    return direct ? o.done() : jcs_of(o.done());
}

Content Content::parse(std::string_view json) {
    rapidjson::Document d = parse_object(json);
    Content c;
    c.name = get_str(d, "name");
    c.kind = get_str(d, "kind");
    c.size = get_int(d, "size");
    c.mtime = get_int(d, "mtime");
    c.mode = get_opt_int(d, "mode");
    c.data = get_opt_str(d, "data");
    if (d.HasMember("deleted")) {
        if (!d["deleted"].IsBool()) throw FormatError("'deleted' must be true or absent");
        c.deleted = d["deleted"].GetBool();
    }
    if (d.HasMember("chunks")) {
        std::vector<ChunkRef> list;
        long long total = 0;
        for (const auto& e : get_arr(d, "chunks").GetArray()) {
            ChunkRef r{get_str(e, "blob_id"), get_int(e, "size"), get_str(e, "key"),
                       get_str(e, "hash")};
            if (r.size < 1 || r.size > kChunkSize) throw FormatError("chunk size out of range");
            // The blob id goes into a URL: only the format's 43 b64url characters get there.
            if (!is_b64url32(r.blob_id) || !is_b64url32(r.key) || !is_b64url32(r.hash))
                throw FormatError("a chunk's blob_id, key and hash must be 43 b64url characters");
            total += r.size;
            list.push_back(std::move(r));
        }
        if (total != c.size) throw FormatError("chunk sizes do not add up to the file size");
        c.chunks = std::move(list);
    }
    if (c.kind != "file" && c.kind != "note" && c.kind != "folder")
        throw FormatError("unknown kind '" + c.kind + "'");
    if (c.size < 0) throw FormatError("negative size");
    if (c.data && c.chunks) throw FormatError("content has both data and chunks");
    if (c.data && c.size > kInlineMax) throw FormatError("inline data for a file over 64 KiB");
    if (c.data) {
        // Checked without decoding (a reader that wants the bytes decodes them once).
        auto bytes = crypto::b64url_decoded_size(*c.data);
        if (!bytes || static_cast<long long>(*bytes) != c.size)
            throw FormatError("inline data does not match the size");
    }
    if (!c.deleted && c.kind != "folder" && !c.data && !c.chunks)
        throw FormatError("a file has neither data nor chunks");
    return c;
}

Content tombstone(const std::string& name, const std::string& kind, long long mtime_ms) {
    Content c;
    c.name = name;
    c.kind = kind;
    c.size = 0;
    c.mtime = mtime_ms;
    c.deleted = true;
    return c;
}

std::string artifact_key(std::string_view pouch_key, std::string_view artifact_id) {
    return crypto::hkdf_sha256(pouch_key, "", "pouch/artifact/v1" + id_bytes(artifact_id), 32);
}

std::string artifact_aad(std::string_view pouch_id, std::string_view artifact_id,
                         std::string_view revision_id, long long key_gen) {
    return id_bytes(pouch_id) + id_bytes(artifact_id) + id_bytes(revision_id) +
           u64be(static_cast<uint64_t>(key_gen));
}

std::string seal_envelope(std::string_view pouch_key, const RevisionIds& ids,
                          const Content& content, std::optional<std::string> nonce) {
    std::string n = nonce ? *nonce : crypto::random_bytes(12);
    std::string sealed = crypto::aes_gcm_seal(
        artifact_key(pouch_key, ids.artifact_id), n,
        artifact_aad(ids.pouch_id, ids.artifact_id, ids.revision_id, ids.key_gen), content.jcs(),
        n);
    return crypto::b64url_encode(sealed);  // b64url(nonce || ciphertext || tag)
}

Content open_envelope(std::string_view pouch_key, const RevisionIds& ids,
                      std::string_view envelope) {
    auto bytes = crypto::b64url_decode(envelope);
    if (!bytes || bytes->size() < 12 + 16)
        throw FormatError("envelope is not b64url of nonce || ciphertext");
    auto pt = crypto::aes_gcm_open(
        artifact_key(pouch_key, ids.artifact_id), std::string_view(*bytes).substr(0, 12),
        artifact_aad(ids.pouch_id, ids.artifact_id, ids.revision_id, ids.key_gen),
        std::string_view(*bytes).substr(12));
    if (!pt)
        throw FormatError("revision " + ids.revision_id +
                          " does not open with the pouch key of key_gen " +
                          std::to_string(ids.key_gen));
    return Content::parse(*pt);
}

namespace {

std::string revision_digest(const RevisionIds& ids, std::string_view envelope) {
    std::string m = id_bytes(ids.pouch_id) + id_bytes(ids.artifact_id) + id_bytes(ids.revision_id);
    m.append(envelope);
    return crypto::blake3_256(m);
}

}  // namespace

std::string sign_revision(const crypto::P256PrivateKey& signer, const RevisionIds& ids,
                          std::string_view envelope) {
    return crypto::b64url_encode(signer.sign_es256(revision_digest(ids, envelope)));
}

bool verify_revision(const PublicJwk& signer, const RevisionIds& ids, std::string_view envelope,
                     std::string_view signature) {
    // A pouch's revisions come from a handful of members: their keys are parsed and checked
    // once, not once per revision (a pull of 100,000 files spent a third of its time there).
    static crypto::P256KeyCache keys(64);
    auto key = keys.get(signer.x, signer.y);
    auto sig = crypto::b64url_decode(signature);
    return key && sig && key->verify(revision_digest(ids, envelope), *sig);
}

std::string name_index(std::string_view pouch_key, std::string_view name) {
    std::string k = crypto::hkdf_sha256(pouch_key, "", "pouch/name-index/v1", 32);
    return crypto::b64url_encode(crypto::hmac_sha256(k, name));
}

bool valid_name(std::string_view name) {
    if (name.empty() || name.front() == '/' || name.find('\0') != std::string_view::npos)
        return false;
    size_t start = 0;
    while (true) {
        size_t end = name.find('/', start);
        std::string_view seg =
            name.substr(start, end == std::string_view::npos ? name.npos : end - start);
        if (seg.empty() || seg == "." || seg == "..") return false;
        if (end == std::string_view::npos) return true;
        start = end + 1;
    }
}

namespace {

// The length of the well-formed UTF-8 sequence at s[i], 0 when none starts there.
size_t utf8_sequence(std::string_view s, size_t i) {
    return json::utf8_char_at(s, i).len;
}

}  // namespace

bool safe_relative_path(std::string_view name) {
    if (!valid_name(name) || name.size() > kMaxPathBytes) return false;
    size_t segment = 0;
    for (size_t i = 0; i < name.size();) {
        unsigned char c = static_cast<unsigned char>(name[i]);
        if (c < 0x20 || c == 0x7F) return false;
        size_t n = utf8_sequence(name, i);
        if (n == 0) return false;
        segment = c == '/' ? 0 : segment + n;
        if (segment > kMaxSegmentBytes) return false;
        i += n;
    }
    return true;
}

std::string label_file_form(std::string_view label) {
    constexpr size_t kMaxChars = 32;
    std::string out;
    for (size_t i = 0; i < label.size() && out.size() < kMaxChars;) {
        char c = label[i];
        bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == ' ' || c == '.' || c == '_' || c == '-';
        out += keep ? c : '_';
        size_t n = utf8_sequence(label, i);
        i += n == 0 ? 1 : n;  // one '_' per character, or per byte that starts none
    }
    size_t b = out.find_first_not_of(" .");
    if (b == std::string::npos) return "device";
    size_t e = out.find_last_not_of(" .");
    return out.substr(b, e - b + 1);
}

std::string conflict_name(std::string_view name, std::string_view label, std::string_view date) {
    size_t slash = name.rfind('/');
    size_t seg = slash == std::string_view::npos ? 0 : slash + 1;
    size_t dot = name.rfind('.');
    std::string_view stem = name, ext;
    if (dot != std::string_view::npos && dot > seg) {
        stem = name.substr(0, dot);
        ext = name.substr(dot);
    }
    std::string out(stem);
    out += " (conflict ";
    out += label_file_form(label);
    out += " ";
    out += date;
    out += ")";
    out += ext;
    if (!safe_relative_path(out))
        throw FormatError("no safe conflict name for this file (too long, or not a safe path)");
    return out;
}

}  // namespace pouch::clientfmt
