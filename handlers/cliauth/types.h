// types.h -- the cliauth group's requests and answers, each described once (json/described.h:
// the schema, the decoder, the writer). The rows its statements return are in sql.h.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "common/crypto/b64url.h"
#include "common/crypto/pkce.h"
#include "common/json/described.h"

namespace pouch::cliauth {

namespace js = json::schema;

inline bool is_connect_token(std::string_view s) {
    return s.size() == 7 + 32 && s.compare(0, 7, "svc_lt_") == 0 &&
           crypto::is_b64url(std::string_view(s).substr(7));
}

inline bool is_confirm_code(std::string_view s) {
    auto digits = [&](size_t from, size_t n) {
        return s.find_first_not_of("0123456789", from) >= from + n;
    };
    if (s.size() == 8) return digits(0, 8);
    return s.size() == 9 && s[4] == '-' && digits(0, 4) && digits(5, 4);
}

// A P-256 public key as a JWK ({kty:"EC", crv:"P-256", x, y}; js::jwk() checks it).
struct Jwk {
    std::string kty, crv, x, y;
    static auto json_fields() {
        return std::tuple{json::field("kty", &Jwk::kty), json::field("crv", &Jwk::crv),
                          json::field("x", &Jwk::x), json::field("y", &Jwk::y)};
    }
};

// ---- requests --------------------------------------------------------------------------------

// POST /v1/cli-auth/requests (op 5).
struct StartRequest {
    std::string code_challenge, device_name;
    std::optional<std::vector<std::string>> assistants;
    std::string os, arch, cli_version;
    Jwk sign_pub, enc_pub;
    std::string key_storage;
    std::optional<std::string> connect_token;
    static auto json_fields() {
        return std::tuple{
            json::field("code_challenge", &StartRequest::code_challenge,
                        js::b64url().min_chars(43).max_chars(43)),
            json::field("device_name", &StartRequest::device_name, js::label()),
            json::field("assistants", &StartRequest::assistants,
                        js::array(js::string().min_chars(1).max_chars(64)).max_items(32)),
            json::field("os", &StartRequest::os, js::one_of({"linux", "macos", "windows"})),
            json::field("arch", &StartRequest::arch, js::string().min_chars(1).max_chars(32)),
            json::field("cli_version", &StartRequest::cli_version,
                        js::string().min_chars(1).max_chars(32)),
            json::field("sign_pub", &StartRequest::sign_pub, js::jwk()),
            json::field("enc_pub", &StartRequest::enc_pub, js::jwk()),
            json::field("key_storage", &StartRequest::key_storage,
                        js::one_of({"tpm", "secure_enclave", "os_keystore", "file"})),
            json::field("connect_token", &StartRequest::connect_token,
                        js::string().check(is_connect_token,
                                           "svc_lt_ followed by 32 b64url characters")),
        };
    }
};

// POST /v1/cli-auth/token (op 6).
struct TokenRequest {
    std::string request_id, code_verifier;
    std::optional<int> wait;  // seconds to long-poll while pending
    static auto json_fields() {
        return std::tuple{
            json::field("request_id", &TokenRequest::request_id, js::uuid()),
            json::field("code_verifier", &TokenRequest::code_verifier,
                        js::string().check(
                            [](std::string_view v) { return crypto::valid_code_verifier(v); },
                            "43 to 128 characters of A-Z a-z 0-9 - . _ ~")),
            json::field("wait", &TokenRequest::wait, js::integer().min(0).max(30)),
        };
    }
};

struct RefreshRequest {
    std::string refresh_token;
    static auto json_fields() {
        return std::tuple{json::field("refresh_token", &RefreshRequest::refresh_token,
                                      js::string().min_chars(1).max_chars(64))};
    }
};

// ---- answers ---------------------------------------------------------------------------------

struct StartAnswer {
    std::string request_id, authorize_url;
    long long expires_in = 0, interval = 0;
    static auto json_fields() {
        return std::tuple{json::field("request_id", &StartAnswer::request_id),
                          json::field("authorize_url", &StartAnswer::authorize_url),
                          json::field("expires_in", &StartAnswer::expires_in),
                          json::field("interval", &StartAnswer::interval)};
    }
};

// GET /v1/cli-auth/requests/{id}: what the approving browser shows.
struct DetailsAnswer {
    std::string id, device_name, os, arch, cli_version;
    json::Raw assistants;  // the stored JSON array of strings
    std::string key_storage, sign_jkt;
    Jwk sign_pub, enc_pub;
    std::string confirm_code, status;
    std::optional<std::string> started_ip;
    bool connect_token_used = false;
    std::string created_at, expires_at;
    static auto json_fields() {
        return std::tuple{
            json::field("id", &DetailsAnswer::id),
            json::field("device_name", &DetailsAnswer::device_name),
            json::field("os", &DetailsAnswer::os),
            json::field("arch", &DetailsAnswer::arch),
            json::field("cli_version", &DetailsAnswer::cli_version),
            json::field("assistants", &DetailsAnswer::assistants, js::array(js::string())),
            json::field("key_storage", &DetailsAnswer::key_storage),
            json::field("sign_jkt", &DetailsAnswer::sign_jkt),
            json::field("sign_pub", &DetailsAnswer::sign_pub),
            json::field("enc_pub", &DetailsAnswer::enc_pub),
            json::field("confirm_code", &DetailsAnswer::confirm_code),
            json::field("status", &DetailsAnswer::status),
            json::field("started_ip", &DetailsAnswer::started_ip),
            json::field("connect_token_used", &DetailsAnswer::connect_token_used),
            json::field("created_at", &DetailsAnswer::created_at),
            json::field("expires_at", &DetailsAnswer::expires_at),
        };
    }
};

struct ApproveAnswer {
    std::string device_id;
    static auto json_fields() {
        return std::tuple{json::field("device_id", &ApproveAnswer::device_id)};
    }
};

// A login request's status alone (deny).
struct StatusAnswer {
    std::string status;
    static auto json_fields() { return std::tuple{json::field("status", &StatusAnswer::status)}; }
};

// A token request while the login waits for a browser.
struct PendingAnswer {
    std::string status = "pending";
    long long interval = 0;
    static auto json_fields() {
        return std::tuple{json::field("status", &PendingAnswer::status),
                          json::field("interval", &PendingAnswer::interval)};
    }
};

// A fresh token pair and the device it is for: the approved form (op 6) and refresh.
struct TokenAnswer {
    std::string token_type = "DPoP";
    std::string access_token, refresh_token;
    long long expires_in = 0;
    std::string device_id, storage_account_id, member_id;
    std::string status = "approved";
    static auto json_fields() {
        return std::tuple{json::field("token_type", &TokenAnswer::token_type),
                          json::field("access_token", &TokenAnswer::access_token),
                          json::field("refresh_token", &TokenAnswer::refresh_token),
                          json::field("expires_in", &TokenAnswer::expires_in),
                          json::field("device_id", &TokenAnswer::device_id),
                          json::field("storage_account_id", &TokenAnswer::storage_account_id),
                          json::field("member_id", &TokenAnswer::member_id),
                          json::field("status", &TokenAnswer::status)};
    }
};

// The approved form also carries the welcome the approving browser sealed to the CLI.
struct RedeemedAnswer : TokenAnswer {
    std::string welcome;
    static auto json_fields() {
        return std::tuple_cat(TokenAnswer::json_fields(),
                              std::tuple{json::field("welcome", &RedeemedAnswer::welcome)});
    }
};

struct ConnectTokenAnswer {
    std::string connect_token;
    long long expires_in = 0;
    static auto json_fields() {
        return std::tuple{json::field("connect_token", &ConnectTokenAnswer::connect_token),
                          json::field("expires_in", &ConnectTokenAnswer::expires_in)};
    }
};

}  // namespace pouch::cliauth
