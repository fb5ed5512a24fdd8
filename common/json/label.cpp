// label.cpp -- the label rule of label.h over libunistring: u8_normalize for NFC (a label
// must already be in NFC: the service stores it as sent, so clients send NFC) and
// uc_is_property_white_space for the Unicode White_Space property.
#include "common/json/label.h"

#include <unictype.h>
#include <uninorm.h>
#include <unistr.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "common/json/utf8.h"

namespace pouch::json {

namespace {

bool is_control(ucs4_t c) {
    return c <= 0x1F || (c >= 0x7F && c <= 0x9F);  // C0, DEL, C1
}

// ALM, LRM/RLM, the embeddings and overrides, the isolates.
bool is_bidi_control(ucs4_t c) {
    return c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) ||
           (c >= 0x2066 && c <= 0x2069);
}

std::string code_point(ucs4_t c) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(c));
    return buf;
}

bool is_nfc(std::string_view s) {
    size_t n = 0;
    std::unique_ptr<uint8_t, decltype(&std::free)> nfc(
        u8_normalize(UNINORM_NFC, reinterpret_cast<const uint8_t*>(s.data()), s.size(), nullptr,
                     &n),
        &std::free);
    return nfc && n == s.size() && std::memcmp(nfc.get(), s.data(), n) == 0;
}

}  // namespace

bool is_control_or_bidi(uint32_t cp) {
    return is_control(cp) || is_bidi_control(cp);
}

std::optional<std::string> label_problem(std::string_view s) {
    // Counted before anything else, so a huge string costs one pass and no copy.
    size_t chars = utf8_length(s);
    if (chars < 1) return "be at least 1 character";
    if (chars > kMaxLabelChars)
        return "be at most " + std::to_string(kMaxLabelChars) + " characters";
    if (!utf8_valid(s)) return "be valid UTF-8";
    std::vector<ucs4_t> cps;
    const auto* p = reinterpret_cast<const uint8_t*>(s.data());
    const auto* end = p + s.size();
    while (p < end) {
        ucs4_t c;
        p += u8_mbtouc(&c, p, static_cast<size_t>(end - p));
        cps.push_back(c);
    }
    for (ucs4_t c : cps)
        if (is_control(c)) return "not contain a control character (" + code_point(c) + ")";
    for (ucs4_t c : cps)
        if (is_bidi_control(c)) return "not contain a bidi control (" + code_point(c) + ")";
    for (ucs4_t c : cps)
        if (c == '/' || c == '\\') return "not contain '/' or '\\'";
    if (uc_is_property_white_space(cps.front()) || uc_is_property_white_space(cps.back()))
        return "not start or end with white space";
    if (!is_nfc(s)) return "be in Unicode normalization form C (NFC)";
    return std::nullopt;
}

}  // namespace pouch::json
