// schema.cpp -- the declarative request validator (decisions §3): builders produce shared
// immutable Specs; validate() walks the document in order and throws validation_failed with
// the JSON Pointer of the first violation, rewriting each UUID it passes to its canonical
// lower-case form. Relies on parse_strict for UTF-8 and duplicates.
#include "common/json/schema.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string_view>

#include "common/crypto/b64url.h"
#include "common/types/error.h"
#include "common/json/label.h"
#include "common/json/parse.h"
#include "common/json/schema_spec.h"
#include "common/json/utf8.h"
#include "common/types/uuid.h"

namespace pouch::json::schema {
namespace {

Node make(Kind k) {
    auto s = std::make_shared<Spec>();
    s->kind = k;
    return Node(std::move(s));
}

// A copy of the spec to modify; a modifier on the wrong kind is a programming error in a
// schema definition, so it fails loudly at startup rather than validating wrongly.
std::shared_ptr<Spec> copy_for(const Spec& s, Kind expected, const char* modifier) {
    if (s.kind != expected)
        throw std::logic_error(std::string("schema modifier ") + modifier +
                               " applied to the wrong kind of node");
    return std::make_shared<Spec>(s);
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

std::string plural(size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

[[noreturn]] void fail(const std::string& ptr, std::string msg) {
    throw validation_failed(ptr, std::move(msg));
}

void push_segment(std::string& ptr, std::string_view token) {
    ptr += '/';
    for (char c : token) {
        if (c == '~')
            ptr += "~0";
        else if (c == '/')
            ptr += "~1";
        else
            ptr += c;
    }
}

const char* type_name(Kind k) {
    switch (k) {
        case Kind::string:
            return "a string";
        case Kind::integer:
            return "an integer";
        case Kind::boolean:
            return "a boolean";
        case Kind::array:
            return "an array";
        case Kind::object:
            return "an object";
    }
    return "?";
}

using Alloc = rapidjson::Document::AllocatorType;

void check(rapidjson::Value& v, const Spec& s, std::string& ptr, Alloc& alloc);

// The string is read where the document holds it (inside the request body): a 16 MiB string
// is never copied to be measured or checked.
void check_string(rapidjson::Value& v, const Spec& s, const std::string& ptr, Alloc& alloc) {
    std::string_view str(v.GetString(), v.GetStringLength());
    size_t n = utf8_length(str);
    if (s.min_chars == s.max_chars && n != s.min_chars)
        fail(ptr, "must be exactly " + plural(s.min_chars, "character", "characters"));
    if (n < s.min_chars)
        fail(ptr, "must be at least " + plural(s.min_chars, "character", "characters"));
    if (n > s.max_chars)
        fail(ptr, "must be at most " + plural(s.max_chars, "character", "characters"));
    for (const auto& c : s.checks)
        if (!c.pred(str)) fail(ptr, "must be " + c.what);
    if (s.canonical_uuid) {
        std::string canonical = *canonical_uuid(str);
        if (canonical != str) v.SetString(canonical.data(), static_cast<rapidjson::SizeType>(canonical.size()), alloc);
    }
}

void check_integer(const rapidjson::Value& v, const Spec& s, const std::string& ptr) {
    if (!v.IsInt64() && !v.IsUint64()) fail(ptr, "must be an integer");
    // A Uint64 that is not an Int64 exceeds every bound we allow.
    if (!v.IsInt64() || v.GetInt64() > s.max) fail(ptr, "must be at most " + std::to_string(s.max));
    if (v.GetInt64() < s.min) fail(ptr, "must be at least " + std::to_string(s.min));
}

void check_array(rapidjson::Value& v, const Spec& s, std::string& ptr, Alloc& alloc) {
    size_t n = v.Size();
    if (n < s.min_items) fail(ptr, "must have at least " + plural(s.min_items, "item", "items"));
    if (n > s.max_items) fail(ptr, "must have at most " + plural(s.max_items, "item", "items"));
    std::set<std::string> seen;  // for distinct(): strings and integers, tagged by type
    for (size_t i = 0; i < n; ++i) {
        size_t mark = ptr.size();
        push_segment(ptr, std::to_string(i));
        auto& e = v[static_cast<rapidjson::SizeType>(i)];
        check(e, s.item->spec(), ptr, alloc);
        if (s.distinct) {
            std::string key;
            if (e.IsString())
                key = "s" + std::string(e.GetString(), e.GetStringLength());
            else if (e.IsInt64())
                key = "i" + std::to_string(e.GetInt64());
            else if (e.IsUint64())
                key = "i" + std::to_string(e.GetUint64());
            if (!key.empty() && !seen.insert(std::move(key)).second)
                fail(ptr, "must not repeat an earlier item");
        }
        ptr.resize(mark);
    }
}

void check_object(rapidjson::Value& v, const Spec& s, std::string& ptr, Alloc& alloc) {
    for (auto& m : v.GetObject()) {
        std::string_view name(m.name.GetString(), m.name.GetStringLength());
        size_t mark = ptr.size();
        push_segment(ptr, name);
        auto it = std::find_if(s.members.begin(), s.members.end(),
                               [&](const Member& mm) { return mm.name == name; });
        if (it == s.members.end()) fail(ptr, "unknown field");
        check(m.value, it->node.spec(), ptr, alloc);
        ptr.resize(mark);
    }
    for (const auto& mm : s.members) {
        if (!mm.required) continue;
        if (v.FindMember(rapidjson::StringRef(mm.name.data(), mm.name.size())) == v.MemberEnd()) {
            push_segment(ptr, mm.name);
            fail(ptr, "is required");
        }
    }
    if (s.object_check && !s.object_check(v)) fail(ptr, "must be " + s.object_check_what);
}

void check(rapidjson::Value& v, const Spec& s, std::string& ptr, Alloc& alloc) {
    if (v.IsNull()) {
        if (s.nullable) return;
        fail(ptr, "must not be null");
    }
    switch (s.kind) {
        case Kind::string:
            if (!v.IsString()) fail(ptr, "must be a string");
            if (s.label) {  // first: its own rule names U+0000 as a control character
                auto why = label_problem(std::string_view(v.GetString(), v.GetStringLength()));
                if (why) throw invalid_field(ptr, "must " + *why);
            }
            // PostgreSQL text cannot hold U+0000, and no field of ours needs it.
            if (std::string_view(v.GetString(), v.GetStringLength()).find('\0') !=
                std::string_view::npos)
                fail(ptr, "must not contain U+0000");
            check_string(v, s, ptr, alloc);
            return;
        case Kind::integer:
            if (!v.IsNumber()) fail(ptr, "must be an integer");
            check_integer(v, s, ptr);
            return;
        case Kind::boolean:
            if (!v.IsBool()) fail(ptr, "must be a boolean");
            return;
        case Kind::array:
            if (!v.IsArray()) fail(ptr, "must be an array");
            check_array(v, s, ptr, alloc);
            return;
        case Kind::object:
            if (!v.IsObject()) fail(ptr, "must be an object");
            check_object(v, s, ptr, alloc);
            return;
    }
    fail(ptr, std::string("must be ") + type_name(s.kind));
}


// RFC 3339 §5.6 date-time: full-date "T" full-time, where the zone is Z or ±hh:mm;
// T and Z may be lower case (§5.6 note); a leap second (60) is allowed by the grammar.
bool is_datetime(std::string_view s) {
    size_t i = 0;
    auto num = [&](size_t digits, int& out) {
        if (i + digits > s.size()) return false;
        out = 0;
        for (size_t k = 0; k < digits; ++k) {
            if (!is_digit(s[i + k])) return false;
            out = out * 10 + (s[i + k] - '0');
        }
        i += digits;
        return true;
    };
    auto lit = [&](char c) {
        if (i >= s.size() || s[i] != c) return false;
        ++i;
        return true;
    };
    int year, month, day, hour, minute, second;
    if (!num(4, year) || !lit('-') || !num(2, month) || !lit('-') || !num(2, day)) return false;
    if (i >= s.size() || (s[i] != 'T' && s[i] != 't')) return false;
    ++i;
    if (!num(2, hour) || !lit(':') || !num(2, minute) || !lit(':') || !num(2, second)) return false;
    if (i < s.size() && s[i] == '.') {
        ++i;
        size_t start = i;
        while (i < s.size() && is_digit(s[i])) ++i;
        if (i == start) return false;
    }
    if (i >= s.size()) return false;  // the zone is required
    if (s[i] == 'Z' || s[i] == 'z') {
        ++i;
    } else if (s[i] == '+' || s[i] == '-') {
        ++i;
        int oh, om;
        if (!num(2, oh) || !lit(':') || !num(2, om) || oh > 23 || om > 59) return false;
    } else {
        return false;
    }
    if (i != s.size()) return false;
    static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month < 1 || month > 12 || day < 1) return false;
    bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    int days = kDays[month - 1] + (month == 2 && leap ? 1 : 0);
    return day <= days && hour <= 23 && minute <= 59 && second <= 60;
}

}  // namespace

Node Node::min_chars(size_t n) const {
    auto s = copy_for(*s_, Kind::string, "min_chars");
    s->min_chars = n;
    return Node(std::move(s));
}
Node Node::max_chars(size_t n) const {
    auto s = copy_for(*s_, Kind::string, "max_chars");
    s->max_chars = n;
    return Node(std::move(s));
}
Node Node::min_items(size_t n) const {
    auto s = copy_for(*s_, Kind::array, "min_items");
    s->min_items = n;
    return Node(std::move(s));
}
Node Node::max_items(size_t n) const {
    auto s = copy_for(*s_, Kind::array, "max_items");
    s->max_items = n;
    return Node(std::move(s));
}
Node Node::min(long long v) const {
    auto s = copy_for(*s_, Kind::integer, "min");
    s->min = std::max(v, -kMaxSafeInt);
    return Node(std::move(s));
}
Node Node::max(long long v) const {
    auto s = copy_for(*s_, Kind::integer, "max");
    s->max = std::min(v, kMaxSafeInt);
    return Node(std::move(s));
}
Node Node::nullable() const {
    auto s = std::make_shared<Spec>(*s_);
    s->nullable = true;
    return Node(std::move(s));
}
Node Node::distinct() const {
    auto s = copy_for(*s_, Kind::array, "distinct");
    s->distinct = true;
    return Node(std::move(s));
}
Node Node::check(std::function<bool(std::string_view)> pred, std::string what) const {
    auto s = copy_for(*s_, Kind::string, "check");
    s->checks.push_back(StringCheck{std::move(pred), std::move(what)});
    return Node(std::move(s));
}

Node string() {
    return make(Kind::string);
}

Node b64url() {
    return string().check([](std::string_view v) { return crypto::is_b64url(v); },
                          "b64url (A-Z, a-z, 0-9, - and _, no padding)");
}

Node uuid() {
    Node n = string().check([](std::string_view v) { return pouch::is_uuid(v); }, "a UUID");
    auto s = std::make_shared<Spec>(n.spec());
    s->canonical_uuid = true;
    return Node(std::move(s));
}

// 64 characters bound the fraction digits, which RFC 3339 leaves unbounded.
Node datetime() {
    return string().max_chars(64).check(is_datetime, "an RFC 3339 date-time with a time zone");
}

Node label() {
    auto s = std::make_shared<Spec>(string().spec());
    s->label = true;
    return Node(std::move(s));
}

Node one_of(std::initializer_list<const char*> values) {
    std::vector<std::string> allowed(values.begin(), values.end());
    std::string what = "one of";
    for (size_t i = 0; i < allowed.size(); ++i) what += (i ? ", \"" : " \"") + allowed[i] + "\"";
    return string().check(
        [allowed](std::string_view v) {
            return std::find(allowed.begin(), allowed.end(), v) != allowed.end();
        },
        std::move(what));
}

Node integer() {
    return make(Kind::integer);
}

Node boolean() {
    return make(Kind::boolean);
}

Node array(Node item) {
    Node n = make(Kind::array);
    auto s = std::make_shared<Spec>(n.spec());
    s->item = std::move(item);
    return Node(std::move(s));
}

Node object(std::initializer_list<Member> members) {
    auto s = std::make_shared<Spec>();
    s->kind = Kind::object;
    s->members.assign(members.begin(), members.end());
    return Node(std::move(s));
}

void validate(rapidjson::Document& doc, const Node& schema) {
    std::string ptr;
    check(doc, schema.spec(), ptr, doc.GetAllocator());
}

void validate_empty_body(std::string_view body) {
    if (body.empty()) return;
    static const Node kEmpty = object({});
    rapidjson::Document doc = parse_strict(body);
    validate(doc, kEmpty);
}

}  // namespace pouch::json::schema
