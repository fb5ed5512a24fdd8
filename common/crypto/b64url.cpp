// b64url.cpp -- strict base64url codec (see b64url.h). Table driven, no dependencies;
// OpenSSL's EVP_DecodeBlock is not used because it accepts padding and whitespace.
#include "common/crypto/b64url.h"

#include <array>
#include <cstdint>
#include <cstring>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace pouch::crypto {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

constexpr std::array<int8_t, 256> make_reverse() {
    std::array<int8_t, 256> t{};
    for (auto& v : t) v = -1;
    for (int i = 0; i < 64; ++i)
        t[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
    return t;
}
constexpr std::array<int8_t, 256> kReverse = make_reverse();

int value_of(char c) {
    return kReverse[static_cast<unsigned char>(c)];
}

}  // namespace

namespace {

// Every 12 bits as their two characters (8 KiB): a group of three bytes is two lookups, not
// four (the encoder ran at about 1 GB/s on the 560 MB of envelopes of a 1 GiB push).
using PairTable = std::array<char, 2 * 4096>;
constexpr PairTable make_pairs() {
    PairTable t{};
    for (int v = 0; v < 4096; ++v) {
        t[2 * v] = kAlphabet[v >> 6];
        t[2 * v + 1] = kAlphabet[v & 63];
    }
    return t;
}
constexpr PairTable kPairs = make_pairs();

}  // namespace

std::string b64url_encode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() * 4 + 2) / 3);
    size_t i = 0;
    auto at = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(bytes[k])); };
    // Whole groups written in place (a character at a time through += is several times slower
    // on the megabytes of an envelope).
    out.resize(bytes.size() / 3 * 4);
    char* o = out.data();
    for (; i + 3 <= bytes.size(); i += 3, o += 4) {
        uint32_t v = at(i) << 16 | at(i + 1) << 8 | at(i + 2);
        std::memcpy(o, &kPairs[2 * (v >> 12)], 2);
        std::memcpy(o + 2, &kPairs[2 * (v & 4095)], 2);
    }
    size_t rest = bytes.size() - i;
    if (rest == 1) {
        uint32_t v = at(i) << 16;
        out += kAlphabet[v >> 18 & 63];
        out += kAlphabet[v >> 12 & 63];
    } else if (rest == 2) {
        uint32_t v = at(i) << 16 | at(i + 1) << 8;
        out += kAlphabet[v >> 18 & 63];
        out += kAlphabet[v >> 12 & 63];
        out += kAlphabet[v >> 6 & 63];
    }
    return out;
}

namespace {

// The value of a character already shifted to its place in a group of four (bits 18-23 for
// the first, 12-17, 6-11, 0-5), or kBad: one OR of four lookups is the group's 24 bits, and
// a set kBad bit in the OR of all groups means some character was outside the alphabet.
constexpr uint32_t kBad = 0x80000000u;
using ShiftedTable = std::array<uint32_t, 256>;
constexpr ShiftedTable make_shifted(int shift) {
    ShiftedTable t{};
    for (int c = 0; c < 256; ++c)
        t[c] = kReverse[c] < 0 ? kBad : static_cast<uint32_t>(kReverse[c]) << shift;
    return t;
}
constexpr ShiftedTable kAt0 = make_shifted(18), kAt1 = make_shifted(12), kAt2 = make_shifted(6),
                       kAt3 = make_shifted(0);

// The bytes of the whole groups of `text` (size a multiple of 4) into `o`; false when a
// character is outside the alphabet (what was written is then of no use).
bool decode_groups(const unsigned char* in, size_t size, char* o) {
    uint32_t bad = 0;
    for (size_t i = 0; i < size; i += 4, o += 3) {
        uint32_t v = kAt0[in[i]] | kAt1[in[i + 1]] | kAt2[in[i + 2]] | kAt3[in[i + 3]];
        bad |= v;
        o[0] = static_cast<char>(v >> 16);
        o[1] = static_cast<char>(v >> 8);
        o[2] = static_cast<char>(v);
    }
    return (bad & kBad) == 0;
}

}  // namespace

std::optional<size_t> b64url_decoded_size(std::string_view text) {
    if (!is_b64url(text) || !b64url_canonical(text)) return std::nullopt;
    size_t rest = text.size() % 4;
    return text.size() / 4 * 3 + (rest == 0 ? 0 : rest - 1);
}

std::optional<std::string> b64url_decode(std::string_view text) {
    size_t rest = text.size() % 4;
    if (rest == 1) return std::nullopt;
    size_t whole = text.size() - rest;
    std::string out;
    out.resize(whole / 4 * 3 + (rest == 0 ? 0 : rest - 1));
    // Whole groups of four characters in one pass with no branch per group (a byte at a time
    // through += was a fifth of a pull's CPU, a branch per group most of what was left).
    const auto* in = reinterpret_cast<const unsigned char*>(text.data());
    if (!decode_groups(in, whole, out.data())) return std::nullopt;
    if (rest == 0) return out;
    // 2 or 3 characters left: 1 or 2 bytes, and 4 or 2 unused bits that must be zero,
    // otherwise two texts would map to one value.
    uint32_t v = kAt0[in[whole]] | kAt1[in[whole + 1]] | (rest == 3 ? kAt2[in[whole + 2]] : 0);
    if ((v & kBad) != 0) return std::nullopt;
    char* o = out.data() + whole / 4 * 3;
    o[0] = static_cast<char>(v >> 16);
    if (rest == 2)
        return (v & 0xFFFF) == 0 ? std::optional<std::string>(std::move(out)) : std::nullopt;
    o[1] = static_cast<char>(v >> 8);
    return (v & 0xFF) == 0 ? std::optional<std::string>(std::move(out)) : std::nullopt;
}

bool is_b64url(std::string_view text) {
    const char* p = text.data();
    const char* end = p + text.size();
#ifdef __SSE2__
    // 16 characters at a time: each must be in A-Z, a-z, 0-9 or be '-' or '_'. Unsigned
    // c - lo <= hi - lo exactly when min(c - lo, hi - lo) == c - lo.
    auto in = [](__m128i s, char lo, char hi) {
        __m128i d = _mm_sub_epi8(s, _mm_set1_epi8(lo));
        return _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(static_cast<char>(hi - lo))), d);
    };
    for (; end - p >= 16; p += 16) {
        __m128i s = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        __m128i ok = _mm_or_si128(
            _mm_or_si128(in(s, 'A', 'Z'), in(s, 'a', 'z')),
            _mm_or_si128(in(s, '0', '9'), _mm_or_si128(_mm_cmpeq_epi8(s, _mm_set1_epi8('-')),
                                                       _mm_cmpeq_epi8(s, _mm_set1_epi8('_')))));
        if (_mm_movemask_epi8(ok) != 0xFFFF) return false;
    }
#endif
    // The rest with no branch per character: the OR of all the values is negative when one is.
    int8_t any = 0;
    for (; p < end; ++p) any = static_cast<int8_t>(any | kReverse[static_cast<unsigned char>(*p)]);
    return any >= 0;
}

bool b64url_canonical(std::string_view text) {
    size_t rest = text.size() % 4;
    if (rest == 1) return false;
    if (rest == 0) return true;
    int v = value_of(text.back());
    if (v < 0) return false;
    return rest == 2 ? (v & 0x0f) == 0 : (v & 0x03) == 0;
}

}  // namespace pouch::crypto
