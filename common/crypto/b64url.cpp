// b64url.cpp -- strict base64url codec (see b64url.h). Table driven, no dependencies;
// OpenSSL's EVP_DecodeBlock is not used because it accepts padding and whitespace.
#include "common/crypto/b64url.h"

#include <array>
#include <cstdint>

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
        o[0] = kAlphabet[v >> 18 & 63];
        o[1] = kAlphabet[v >> 12 & 63];
        o[2] = kAlphabet[v >> 6 & 63];
        o[3] = kAlphabet[v & 63];
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

std::optional<std::string> b64url_decode(std::string_view text) {
    if (text.size() % 4 == 1) return std::nullopt;
    std::string out;
    out.reserve(text.size() * 3 / 4);
    // Whole groups of four characters decoded in place (a byte at a time through += was a
    // fifth of a pull's CPU); the rest as before.
    size_t whole = text.size() / 4 * 4;
    out.resize(whole / 4 * 3);
    char* o = out.data();
    for (size_t i = 0; i < whole; i += 4, o += 3) {
        int a = value_of(text[i]), b = value_of(text[i + 1]), c = value_of(text[i + 2]),
            d = value_of(text[i + 3]);
        if ((a | b | c | d) < 0) return std::nullopt;
        uint32_t v = static_cast<uint32_t>(a) << 18 | static_cast<uint32_t>(b) << 12 |
                     static_cast<uint32_t>(c) << 6 | static_cast<uint32_t>(d);
        o[0] = static_cast<char>(v >> 16 & 0xFF);
        o[1] = static_cast<char>(v >> 8 & 0xFF);
        o[2] = static_cast<char>(v & 0xFF);
    }
    text.remove_prefix(whole);
    uint32_t acc = 0;
    int bits = 0;
    for (char c : text) {
        int v = value_of(c);
        if (v < 0) return std::nullopt;
        acc = (acc << 6 | static_cast<uint32_t>(v)) & 0xFFFFFF;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>(acc >> bits & 0xFF);
        }
    }
    // Left-over bits (2 or 4) must be zero, otherwise two texts would map to one value.
    if (bits > 0 && (acc & ((1u << bits) - 1)) != 0) return std::nullopt;
    return out;
}

bool is_b64url(std::string_view text) {
    for (char c : text)
        if (value_of(c) < 0) return false;
    return true;
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
