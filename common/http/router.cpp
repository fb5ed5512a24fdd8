// router.cpp -- template matching segment by segment. A path matches a template when every
// literal segment is equal and every typed param holds its type, so "/v1/admin/users/abc/role"
// with {id:uuid} is simply not found (404), as the interface asks for op 12.
#include "common/http/router.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "common/crypto/b64url.h"
#include "common/http/error.h"
#include "common/json/utf8.h"
#include "common/types/uuid.h"

namespace pouch::http {

namespace {

std::vector<std::string> split_path(const std::string& path) {
    std::vector<std::string> out;
    if (path.empty() || path[0] != '/') return out;
    size_t pos = 1;
    while (true) {
        size_t slash = path.find('/', pos);
        out.push_back(
            path.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos));
        if (slash == std::string::npos) break;
        pos = slash + 1;
    }
    return out;
}

// Returns false if `seg` does not satisfy the template segment; fills name/value for params.
bool match_segment(const std::string& tpl, const std::string& seg, std::string& name,
                   std::string& value) {
    if (tpl.size() < 2 || tpl.front() != '{' || tpl.back() != '}') return tpl == seg;
    std::string inner = tpl.substr(1, tpl.size() - 2);
    size_t colon = inner.find(':');
    name = inner.substr(0, colon);
    std::string type = colon == std::string::npos ? "seg" : inner.substr(colon + 1);
    value = seg;
    if (seg.empty()) return false;
    if (type == "uuid") {  // held canonical (lower case) from here on, decisions §13
        auto canonical = canonical_uuid(seg);
        if (canonical) value = std::move(*canonical);
        return canonical.has_value();
    }
    if (type == "blobid") return is_blob_id(seg);
    return true;
}

}  // namespace

bool is_blob_id(std::string_view s) {
    return s.size() == 43 && crypto::is_b64url(s);
}

void Router::add(const std::string& method, const std::string& pattern, RouteFn fn) {
    RouteOptions o;
    if (method == "GET" || method == "DELETE" || method == "HEAD") o.body = BodyKind::none;
    add(method, pattern, std::move(fn), o);
}

void Router::add_query(const std::string& method, const std::string& pattern, RouteFn fn) {
    RouteOptions o;
    o.body = BodyKind::none;
    o.query = true;
    add(method, pattern, std::move(fn), o);
}

void Router::add(const std::string& method, const std::string& pattern, RouteFn fn,
                 RouteOptions options) {
    routes_.push_back(Route{method, pattern, split_path(pattern), std::move(fn), options});
}

namespace {

// The name of the param a template segment declares when it is one of `masked`, else "".
std::string masked_name(const std::string& tpl, const std::vector<std::string>& masked) {
    if (tpl.size() < 2 || tpl.front() != '{' || tpl.back() != '}') return "";
    std::string name = tpl.substr(1, tpl.find_first_of(":}") - 1);
    return std::find(masked.begin(), masked.end(), name) != masked.end() ? name : "";
}

// A secret segment as logs show it: its first 8 bytes (whole code points) and "…".
std::string mask_segment(const std::string& seg) {
    if (seg.size() <= 8) return seg;
    return std::string(json::utf8_prefix(seg, 8)) + "\u2026";
}

}  // namespace

// Masked params are matched as any segment here, whatever their type: a malformed share id is
// as secret as a well-formed one. A path that has a route's literal segments up to a masked
// param but not the route's shape after it keeps only that prefix and the masked segment, the
// rest cut to "…", since anything after a malformed id may hold more of it.
std::string Router::loggable_path(const std::string& path) const {
    std::vector<std::string> segs = split_path(path);
    std::optional<std::string> cut;  // the prefix form, when no route's whole shape fits
    for (const auto& r : routes_) {
        const auto& masked = r.options.masked_params;
        if (masked.empty()) continue;
        std::vector<std::string> out;
        bool shape = true;
        size_t i = 0;
        for (; i < r.segments.size() && i < segs.size() && shape; ++i) {
            if (!masked_name(r.segments[i], masked).empty()) {
                out.push_back(mask_segment(segs[i]));
                continue;
            }
            std::string name, value;
            shape = match_segment(r.segments[i], segs[i], name, value);
            if (shape) out.push_back(segs[i]);
        }
        bool reached_masked = false;
        for (size_t k = 0; k < out.size() && !reached_masked; ++k)
            reached_masked = !masked_name(r.segments[k], masked).empty();
        if (shape && i == segs.size() && segs.size() == r.segments.size()) {
            std::string whole;
            for (const auto& seg : out) whole += "/" + seg;
            return whole;
        }
        if (!reached_masked || cut) continue;
        // The literal prefix and the first masked segment, then "…" for whatever follows.
        std::string prefix;
        for (size_t k = 0; k < out.size(); ++k) {
            prefix += "/" + out[k];
            if (!masked_name(r.segments[k], masked).empty()) break;
        }
        size_t kept = static_cast<size_t>(std::count(prefix.begin(), prefix.end(), '/'));
        cut = prefix + (segs.size() > kept ? "/\u2026" : "");
    }
    return cut.value_or(path);
}

Router::Match Router::match(const std::string& method, const std::string& path) const {
    std::vector<std::string> segs = split_path(path);
    std::vector<std::string> allowed;
    for (const auto& r : routes_) {
        if (r.segments.size() != segs.size()) continue;
        std::map<std::string, std::string> params;
        bool ok = true;
        for (size_t i = 0; i < segs.size() && ok; ++i) {
            std::string name, value;
            ok = match_segment(r.segments[i], segs[i], name, value);
            if (ok && !name.empty()) params[name] = value;
        }
        if (!ok) continue;
        if (r.method == method) return Match{&r, std::move(params)};
        if (std::find(allowed.begin(), allowed.end(), r.method) == allowed.end())
            allowed.push_back(r.method);
    }
    if (allowed.empty()) throw Error(Code::not_found, "no such endpoint");
    std::string allow;
    for (const auto& m : allowed) allow += (allow.empty() ? "" : ", ") + m;
    throw Error(Code::method_not_allowed, "method not allowed; allowed: " + allow)
        .with_header("Allow", allow);
}

}  // namespace pouch::http
