// server_url.cpp -- parsing --server and the plain-HTTP rule (server_url.h).
#include "clients/cli/server_url.h"

#include <cctype>
#include <string>

#include "clients/cli/errors.h"

namespace pouch::cli {

namespace {

[[noreturn]] void bad(const std::string& why) {
    throw CliError(kExitUsage, "--server " + why);
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool all_of(std::string_view s, bool (*ok)(unsigned char)) {
    for (unsigned char c : s)
        if (!ok(c)) return false;
    return true;
}

bool is_digit(unsigned char c) {
    return c >= '0' && c <= '9';
}
bool is_host_char(unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '.';
}
bool is_ipv6_char(unsigned char c) {
    return std::isxdigit(c) || c == ':' || c == '.';
}
// RFC 3986 pchar and '/', without '%'-less surprises: unreserved, sub-delims, ':', '@', '%'.
bool is_path_char(unsigned char c) {
    return std::isalnum(c) || std::string_view("-._~!$&'()*+,;=:@%/").find(static_cast<char>(c)) !=
                                  std::string_view::npos;
}

// A dotted-decimal IPv4 address, each part 0-255 without leading zeros; its first part.
int ipv4_first_octet(std::string_view h) {
    int parts = 0, first = -1;
    size_t i = 0;
    while (i <= h.size()) {
        size_t dot = h.find('.', i);
        std::string_view p = h.substr(i, dot == std::string_view::npos ? h.size() - i : dot - i);
        if (p.empty() || p.size() > 3 || !all_of(p, is_digit) || (p.size() > 1 && p[0] == '0'))
            return -1;
        int v = std::stoi(std::string(p));
        if (v > 255) return -1;
        if (parts == 0) first = v;
        ++parts;
        if (dot == std::string_view::npos) break;
        i = dot + 1;
    }
    return parts == 4 ? first : -1;
}

}  // namespace

bool is_loopback_host(std::string_view host) {
    return host == "localhost" || host == "[::1]" || ipv4_first_octet(host) == 127;
}

ServerUrl parse_server_url(std::string_view given) {
    for (unsigned char c : given)
        if (c <= 0x20 || c >= 0x7F)
            bad("must be a plain ASCII address without spaces (an international host name goes "
                "in its xn-- form)");
    std::string s = std::string(given);
    ServerUrl u;
    std::string scheme = lower(s.substr(0, s.find("://") == std::string::npos ? 0 : s.find("://")));
    if (scheme != "http" && scheme != "https") bad("must be an http:// or https:// address");
    u.https = scheme == "https";
    std::string rest = s.substr(scheme.size() + 3);
    if (rest.find_first_of("?#") != std::string::npos)
        bad("must not have a query (?) or a fragment (#)");
    size_t slash = rest.find('/');
    std::string authority = rest.substr(0, slash);
    std::string path = slash == std::string::npos ? "" : rest.substr(slash);
    if (authority.find('@') != std::string::npos) bad("must not carry a user name (@)");
    std::string host = authority, port;
    if (!authority.empty() && authority[0] == '[') {
        size_t close = authority.find(']');
        if (close == std::string::npos || close < 3 ||
            !all_of(std::string_view(authority).substr(1, close - 1), is_ipv6_char))
            bad("has a malformed [IPv6] address");
        host = authority.substr(0, close + 1);
        std::string after = authority.substr(close + 1);
        if (!after.empty() && after[0] != ':') bad("has something after its ] that is no port");
        if (!after.empty()) port = after.substr(1);
        if (!after.empty() && port.empty()) bad("has an empty port");
    } else if (size_t colon = authority.find(':'); colon != std::string::npos) {
        host = authority.substr(0, colon);
        port = authority.substr(colon + 1);
        if (port.empty()) bad("has an empty port");
    }
    if (host.empty() || !(host[0] == '[' || all_of(host, is_host_char)))
        bad("must name a host (letters, digits, '-' and '.')");
    if (!port.empty() &&
        (!all_of(port, is_digit) || port.size() > 5 || port[0] == '0' || std::stoi(port) > 65535))
        bad("has a port that is not 1 to 65535");
    if (!all_of(path, is_path_char)) bad("has a path with characters an address cannot hold");
    while (!path.empty() && path.back() == '/') path.pop_back();
    u.host = lower(host);
    u.loopback = is_loopback_host(u.host);
    u.base = scheme + "://" + u.host + (port.empty() ? "" : ":" + port) + path;
    return u;
}

void require_transport(const ServerUrl& u, bool insecure) {
    if (u.https || u.loopback || insecure) return;
    throw CliError(kExitUsage,
                   "--server " + u.base +
                       " is plain http:// to another computer: anyone on the network could read "
                       "and change what this device sends and receives, its tokens included. Use "
                       "https://, or add --insecure-http for a lab network you control");
}

std::string insecure_http_warning(const ServerUrl& u) {
    return "warning: this device talks plain HTTP to " + u.host +
           " (--insecure-http): the network can read and change everything it sends and "
           "receives, its tokens included";
}

}  // namespace pouch::cli
