// uuid.cpp -- UUID recognition and canonical form; no dependency beyond the standard library.
#include "common/types/uuid.h"

namespace pouch {

namespace {

char lower_ascii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool is_hex(char c) {
    c = lower_ascii(c);
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

}  // namespace

bool is_uuid(std::string_view s) {
    if (s.size() != 36) return false;
    for (size_t i = 0; i < 36; ++i) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !is_hex(s[i])) return false;
    }
    std::string lower(s);
    for (char& c : lower) c = lower_ascii(c);
    if (lower == "00000000-0000-0000-0000-000000000000") return true;
    if (lower == "ffffffff-ffff-ffff-ffff-ffffffffffff") return true;
    char version = lower[14], variant = lower[19];
    return version >= '1' && version <= '8' &&
           (variant == '8' || variant == '9' || variant == 'a' || variant == 'b');
}

std::optional<std::string> canonical_uuid(std::string_view s) {
    if (!is_uuid(s)) return std::nullopt;
    std::string out(s);
    for (char& c : out) c = lower_ascii(c);
    return out;
}

}  // namespace pouch
