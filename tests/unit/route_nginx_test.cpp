// route_nginx_test.cpp -- every route's body limit (handlers/<group>/routes.h) against the
// nginx location that serves it (nginx/pouch.conf.template): the location is chosen as nginx
// chooses it (exact, then the longest prefix unless a regex matches first, regexes in order),
// its client_max_body_size (the server's when it sets none) must equal Route.body_limit, and it
// must pass to the route's own group. A difference fails here, naming the route and both values.
#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/unit/route_tables.h"

namespace pouch::api {
namespace {

struct Location {
    std::string modifier;  // "", "=", "^~", "~", "~*"
    std::string pattern;
    std::optional<size_t> body_limit;  // client_max_body_size inside the location
    std::string pass;                  // fastcgi_pass
};

struct Server {
    size_t body_limit = 1024 * 1024;  // nginx's default when the server sets none
    std::vector<Location> locations;
};

// Words, quoted strings, and the punctuation { } ; as tokens; comments dropped.
std::vector<std::string> tokens(const std::string& text) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < text.size()) {
        char c = text[i];
        if (isspace(static_cast<unsigned char>(c))) {
            ++i;
        } else if (c == '#') {
            i = text.find('\n', i);
            if (i == std::string::npos) break;
        } else if (c == '{' || c == '}' || c == ';') {
            out.emplace_back(1, c);
            ++i;
        } else if (c == '"' || c == '\'') {
            size_t end = text.find(c, i + 1);
            out.push_back(text.substr(i + 1, end - i - 1));
            i = end + 1;
        } else {
            size_t end = text.find_first_of(" \t\r\n{};#\"'", i);
            out.push_back(text.substr(i, end - i));
            i = end;
        }
    }
    return out;
}

// "64k", "16m", "1g" or bytes.
size_t size_of(const std::string& v) {
    size_t n = std::stoull(v);
    switch (v.back()) {
        case 'k':
        case 'K':
            return n * 1024;
        case 'm':
        case 'M':
            return n * 1024 * 1024;
        case 'g':
        case 'G':
            return n * 1024 * 1024 * 1024;
        default:
            return n;
    }
}

// The first server block of the template: the public one (the metrics server follows it).
Server public_server() {
    std::ifstream f("nginx/pouch.conf.template");
    std::stringstream ss;
    ss << f.rdbuf();
    std::vector<std::string> t = tokens(ss.str());
    Server server;
    size_t i = 0;
    while (i + 1 < t.size() && !(t[i] == "server" && t[i + 1] == "{")) ++i;
    if (i + 1 >= t.size()) return server;
    i += 2;
    // Directives of the server (depth 1) and of its locations (depth 2); deeper blocks skipped.
    int depth = 1;
    Location* in = nullptr;
    std::vector<std::string> statement;
    for (; i < t.size() && depth > 0; ++i) {
        const std::string& tok = t[i];
        if (tok == "{") {
            if (depth == 1 && !statement.empty() && statement[0] == "location") {
                Location l;
                if (statement.size() == 3) {
                    l.modifier = statement[1];
                    l.pattern = statement[2];
                } else {
                    l.pattern = statement[1];
                }
                server.locations.push_back(l);
                in = &server.locations.back();
            }
            ++depth;
            statement.clear();
        } else if (tok == "}") {
            --depth;
            if (depth == 1) in = nullptr;
            statement.clear();
        } else if (tok == ";") {
            if (statement.size() == 2 && statement[0] == "client_max_body_size") {
                if (depth == 1) server.body_limit = size_of(statement[1]);
                if (depth == 2 && in) in->body_limit = size_of(statement[1]);
            }
            if (statement.size() == 2 && statement[0] == "fastcgi_pass" && depth == 2 && in)
                in->pass = statement[1];
            statement.clear();
        } else {
            statement.push_back(tok);
        }
    }
    return server;
}

