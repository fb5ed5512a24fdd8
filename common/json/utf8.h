// utf8.h -- strict UTF-8 checks shared by the parser, the schema and JCS: no overlong forms,
// no surrogate code points (RapidJSON turns a lone "\udc00" escape into one), nothing above
// U+10FFFF. Pure functions, no dependencies.
#pragma once

#include <cstddef>
#include <string_view>

namespace pouch::json {

// True when s is well-formed UTF-8 per RFC 3629 (surrogates and overlong forms rejected).
bool utf8_valid(std::string_view s);

// No byte over 0x7F (eight at a time).
bool all_ascii(std::string_view s);

// The well-formed UTF-8 sequence at s[i] (i < s.size()): its length in bytes (1 to 4) and
// its code point; length 0 when the bytes there start none (a stray continuation byte, C0/C1,
// F5..FF, a truncated sequence, an overlong form, a surrogate, above U+10FFFF).
struct Utf8Char {
    size_t len;
    char32_t cp;
};
Utf8Char utf8_char_at(std::string_view s, size_t i);

// Number of code points in s; s must be valid UTF-8 (continuation bytes are not counted).
size_t utf8_length(std::string_view s);

// The longest prefix of s that is at most max_bytes long and ends on a code point boundary.
std::string_view utf8_prefix(std::string_view s, size_t max_bytes);

}  // namespace pouch::json
