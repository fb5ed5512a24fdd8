// pkce.cpp -- PKCE S256 on sha256 and b64url_encode (see pkce.h).
#include "common/crypto/pkce.h"

#include "common/crypto/b64url.h"
#include "common/crypto/hash.h"

namespace pouch::crypto {

std::string pkce_s256(std::string_view verifier) {
    return b64url_encode(sha256(verifier));
}

bool valid_code_verifier(std::string_view verifier) {
    if (verifier.size() < 43 || verifier.size() > 128) return false;
    for (char c : verifier) {
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '.' || c == '_' || c == '~';
        if (!ok) return false;
    }
    return true;
}

}  // namespace pouch::crypto
