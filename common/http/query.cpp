// query.cpp -- checks Request::query against a route's parameter list.
#include "common/http/query.h"

#include <cerrno>
#include <cstdlib>

#include "common/http/error.h"
#include "common/http/router.h"

namespace pouch::http {

QueryParam query_int(std::string name, long long min, long long max,
                     std::optional<long long> fallback) {
    return QueryParam{std::move(name), QueryParam::Kind::integer, min, max, fallback};
}
QueryParam query_bool(std::string name, bool fallback) {
    return QueryParam{std::move(name), QueryParam::Kind::boolean, 0, 1, fallback ? 1 : 0};
}
QueryParam query_uuid(std::string name) {
    return QueryParam{std::move(name), QueryParam::Kind::uuid, 0, 0, std::nullopt};
}
QueryParam query_text(std::string name, size_t max_chars) {
    return QueryParam{std::move(name), QueryParam::Kind::text, 0, 0, std::nullopt, max_chars};
}

QueryParam required(QueryParam param) {
    param.required = true;
    return param;
}

std::optional<std::string> QueryValues::text(const std::string& name) const {
    auto it = texts_.find(name);
    if (it == texts_.end()) return std::nullopt;
    return it->second;
}

namespace {

// Canonical decimal only: no sign on zero, no leading zeros, no spaces or '+'.
std::optional<long long> parse_decimal(const std::string& v) {
    if (v.empty() || v.size() > 19) return std::nullopt;
    size_t digits_from = v[0] == '-' ? 1 : 0;
    if (digits_from == v.size()) return std::nullopt;
    if (v.find_first_not_of("0123456789", digits_from) != std::string::npos) return std::nullopt;
    if (v[digits_from] == '0' && v.size() > digits_from + 1) return std::nullopt;
    errno = 0;
    long long n = std::strtoll(v.c_str(), nullptr, 10);
    if (errno != 0) return std::nullopt;
    return n;
}

}  // namespace

QueryValues validate_query(const Request& req, const std::vector<QueryParam>& params) {
    QueryValues out;
    for (const auto& [k, v] : req.query) {
        bool known = false;
        for (const auto& p : params) known = known || p.name == k;
        if (!known) throw validation_failed("?" + k, "unknown query parameter");
    }
    for (const auto& p : params) {
        const std::string* v = req.query_param(p.name);
        std::string field = "?" + p.name;
        switch (p.kind) {
            case QueryParam::Kind::integer: {
                if (!v) {
                    if (p.fallback) out.ints_[p.name] = *p.fallback;
                    break;
                }
                auto n = parse_decimal(*v);
                if (!n || *n < p.min || *n > p.max)
                    throw validation_failed(field, "must be an integer from " +
                                                       std::to_string(p.min) + " to " +
                                                       std::to_string(p.max));
                out.ints_[p.name] = *n;
                break;
            }
            case QueryParam::Kind::boolean:
                if (!v) {
                    out.ints_[p.name] = p.fallback.value_or(0);
                } else if (*v == "true" || *v == "1") {
                    out.ints_[p.name] = 1;
                } else if (*v == "false" || *v == "0") {
                    out.ints_[p.name] = 0;
                } else {
                    throw validation_failed(field, "must be true, false, 1 or 0");
                }
                break;
            case QueryParam::Kind::uuid:
                if (!v) break;
                if (auto id = canonical_uuid(*v))
                    out.texts_[p.name] = std::move(*id);
                else
                    throw validation_failed(field, "must be a UUID");
                break;
            case QueryParam::Kind::text:
                if (!v) break;
                if (v->empty() || v->size() > p.max_chars)
                    throw validation_failed(
                        field, "must be 1 to " + std::to_string(p.max_chars) + " characters");
                out.texts_[p.name] = *v;
                break;
        }
    }
    for (const auto& p : params)
        if (p.required && !out.has(p.name)) throw validation_failed("?" + p.name, "required");
    return out;
}

}  // namespace pouch::http
