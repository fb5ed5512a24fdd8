// out.cpp -- the response JSON builder: a RapidJSON Writer over a StringBuffer whose root
// object is opened on construction and closed by done().
#include "common/json/out.h"

#include <rapidjson/rapidjson.h>

#include <cstdint>
#include <cstring>

#include "common/json/scan.h"

namespace pouch::json {

using rapidjson::SizeType;

namespace {

// No byte the writer escapes: envelopes, signatures and blob ids are long b64url strings,
// which RapidJSON's writer would otherwise look at one character at a time.
bool plain(std::string_view s) {
    return next_to_escape(s, 0) == s.size();
}

// A string of 64 bytes or more with nothing to escape is copied whole, quoted. The writer
// writes the opening quote (so it places its separator and counts the value); the rest goes
// into its buffer by memcpy (RapidJSON's RawValue copies a byte at a time).
constexpr size_t kPlainFrom = 64;

void write_string(rapidjson::Writer<rapidjson::StringBuffer>& w, rapidjson::StringBuffer& buf,
                  std::string_view v) {
    if (v.size() >= kPlainFrom && plain(v)) {
        w.RawValue("\"", 1, rapidjson::kStringType);
        std::memcpy(buf.Push(v.size()), v.data(), v.size());
        *buf.Push(1) = '"';
        return;
    }
    w.String(v.data(), static_cast<SizeType>(v.size()), true);
}

}  // namespace

Out::Out() : w_(buf_) {
    w_.StartObject();
}

Out::Out(Bare) : w_(buf_) {}

Out& Out::key(std::string_view k) {
    w_.Key(k.data(), static_cast<SizeType>(k.size()), true);
    return *this;
}
Out& Out::str(std::string_view v) {
    write_string(w_, buf_, v);
    return *this;
}
Out& Out::num(long long v) {
    w_.Int64(v);
    return *this;
}
Out& Out::boolean(bool v) {
    w_.Bool(v);
    return *this;
}
Out& Out::null() {
    w_.Null();
    return *this;
}
Out& Out::raw(std::string_view json) {
    // The type only tells the writer this is a value (not a key) in its bookkeeping. Its first
    // byte goes through the writer (the separator, the count), the rest by one memcpy.
    w_.RawValue(json.data(), json.empty() ? 0 : 1, rapidjson::kObjectType);
    if (json.empty()) return *this;
    std::memcpy(buf_.Push(json.size() - 1), json.data() + 1, json.size() - 1);
    return *this;
}
Out& Out::obj() {
    w_.StartObject();
    return *this;
}
Out& Out::end_obj() {
    w_.EndObject();
    return *this;
}
Out& Out::arr() {
    w_.StartArray();
    return *this;
}
Out& Out::end_arr() {
    w_.EndArray();
    return *this;
}

std::string Out::done() {
    if (!w_.IsComplete()) w_.EndObject();
    return std::string(buf_.GetString(), buf_.GetSize());
}

// In one pass, byte for byte what RapidJSON's writer writes (its escapes: \" \\ \b \f \n \r
// \t, \u00XX for the other control characters, every other byte as it is), where the writer
// looks at a character at a time: bodies of megabytes (the CLI's journal) are quoted here.
std::string quote(std::string_view s) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(s.size() + s.size() / 16 + 2);
    out.push_back('"');
    size_t run = 0;  // start of the bytes not yet copied (none of them needs an escape)
    for (size_t i = next_to_escape(s, 0); i < s.size(); i = next_to_escape(s, run)) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        out.append(s.data() + run, i - run);
        run = i + 1;
        out.push_back('\\');
        // The two-character escapes, else \u00XX (control characters without a short form).
        static constexpr std::string_view kShortFrom = "\"\\\b\f\n\r\t", kShortTo = "\"\\bfnrt";
        if (size_t k = kShortFrom.find(static_cast<char>(c)); k != std::string_view::npos) {
            out.push_back(kShortTo[k]);
        } else {
            out.append("u00");
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 15]);
        }
    }
    out.append(s.data() + run, s.size() - run);
    out.push_back('"');
    return out;
}

}  // namespace pouch::json
