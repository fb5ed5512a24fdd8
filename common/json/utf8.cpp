// utf8.cpp -- strict UTF-8 validation and counting (RFC 3629 §4 table of well-formed byte
// sequences). Relies on nothing but the standard library.
#include "common/json/utf8.h"

#include <cstdint>
#include <cstring>

namespace pouch::json {

Utf8Char utf8_char_at(std::string_view s, size_t i) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data()) + i;
    unsigned char c = p[0];
    if (c < 0x80) return {1, c};
    size_t n;
    char32_t cp;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2, cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3, cp = c & 0x0F;
        if (c == 0xE0) lo = 0xA0;  // overlong below U+0800
        if (c == 0xED) hi = 0x9F;  // U+D800..U+DFFF are surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4, cp = c & 0x07;
        if (c == 0xF0) lo = 0x90;  // overlong below U+10000
        if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
    } else {
        return {0, 0};  // continuation byte first, C0/C1 (overlong ASCII), F5..FF
    }
    if (s.size() - i < n || p[1] < lo || p[1] > hi) return {0, 0};
    for (size_t k = 1; k < n; ++k) {
        if ((p[k] & 0xC0) != 0x80) return {0, 0};
        cp = cp << 6 | (p[k] & 0x3F);
    }
    return {n, cp};
}

bool utf8_valid(std::string_view s) {
    for (size_t i = 0; i < s.size();) {
        // Eight ASCII bytes at once: envelopes and signatures are long b64url strings.
        if (s.size() - i >= 8) {
            std::uint64_t w;
            std::memcpy(&w, s.data() + i, sizeof w);
            if ((w & 0x8080808080808080ull) == 0) {
                i += 8;
                continue;
            }
        }
        size_t n = static_cast<unsigned char>(s[i]) < 0x80 ? 1 : utf8_char_at(s, i).len;
        if (n == 0) return false;
        i += n;
    }
    return true;
}

bool all_ascii(std::string_view s) {
    size_t i = 0;
    std::uint64_t high = 0;
    for (; s.size() - i >= 8; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, s.data() + i, sizeof w);
        high |= w;
    }
    for (; i < s.size(); ++i) high |= static_cast<unsigned char>(s[i]);
    return (high & 0x8080808080808080ull) == 0;
}

size_t utf8_length(std::string_view s) {
    size_t n = 0, i = 0;
    for (; s.size() - i >= 8; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, s.data() + i, sizeof w);
        if ((w & 0x8080808080808080ull) == 0) {
            n += 8;  // eight ASCII characters
            continue;
        }
        for (size_t k = 0; k < 8; ++k)
            if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) ++n;
    }
    for (; i < s.size(); ++i)
        if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) ++n;
    return n;
}

std::string_view utf8_prefix(std::string_view s, size_t max_bytes) {
    if (s.size() <= max_bytes) return s;
    size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    return s.substr(0, cut);
}

}  // namespace pouch::json
