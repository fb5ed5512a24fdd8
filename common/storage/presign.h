// presign.h -- SigV4 query-string presigning of an S3 request (the AWS S3 API reference,
// "Authenticating Requests: Using Query Parameters"). libcurl signs the requests we send
// (CURLOPT_AWS_SIGV4) but cannot presign a URL another program (nginx) will send, so this is
// the one signature computed here: HMAC-SHA256 over OpenSSL (common/crypto). Only the host
// header is signed and the payload is UNSIGNED-PAYLOAD, as S3 requires for presigned URLs.
#pragma once

#include <ctime>
#include <string>
#include <string_view>

namespace pouch::storage {

struct PresignRequest {
    std::string method = "GET";
    std::string host;  // as sent in Host: "examplebucket.s3.amazonaws.com", "127.0.0.1:7480"
    std::string path;  // the URI path, already URI-encoded: "/bucket/account/blob"
    std::string region;
    std::string access_key;
    std::string secret_key;
    std::time_t now = 0;
    int expires_seconds = 60;
};

struct Presigned {
    std::string canonical_request;
    std::string string_to_sign;
    std::string signature;  // lower-case hex
    std::string query;      // the whole query string, X-Amz-Signature last
};

Presigned presign(const PresignRequest& r);

// S3's URI encoding: every byte but A-Z a-z 0-9 - _ . ~ as %XX (upper-case hex); '/' kept
// when `keep_slash`.
std::string uri_encode(std::string_view s, bool keep_slash);

}  // namespace pouch::storage
