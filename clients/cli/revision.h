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
    std::string artifact_id, revision_id, signer, kind;  // kind: put | delete
    std::string created_at;
    long long key_gen = 0, seq = 0;
    clientfmt::Content content;
    std::string fp;
    bool bad_name = false;  // not a safe_local_path in NFC (files.h): never written to disk

    bool deleted() const { return kind == "delete" || content.deleted; }
};

// Throws ItemSkipped when the signature or the decryption fails (the revision is refused as
// untrusted; the caller skips that item), MissingKey when this device lacks its key.
Revision open_revision(Trust& trust, const std::string& pouch_id, const rapidjson::Value& rev);

}  // namespace pouch::cli
