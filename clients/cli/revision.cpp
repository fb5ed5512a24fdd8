// revision.cpp -- verifying and opening a revision (revision.h) with common/clientfmt.
#include "clients/cli/revision.h"

#include "clients/cli/errors.h"
#include "clients/cli/scan.h"
#include "clients/cli/terminal_text.h"

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

Revision open_revision(Trust& trust, const std::string& pouch_id, const rapidjson::Value& rev) {
    Revision h;
    h.artifact_id = jstr(rev, "artifact_id");
    h.revision_id = jstr(rev, "id");
    h.signer = jstr(rev, "signer_member_id");
    h.key_gen = jint(rev, "key_gen");
    h.kind = jopt(rev, "kind").value_or("put");
    h.created_at = jopt(rev, "created_at").value_or("");
    if (rev.HasMember("seq") && rev["seq"].IsInt64()) h.seq = rev["seq"].GetInt64();
    std::string envelope = jstr(rev, "envelope");
    fmt::RevisionIds ids{pouch_id, h.artifact_id, h.revision_id, h.key_gen};
    // Refused revisions are skipped items (UntrustedItem), not the end of the sync.
    std::string where = "revision " + h.revision_id + " of artifact " + h.artifact_id + ": ";
    const fmt::Member* signer = nullptr;
    try {
        signer = &trust.revision_signer(pouch_id, h.signer, h.key_gen);
    } catch (const UntrustedItem& e) {
        throw UntrustedItem(where + e.what());
    }
    if (!fmt::verify_revision(signer->sign_pub, ids, envelope, jstr(rev, "signature")))
        throw UntrustedItem(where + "the signature of " + h.signer + " does not verify");
    std::string key = trust.pouch_key(pouch_id, h.key_gen);
    try {
        h.content = fmt::open_envelope(key, ids, envelope);
    } catch (const fmt::FormatError& e) {
        throw UntrustedItem(where + e.what());
    }
    // `kind` is the service's word, not the signer's: it must agree with the signed content.
    if (std::string why = kind_mismatch(h.kind, h.content); !why.empty())
        throw UntrustedItem(where + why);
    auto nfc = to_nfc(h.content.name);
    h.bad_name = !safe_local_path(h.content.name) || !nfc || *nfc != h.content.name;
    h.fp = fingerprint_of_content(h.content);
    return h;
}

}  // namespace pouch::cli
