// server_url.h -- the --server address of `pouch login`, checked and written one way: the base
// every API call and the approval link are built from, and the plain-HTTP rule of decisions
// §15 (http:// only to this computer unless --insecure-http).
#pragma once

#include <string>
#include <string_view>

namespace pouch::cli {

struct ServerUrl {
    std::string base;  // scheme://host[:port][/path], scheme and host in lower case, no trailing /
    std::string host;  // as in base ("[::1]" keeps its brackets)
    bool https = false;
    bool loopback = false;  // localhost, 127.0.0.0/8 or [::1]
};

// Parses an http:// or https:// address: a host name, an IPv4 address or a bracketed IPv6
// address, an optional port (1-65535) and an optional path; no user name, query or fragment,
// no white space or control character, ASCII only (an international host name is given in
// its xn-- form). Throws CliError kExitUsage naming the problem.
ServerUrl parse_server_url(std::string_view given);

// localhost, a dotted-decimal IPv4 address in 127.0.0.0/8, or [::1].
bool is_loopback_host(std::string_view host);

// Throws CliError kExitUsage for plain http:// to a host that is not loopback, unless
// `insecure` (--insecure-http) allows it.
void require_transport(const ServerUrl& u, bool insecure);

// The warning printed on every run of a device that uses plain HTTP to another computer.
std::string insecure_http_warning(const ServerUrl& u);

}  // namespace pouch::cli
