// paging.cpp -- cursors and pages of paging.h. Keys are checked by kind when a cursor is read,
// so a forged cursor is 400 invalid_cursor, never a database error.
#include "common/paging/paging.h"

#include "common/crypto/b64url.h"
#include "common/http/error.h"
#include "common/types/limits.h"
#include "common/types/uuid.h"

namespace pouch::paging {

namespace {

constexpr size_t kMaxCursorChars = 512;  // the longest cursor we hand out is ~200

// A canonical decimal (no '+', no leading zero, no "-0") within [min, 2^53 − 1].
bool canonical_integer(const std::string& v, long long min) {
    std::string digits = !v.empty() && v[0] == '-' ? v.substr(1) : v;
    if (digits.empty() || digits.size() > 16 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
        return false;
    if (digits.size() > 1 && digits[0] == '0') return false;
    if (digits == "0" && v[0] == '-') return false;
    long long n = std::stoll(digits);
    if (n > kMaxSafeInt) return false;
    return (v[0] == '-' ? -n : n) >= min;
}

bool is_slug_key(const std::string& v) {
    return !v.empty() && v.size() <= 64 &&
           v.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string::npos;
}

bool key_ok(Key kind, const std::string& v) {
    switch (kind) {
        case Key::positive:
            return canonical_integer(v, 1);
        case Key::natural:
            return canonical_integer(v, 0);
        case Key::integer:
            return canonical_integer(v, -kMaxSafeInt);
        case Key::uuid:
            return is_uuid(v) && canonical_uuid(v) == v;
        case Key::text:
            return is_slug_key(v);
    }
    return false;
}

}  // namespace

http::QueryParam cursor_param() {
    return http::query_text("cursor", kMaxCursorChars);
}

http::QueryParam limit_param(long long max) {
    return http::query_int("limit", 1, max, kDefaultLimit);
}

Error invalid_cursor() {
    return Error(Code::invalid_cursor, {}, "?cursor");
}

List::List(std::string scope, std::vector<Key> kinds)
    : scope_(std::move(scope)), kinds_(std::move(kinds)) {}

std::string List::encode(const Keys& keys) const {
    std::string raw = scope_;
    for (const auto& k : keys) raw += "|" + k;
    return crypto::b64url_encode(raw);
}

std::optional<Keys> List::decode(const std::string& cursor) const {
    auto raw = crypto::b64url_decode(cursor);
    if (!raw || raw->size() <= scope_.size() || raw->compare(0, scope_.size(), scope_) != 0 ||
        (*raw)[scope_.size()] != '|')
        return std::nullopt;
    Keys keys;
    size_t pos = scope_.size() + 1;
    while (true) {
        size_t bar = raw->find('|', pos);
        keys.push_back(raw->substr(pos, bar == std::string::npos ? std::string::npos : bar - pos));
        if (bar == std::string::npos) break;
        pos = bar + 1;
    }
    if (keys.size() != kinds_.size()) return std::nullopt;
    for (size_t i = 0; i < keys.size(); ++i)
        if (!key_ok(kinds_[i], keys[i])) return std::nullopt;
    return keys;
}

std::optional<Keys> List::read(const http::QueryValues& q) const {
    auto text = q.text("cursor");
    if (!text) return std::nullopt;
    auto keys = decode(*text);
    if (!keys) throw invalid_cursor();
    return keys;
}

http::Response List::page(long long limit, int rows, long long fetched,
                          const std::function<Keys(json::Out&, int)>& item,
                          const std::function<void(json::Out&)>& extra) const {
    json::Out o;
    o.key("items").arr();
    long long written = 0;
    Keys last;
    for (int i = 0; i < rows && written < limit; ++i) {
        last = item(o, i);
        ++written;
        if (o.size() > kPageBudget) break;
    }
    o.end_arr();
    if (extra) extra(o);
    http::Response resp;
    resp.data = o.done();
    resp.list = true;
    if (written > 0 && written < fetched) resp.next_cursor = encode(last);
    return resp;
}

db::Param after_key(const std::optional<Keys>& after, size_t k) {
    if (!after) return std::nullopt;
    return (*after)[k];
}

std::optional<long long> after_number(const std::optional<Keys>& after, size_t k) {
    if (!after) return std::nullopt;
    return std::stoll((*after)[k]);  // read() let only canonical decimals within ±2^53 through
}

long long fetched(const db::Result& r) {
    return r.rows() > 0 ? r.int64(0, "fetched") : 0;
}

}  // namespace pouch::paging
