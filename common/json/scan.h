// scan.h -- the one scan for the bytes a JSON string cannot hold as they are (a quote, a
// backslash, a control character), 16 bytes at a time where SSE2 is there (x86-64 always):
// the writer (out.cpp) uses it to find what to escape, the strict reader (parse.cpp) to move a
// string's plain runs at once.
#pragma once

#include <cstddef>
#include <string_view>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace pouch::json {

// The first byte at or after `i` that needs an escape, or s.size(). Reads no byte outside `s`.
inline size_t next_to_escape(std::string_view s, size_t i) {
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    const __m128i below = _mm_set1_epi8(0x1F);
    for (; i + 16 <= s.size(); i += 16) {
        __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
        // Unsigned v <= 0x1F exactly where min(v, 0x1F) == v.
        __m128i hit =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                         _mm_cmpeq_epi8(_mm_min_epu8(v, below), v));
        if (int mask = _mm_movemask_epi8(hit)) return i + static_cast<size_t>(__builtin_ctz(mask));
    }
#endif
    for (; i < s.size(); ++i) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 || c == '"' || c == '\\') return i;
    }
    return i;
}

}  // namespace pouch::json
