// terminal_text.cpp -- the replacement of control and bidi characters, ASCII-only JSON, NFC
// (libunistring) and the device name check (terminal_text.h); UTF-8, the character and the
// label rules are common/json's (utf8.h, label.h), the service's own.
#include "clients/cli/terminal_text.h"

#include <uninorm.h>
#include <unistr.h>

#include <cstdlib>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "clients/cli/errors.h"
#include "common/json/label.h"
#include "common/json/utf8.h"

namespace pouch::cli {

std::string defang(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
        auto [len, cp] = json::utf8_char_at(s, i);
        if (len == 0) {
            out += '?';
            ++i;
            continue;
        }
        if (json::is_control_or_bidi(cp))
            out += "\xEF\xBF\xBD";  // U+FFFD
        else
            out.append(s.substr(i, len));
        i += len;
    }
    return out;
}

std::string ascii_json(std::string_view json) {
    rapidjson::Document d;
    d.Parse<rapidjson::kParseValidateEncodingFlag | rapidjson::kParseIterativeFlag>(json.data(),
                                                                                    json.size());
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer, rapidjson::UTF8<>, rapidjson::ASCII<>> w(buf);
    if (d.HasParseError() || !d.Accept(w)) return defang(json);
    return std::string(buf.GetString(), buf.GetSize());
}

std::string first_chars(std::string_view s, size_t n) {
    size_t i = 0;
    for (size_t count = 0; i < s.size() && count < n; ++count) {
        size_t len = json::utf8_char_at(s, i).len;
        i += len ? len : 1;
    }
    return std::string(s.substr(0, i));
}

std::string last_chars(std::string_view s, size_t n) {
    size_t count = char_count(s);
    if (count <= n) return std::string(s);
    size_t i = first_chars(s, count - n).size();
    return std::string(s.substr(i));
}

size_t char_count(std::string_view s) {
    size_t count = 0;
    for (size_t i = 0; i < s.size(); ++count) {
        size_t len = json::utf8_char_at(s, i).len;
        i += len ? len : 1;
    }
    return count;
}

std::optional<std::string> to_nfc(std::string_view s) {
    auto* p = reinterpret_cast<const uint8_t*>(s.data());
    if (u8_check(p, s.size()) != nullptr) return std::nullopt;
    if (s.empty()) return std::string();
    size_t len = 0;
    uint8_t* out = u8_normalize(UNINORM_NFC, p, s.size(), nullptr, &len);
    if (!out) return std::nullopt;
    std::string r(reinterpret_cast<char*>(out), len);
    std::free(out);
    return r;
}

std::string checked_device_name(std::string_view typed, const std::string& what) {
    auto name = to_nfc(typed);
    if (!name) throw CliError(kExitUsage, what + " is not valid UTF-8");
    if (auto why = json::label_problem(*name))
        throw CliError(kExitUsage, what + " cannot be a device name: it must " + *why);
    return *name;
}

}  // namespace pouch::cli
