// revision.h -- one revision as the CLI reads it: the server's Revision object verified (the
// signature of a member of the verified roster over the envelope) and decrypted (AES-GCM under
// the pouch key of its key_gen) into its content, with the fingerprint scan.h compares.
#pragma once

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

// Why the service's `kind` of a revision does not fit its signed content, or "" when it does:
// "delete" goes with a tombstone and only with one, "put" with anything else.
std::string kind_mismatch(const std::string& kind, const clientfmt::Content& content);

}  // namespace pouch::cli
