// b64url.h -- base64url without padding (RFC 4648 §5, RFC 7515 §2), strict on input:
// only the URL-safe alphabet, no '=', no impossible length, no non-zero unused bits, so
// every accepted string has exactly one decoding and one encoding.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pouch::crypto {

std::string b64url_encode(std::string_view bytes);

// nullopt on any character outside [A-Za-z0-9-_], length % 4 == 1, or non-canonical
// trailing bits ("AB" decodes, "AF" does not).
std::optional<std::string> b64url_decode(std::string_view text);

// The size b64url_decode(text) would have, without decoding: nullopt exactly when it would
// refuse `text`.
std::optional<size_t> b64url_decoded_size(std::string_view text);

// True when every character is in the b64url alphabet (length not checked).
bool is_b64url(std::string_view text);

// True when `text` (already known to be of the alphabet) has exactly one decoding: a length
// of 4k+1 leaves a lone character of 6 bits, and the unused low bits of the last character
// must be zero. Checks an 11 MB bundle without decoding it.
bool b64url_canonical(std::string_view text);

}  // namespace pouch::crypto
