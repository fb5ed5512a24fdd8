// presign.cpp -- see presign.h.
#include "common/storage/presign.h"

#include "common/crypto/hash.h"
#include "common/crypto/kdf.h"

namespace pouch::storage {

std::string uri_encode(std::string_view s, bool keep_slash) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    out.reserve(s.size());
    for (unsigned char c : s) {
        bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                     c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/');
        if (plain) {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

Presigned presign(const PresignRequest& r) {
    std::tm tm{};
    ::gmtime_r(&r.now, &tm);
    char stamp[17], day[9];
    std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    std::strftime(day, sizeof day, "%Y%m%d", &tm);
    const std::string scope = std::string(day) + "/" + r.region + "/s3/aws4_request";

    Presigned p;
    // The parameters in byte order of their names, as the canonical query string wants them.
    p.query = "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=" +
              uri_encode(r.access_key + "/" + scope, false) + "&X-Amz-Date=" + stamp +
              "&X-Amz-Expires=" + std::to_string(r.expires_seconds) + "&X-Amz-SignedHeaders=host";
    p.canonical_request = r.method + "\n" + r.path + "\n" + p.query + "\nhost:" + r.host +
                          "\n\nhost\nUNSIGNED-PAYLOAD";
    p.string_to_sign = std::string("AWS4-HMAC-SHA256\n") + stamp + "\n" + scope + "\n" +
                       crypto::to_hex(crypto::sha256(p.canonical_request));
    std::string key = crypto::hmac_sha256("AWS4" + r.secret_key, day);
    key = crypto::hmac_sha256(key, r.region);
    key = crypto::hmac_sha256(key, "s3");
    key = crypto::hmac_sha256(key, "aws4_request");
    p.signature = crypto::to_hex(crypto::hmac_sha256(key, p.string_to_sign));
    p.query += "&X-Amz-Signature=" + p.signature;
    return p;
}

}  // namespace pouch::storage
