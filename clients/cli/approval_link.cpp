// approval_link.cpp -- the approval link, its confirm code and fingerprint (approval_link.h).
#include "clients/cli/approval_link.h"

#include "common/clientfmt/encoding.h"
#include "common/crypto/b64url.h"
#include "common/crypto/confirm_code.h"
#include "common/crypto/es256.h"

namespace pouch::cli {

bool valid_request_id(std::string_view id) {
    if (!clientfmt::is_uuid(id)) return false;
    for (char c : id)
        if (c >= 'A' && c <= 'F') return false;
    return true;
}

std::string expected_authorize_url(std::string_view base, std::string_view request_id) {
    return std::string(base) + "/cli/approve?request=" + std::string(request_id);
}

ApprovalPrompt approval_prompt(std::string_view base, std::string_view request_id,
                               const Coordinates& sign, const Coordinates& enc,
                               std::string_view nonce) {
    std::string sign_jkt = crypto::jwk_thumbprint(sign.x, sign.y);
    std::string enc_jkt = crypto::jwk_thumbprint(enc.x, enc.y);
    ApprovalPrompt p;
    p.link = expected_authorize_url(base, request_id) + "#keys=" + sign.x + "." + sign.y + "." +
             enc.x + "." + enc.y + "&n=" + crypto::b64url_encode(nonce);
    p.code = crypto::confirm_code_v2(nonce, request_id, sign_jkt, enc_jkt);
    p.fingerprint = crypto::key_fingerprint(sign_jkt);
    return p;
}

}  // namespace pouch::cli
