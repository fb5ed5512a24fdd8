// revision.cpp -- verifying and opening a revision (revision.h) with common/clientfmt.
#include "clients/cli/revision.h"

#include "clients/cli/errors.h"
#include "clients/cli/scan.h"
#include "clients/cli/terminal_text.h"
#include "common/crypto/b64url.h"
#include "common/crypto/hash.h"

namespace pouch::cli {

namespace fmt = pouch::clientfmt;

std::string kind_mismatch(const std::string& kind, const fmt::Content& content) {
    if (kind != "put" && kind != "delete") return "the service lists it with an unknown kind";
    if (kind == "delete" && !content.deleted)
        return "the service lists it as a delete, but its signed content is not a tombstone";
    if (kind == "put" && content.deleted)
        return "the service lists it as a put, but its signed content is a tombstone";
    return "";
}

RevisionOpener revision_opener(Trust& trust, const std::string& pouch_id,
                               const rapidjson::Value& rev) {
    RevisionOpener o;
    std::string rid = jstr(rev, "id"), aid = jstr(rev, "artifact_id");
    // Refused revisions are skipped items (UntrustedItem), not the end of the sync.
    o.where = "revision " + rid + " of artifact " + aid + ": ";
    long long key_gen = jint(rev, "key_gen");
    try {
        o.sign_pub =
            trust.revision_signer(pouch_id, jstr(rev, "signer_member_id"), key_gen).sign_pub;
    } catch (const UntrustedItem& e) {
        throw UntrustedItem(o.where + e.what());
    }
    try {
        o.key = trust.pouch_key(pouch_id, key_gen);
    } catch (...) {
        o.missing_key = std::current_exception();  // thrown once the signature verified
    }
    return o;
}

Revision open_revision_with(const RevisionOpener& o, const std::string& pouch_id,
                            const rapidjson::Value& rev) {
    Revision h;
    h.artifact_id = jstr(rev, "artifact_id");
    h.revision_id = jstr(rev, "id");
    h.signer = jstr(rev, "signer_member_id");
    h.key_gen = jint(rev, "key_gen");
    h.kind = jopt(rev, "kind").value_or("put");
    h.created_at = jopt(rev, "created_at").value_or("");
    if (rev.HasMember("seq") && rev["seq"].IsInt64()) h.seq = rev["seq"].GetInt64();
    std::string_view envelope = jview(rev, "envelope");  // 43 KB for a small file: not copied
    fmt::RevisionIds ids{pouch_id, h.artifact_id, h.revision_id, h.key_gen};
    if (!fmt::verify_revision(o.sign_pub, ids, envelope, jstr(rev, "signature")))
        throw UntrustedItem(o.where + "the signature of " + h.signer + " does not verify");
    if (o.missing_key) std::rethrow_exception(o.missing_key);
    try {
        h.content = fmt::open_envelope(o.key, ids, envelope);
    } catch (const fmt::FormatError& e) {
        throw UntrustedItem(o.where + e.what());
    }
    // `kind` is the service's word, not the signer's: it must agree with the signed content.
    if (std::string why = kind_mismatch(h.kind, h.content); !why.empty())
        throw UntrustedItem(o.where + why);
    auto nfc = to_nfc(h.content.name);
    h.bad_name = !safe_local_path(h.content.name) || !nfc || *nfc != h.content.name;
    if (h.content.data) {
        // Decoded once, for the fingerprint and for the file (open_envelope checked the size).
        h.plain = crypto::b64url_decode(*h.content.data).value_or("");
        h.fp = fingerprint_from_parts(h.content.size, crypto::blake3_256(*h.plain), {});
    } else {
        h.fp = fingerprint_of_content(h.content);
    }
    return h;
}

Revision open_revision(Trust& trust, const std::string& pouch_id, const rapidjson::Value& rev) {
    return open_revision_with(revision_opener(trust, pouch_id, rev), pouch_id, rev);
}

}  // namespace pouch::cli
