// jcs.cpp -- RFC 8785 canonical JSON: ECMAScript string escaping, integral numbers only,
// object members ordered by UTF-16 code units (which differs from UTF-8 byte order when
// keys mix U+E000..U+FFFF with supplementary-plane characters).
#include "common/json/jcs.h"

#include "common/types/limits.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <vector>

#include "common/json/utf8.h"

namespace pouch::json {
namespace {

// 2^53 - 1 (decisions §3): every integer of at most this magnitude is exactly a double, so
// JCS (which prints numbers as ECMAScript does) reproduces it digit for digit.
constexpr double kMaxExact = static_cast<double>(kMaxSafeInt);
constexpr long long kMaxExactInt = kMaxSafeInt;

std::u16string to_utf16(std::string_view s) {
    std::u16string out;
    out.reserve(s.size());
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const auto* end = p + s.size();
    while (p < end) {  // s is valid UTF-8 (checked before sorting)
        char32_t cp;
        if (*p < 0x80) {
            cp = *p++;
        } else if (*p < 0xE0) {
            cp = (char32_t(p[0] & 0x1F) << 6) | (p[1] & 0x3F);
            p += 2;
        } else if (*p < 0xF0) {
            cp = (char32_t(p[0] & 0x0F) << 12) | (char32_t(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
            p += 3;
        } else {
            cp = (char32_t(p[0] & 0x07) << 18) | (char32_t(p[1] & 0x3F) << 12) |
                 (char32_t(p[2] & 0x3F) << 6) | (p[3] & 0x3F);
            p += 4;
        }
        if (cp >= 0x10000) {
            cp -= 0x10000;
            out += static_cast<char16_t>(0xD800 + (cp >> 10));
            out += static_cast<char16_t>(0xDC00 + (cp & 0x3FF));
        } else {
            out += static_cast<char16_t>(cp);
        }
    }
    return out;
}

bool write_string(std::string& out, std::string_view s) {
    if (!utf8_valid(s)) return false;
    static constexpr char kHex[] = "0123456789abcdef";
    out += '"';
    for (size_t i = 0; i < s.size(); ++i) {
        // A run that needs no escaping (nearly all of a b64url envelope) is copied at once.
        size_t run = i;
        while (run < s.size() && static_cast<unsigned char>(s[run]) >= 0x20 && s[run] != '"' &&
               s[run] != '\\')
            ++run;
        if (run > i) {
            out.append(s.data() + i, run - i);
            i = run;
            if (i == s.size()) break;
        }
        char ch = s[i];
        auto c = static_cast<unsigned char>(ch);
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\b':
                out += "\\b";
                break;
            case '\f':
                out += "\\f";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (c < 0x20) {
                    out += "\\u00";
                    out += kHex[c >> 4];
                    out += kHex[c & 0xF];
                } else {
                    out += ch;
                }
        }
    }
    out += '"';
    return true;
}

bool write_number(std::string& out, const rapidjson::Value& v) {
    if (v.IsInt64()) {
        long long i = v.GetInt64();
        if (i > kMaxExactInt || i < -kMaxExactInt) return false;
        out += std::to_string(i);
        return true;
    }
    if (v.IsUint64()) {  // only values above INT64_MAX get here: far beyond 2^53
        return false;
    }
    double d = v.GetDouble();
    if (!std::isfinite(d) || std::trunc(d) != d || std::fabs(d) > kMaxExact) return false;
    // -0.0 converts to 0 and prints "0", as ECMAScript's Number::toString does.
    out += std::to_string(static_cast<long long>(d));
    return true;
}

bool write(std::string& out, const rapidjson::Value& v) {
    switch (v.GetType()) {
        case rapidjson::kNullType:
            out += "null";
            return true;
        case rapidjson::kFalseType:
            out += "false";
            return true;
        case rapidjson::kTrueType:
            out += "true";
            return true;
        case rapidjson::kNumberType:
            return write_number(out, v);
        case rapidjson::kStringType:
            return write_string(out, std::string_view(v.GetString(), v.GetStringLength()));
        case rapidjson::kArrayType: {
            out += '[';
            bool first = true;
            for (const auto& e : v.GetArray()) {
                if (!first) out += ',';
                first = false;
                if (!write(out, e)) return false;
            }
            out += ']';
            return true;
        }
        case rapidjson::kObjectType: {
            struct Entry {
                std::u16string sort_key;
                const rapidjson::Value* name;
                const rapidjson::Value* value;
            };
            std::vector<Entry> members;
            members.reserve(v.MemberCount());
            for (const auto& m : v.GetObject()) {
                std::string_view k(m.name.GetString(), m.name.GetStringLength());
                if (!utf8_valid(k)) return false;
                members.push_back(Entry{to_utf16(k), &m.name, &m.value});
            }
            std::sort(members.begin(), members.end(),
                      [](const Entry& a, const Entry& b) { return a.sort_key < b.sort_key; });
            // Equal neighbours are duplicate keys: no canonical form exists for them.
            for (size_t i = 1; i < members.size(); ++i)
                if (members[i].sort_key == members[i - 1].sort_key) return false;
            out += '{';
            bool first = true;
            for (const auto& e : members) {
                if (!first) out += ',';
                first = false;
                write_string(out, std::string_view(e.name->GetString(), e.name->GetStringLength()));
                out += ':';
                if (!write(out, *e.value)) return false;
            }
            out += '}';
            return true;
        }
    }
    return false;
}

}  // namespace

std::optional<std::string> jcs(const rapidjson::Value& v, size_t size_hint) {
    std::string out;
    out.reserve(size_hint);
    if (!write(out, v)) return std::nullopt;
    return out;
}

}  // namespace pouch::json
