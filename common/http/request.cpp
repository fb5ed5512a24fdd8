// request.cpp -- accessors, the client address, and query-string parsing (decisions §3: a
// repeated or malformed parameter is 400 validation_failed with field "?name").
#include "common/http/request.h"

#include <arpa/inet.h>

#include "common/http/error.h"

namespace pouch::http {

namespace {
const std::string kEmpty;

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}
}  // namespace

const std::string& Request::header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? kEmpty : it->second;
}

const std::string* Request::query_param(const std::string& name) const {
    auto it = query.find(name);
    return it == query.end() ? nullptr : &it->second;
}

const std::string& Request::param(const std::string& name) const {
    auto it = params.find(name);
    return it == params.end() ? kEmpty : it->second;
}

std::optional<std::string> canonical_ip(const std::string& remote_addr) {
    unsigned char raw[sizeof(in6_addr)];
    char text[INET6_ADDRSTRLEN];
    for (int family : {AF_INET, AF_INET6}) {
        if (inet_pton(family, remote_addr.c_str(), raw) == 1 &&
            inet_ntop(family, raw, text, sizeof text))
            return std::string(text);
    }
    return std::nullopt;
}

std::optional<std::string> percent_decode(const std::string& s, bool plus_is_space) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == '%') {
            if (i + 2 >= s.size()) return std::nullopt;
            int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
            if (hi < 0 || lo < 0) return std::nullopt;
            out.push_back(static_cast<char>(hi * 16 + lo));
            i += 2;
        } else if (c == '+' && plus_is_space) {
            out.push_back(' ');
        } else {
            out.push_back(c);
        }
    }
    return out;
}

std::map<std::string, std::string> parse_query(const std::string& raw) {
    std::map<std::string, std::string> out;
    size_t pos = 0;
    while (pos < raw.size()) {
        size_t amp = raw.find('&', pos);
        if (amp == std::string::npos) amp = raw.size();
        std::string part = raw.substr(pos, amp - pos);
        pos = amp + 1;
        if (part.empty()) continue;  // "a=1&&b=2" and a trailing '&' are harmless
        size_t eq = part.find('=');
        std::string raw_key = part.substr(0, eq);
        std::string raw_val = eq == std::string::npos ? "" : part.substr(eq + 1);
        auto key = percent_decode(raw_key, true);
        if (!key || key->empty())
            throw validation_failed("?" + raw_key, "malformed query parameter name");
        auto val = percent_decode(raw_val, true);
        if (!val) throw validation_failed("?" + *key, "malformed percent-encoding");
        if (!out.emplace(*key, *val).second)
            throw validation_failed("?" + *key, "query parameter given more than once");
    }
    return out;
}

}  // namespace pouch::http
