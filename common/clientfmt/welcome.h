// welcome.h -- the welcome of a CLI login (docs/CLIENT-FORMAT.md "Welcome"): what the
// approving browser seals to the CLI's enc_pub so the CLI can check the roster it fetches.
#pragma once

#include <string>
#include <string_view>

#include "common/clientfmt/encoding.h"
#include "common/crypto/p256_private.h"

namespace pouch::clientfmt {

struct Welcome {
    std::string account_id;
    std::string genesis_hash;
    long long head_seq = 0;  // roster_head.seq: the add statement of this device
    std::string head_hash;   // roster_head.hash
    std::string approver_id;
    PublicJwk approver_sign, approver_enc;

    std::string jcs() const;
    static Welcome parse(std::string_view json);  // throws FormatError
};

// info = "pouch/welcome/v1" || id(request_id); welcome string = b64url(enc || ct).
// `ephemeral` fixes HPKE's ephemeral key (test vectors); fresh otherwise.
std::string seal_welcome(const Welcome& w, const PublicJwk& cli_enc_pub,
                         std::string_view request_id,
                         const crypto::P256PrivateKey* ephemeral = nullptr);
Welcome open_welcome(std::string_view welcome, const crypto::P256PrivateKey& cli_enc_key,
                     std::string_view request_id);  // throws FormatError

}  // namespace pouch::clientfmt
