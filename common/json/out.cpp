// out.cpp -- the response JSON builder: a RapidJSON Writer over a StringBuffer whose root
// object is opened on construction and closed by done().
#include "common/json/out.h"

#include <rapidjson/rapidjson.h>

namespace pouch::json {

using rapidjson::SizeType;

Out::Out() : w_(buf_) {
    w_.StartObject();
}

Out::Out(Bare) : w_(buf_) {}

Out& Out::key(std::string_view k) {
    w_.Key(k.data(), static_cast<SizeType>(k.size()), true);
    return *this;
}
Out& Out::str(std::string_view v) {
    w_.String(v.data(), static_cast<SizeType>(v.size()), true);
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
    // The type only tells the writer this is a value (not a key) in its bookkeeping.
    w_.RawValue(json.data(), json.size(), rapidjson::kObjectType);
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
    w.String(s.data(), static_cast<SizeType>(s.size()), true);
    return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace pouch::json
