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

namespace {

bool b64url_of_length(std::string_view s, size_t n) {
    return s.size() == n && crypto::is_b64url(s);
}

}  // namespace

std::optional<ParsedApprovalLink> parse_approval_link(std::string_view link) {
    const std::string_view path = "/cli/approve?request=";
    size_t hash = link.find('#');
    if (hash == std::string_view::npos || hash < 36 + path.size()) return std::nullopt;
    std::string_view url = link.substr(0, hash), frag = link.substr(hash + 1);
    ParsedApprovalLink p;
    p.request_id = std::string(url.substr(url.size() - 36));
    std::string_view before = url.substr(0, url.size() - 36);
    if (!valid_request_id(p.request_id) || before.size() <= path.size() ||
        before.substr(before.size() - path.size()) != path)
        return std::nullopt;
    p.base = std::string(before.substr(0, before.size() - path.size()));
    // keys=<43>.<43>.<43>.<43>&n=<22>
    if (frag.size() != 5 + 4 * 43 + 3 + 3 + 22 || frag.substr(0, 5) != "keys=") return std::nullopt;
    std::string_view k = frag.substr(5, 4 * 43 + 3);
    if (k[43] != '.' || k[87] != '.' || k[131] != '.' || frag.substr(5 + 175, 3) != "&n=")
        return std::nullopt;
    std::string_view c[4] = {k.substr(0, 43), k.substr(44, 43), k.substr(88, 43),
                             k.substr(132, 43)};
    for (auto x : c)
        if (!b64url_of_length(x, 43)) return std::nullopt;
    std::string_view n = frag.substr(5 + 175 + 3);
    auto nonce = b64url_of_length(n, 22) ? crypto::b64url_decode(n) : std::nullopt;
    if (!nonce || nonce->size() != crypto::kConfirmNonceBytes || crypto::b64url_encode(*nonce) != n)
        return std::nullopt;
    p.sign = {std::string(c[0]), std::string(c[1])};
    p.enc = {std::string(c[2]), std::string(c[3])};
    p.nonce = *nonce;
    return p;
}

}  // namespace pouch::cli
