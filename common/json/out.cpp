// out.cpp -- the response JSON builder: a RapidJSON Writer over a StringBuffer whose root
// object is opened on construction and closed by done().
#include "common/json/out.h"

#include <rapidjson/rapidjson.h>

#include <cstdint>
#include <cstring>

namespace pouch::json {

using rapidjson::SizeType;

namespace {

// No byte the writer escapes ('"', '\\', a control character below 0x20), eight at a time:
// envelopes, signatures and blob ids are long b64url strings, which RapidJSON's writer would
// otherwise look at one character at a time.
bool plain(std::string_view s) {
    constexpr std::uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
    size_t i = 0;
    for (; s.size() - i >= 8; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, s.data() + i, sizeof w);
        std::uint64_t q = w ^ (kOnes * '"'), b = w ^ (kOnes * '\\');
        // A byte below 0x20 in w, or a zero byte in q or b (the quote or the backslash).
        if ((((w - kOnes * 0x20) & ~w) | ((q - kOnes) & ~q) | ((b - kOnes) & ~b)) & kHighs)
            return false;
    }
    for (; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 || c == '"' || c == '\\') return false;
    }
    return true;
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

std::string quote(std::string_view s) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    write_string(w, buf, s);
    return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace pouch::json