// The location nginx picks for `uri` (ngx_http_core_module's "location" rules).
const Location* location_for(const Server& s, const std::string& uri) {
    const Location* prefix = nullptr;
    for (const Location& l : s.locations) {
        if (l.modifier == "=" && l.pattern == uri) return &l;
        if ((l.modifier.empty() || l.modifier == "^~") && uri.rfind(l.pattern, 0) == 0 &&
            l.pattern[0] != '@' && (!prefix || l.pattern.size() > prefix->pattern.size()))
            prefix = &l;
    }
    if (prefix && prefix->modifier == "^~") return prefix;
    for (const Location& l : s.locations) {
        if (l.modifier != "~" && l.modifier != "~*") continue;
        auto flags = std::regex::ECMAScript;
        if (l.modifier == "~*") flags |= std::regex::icase;
        if (std::regex_search(uri, std::regex(l.pattern, flags))) return &l;
    }
    return prefix;
}

// A path the route's pattern matches: each typed param replaced by a value of its type.
std::string sample_path(const std::string& pattern) {
    static const std::regex param(R"(\{[A-Za-z]+:([a-z_]+)\})");
    std::string out;
    auto at = pattern.cbegin();
    for (std::sregex_iterator m(pattern.begin(), pattern.end(), param), end; m != end; ++m) {
        out.append(at, (*m)[0].first);
        std::string type = (*m)[1];
        if (type == "uuid" || type == "uuid_after_auth")
            out += "0b5f1e4c-7d2a-4c1e-9f3b-2a6d8e0c4f71";
        else if (type == "blobid")
            out += std::string(43, 'A');
        else
            ADD_FAILURE() << "no sample for a path param of type " << type << " in " << pattern;
        at = (*m)[0].second;
    }
    out.append(at, pattern.cend());
    return out;
}

bool takes_body(const Route& r) {
    if (r.body) return *r.body != http::BodyKind::none;
    return r.method != "GET" && r.method != "DELETE" && r.method != "HEAD";
}

TEST(RouteNginx, TheTemplateIsRead) {
    Server s = public_server();
    EXPECT_EQ(s.body_limit, 64 * http::kKiB) << "the server's client_max_body_size";
    EXPECT_GT(s.locations.size(), 20u) << "nginx/pouch.conf.template not found or not parsed";
    const Location* commit = location_for(s, "/v1/pouches/x/operations");
    ASSERT_NE(commit, nullptr);
    EXPECT_EQ(commit->body_limit, 8 * http::kMiB);
    EXPECT_EQ(location_for(s, "/v1/pouches/x/blobs/check")->body_limit, 128 * http::kKiB);
    EXPECT_EQ(location_for(s, "/v1/pouches")->body_limit, 16 * http::kMiB);
    EXPECT_EQ(location_for(s, "/v1/pouches/x")->pattern, "/v1/pouches/");
}

// Every route that takes a body: nginx lets through exactly what the route accepts, so a body
// the handler would refuse with 413 is refused by nginx the same way, and none it accepts is
// cut off in front of it.
TEST(RouteNginx, EveryBodyLimitIsTheLimitOfItsNginxLocation) {
    Server s = public_server();
    for (const GroupRoute& g : all_group_routes()) {
        const Route& r = *g.route;
        std::string key = r.method + " " + r.pattern;
        std::string path = sample_path(r.pattern);
        const Location* l = location_for(s, path);
        if (!l) {
            ADD_FAILURE() << key << ": no nginx location serves " << path;
            continue;
        }
        std::string where =
            "location " + l->modifier + (l->modifier.empty() ? "" : " ") + l->pattern;
        EXPECT_EQ(l->pass, "pouch_" + g.group)
            << key << " is served by " << where << ", which passes to " << l->pass;
        if (!takes_body(r)) continue;
        size_t nginx = l->body_limit.value_or(s.body_limit);
        EXPECT_EQ(r.body_limit, nginx)
            << key << ": Route.body_limit is " << r.body_limit << " bytes, nginx's " << where
            << " allows " << nginx << " bytes (client_max_body_size"
            << (l->body_limit ? "" : " of the server") << ")";
    }
}

}  // namespace
}  // namespace pouch::api
