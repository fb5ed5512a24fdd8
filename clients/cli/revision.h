// revision.h -- one revision as the CLI reads it: the server's Revision object verified (the
// signature of a member of the verified roster over the envelope) and decrypted (AES-GCM under
// the pouch key of its key_gen) into its content, with the fingerprint scan.h compares.
#pragma once

#include <exception>
#include <optional>
#include <string>

#include <rapidjson/document.h>

#include "clients/cli/trust.h"
#include "common/clientfmt/artifact.h"

namespace pouch::cli {

struct Revision {
    std::string artifact_id, revision_id, signer, kind;  // kind: put | delete (the service's)
    std::string created_at;
    long long key_gen = 0, seq = 0;
    clientfmt::Content content;
    std::optional<std::string> plain;  // content.data decoded (an inline file's bytes)
    std::string fp;
    bool bad_name = false;  // not a safe_local_path in NFC (files.h): never written to disk

    // A tombstone, by the signed content alone (open_revision refuses a revision whose
    // unsigned `kind` disagrees with it).
    bool deleted() const { return content.deleted; }
};

// Throws UntrustedItem (trust.h) when the signer is not trusted at the revision's key_gen, the
// signature does not verify, the envelope does not open, or the service's `kind` disagrees with
// the signed content (a put listed as a delete would remove the file on every device); MissingKey
// when no key is held.
Revision open_revision(Trust& trust, const std::string& pouch_id, const rapidjson::Value& rev);

// open_revision in two steps, so that many revisions can be opened on several threads: what it
// asks of Trust (which may fetch keys: on the calling thread, in the revisions' order), then
// the rest (signature, envelope, checks of the content: no shared state, any thread). Each
// step throws what open_revision would throw at that point, in the same order: a missing key
// is thrown by the second step, after the signature verified, as open_revision does.
struct RevisionOpener {
    std::string where;  // "revision R of artifact A: "
    clientfmt::PublicJwk sign_pub;
    std::string key;                 // the pouch key of the revision's key_gen
    std::exception_ptr missing_key;  // what asking for it threw (MissingKey...)
};
RevisionOpener revision_opener(Trust& trust, const std::string& pouch_id,
                               const rapidjson::Value& rev);
Revision open_revision_with(const RevisionOpener& o, const std::string& pouch_id,
                            const rapidjson::Value& rev);

// Why the service's `kind` of a revision does not fit its signed content, or "" when it does:
// "delete" goes with a tombstone and only with one, "put" with anything else.
std::string kind_mismatch(const std::string& kind, const clientfmt::Content& content);

}  // namespace pouch::cli
