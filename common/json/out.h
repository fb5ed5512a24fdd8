// out.h -- building response JSON: a thin owner of a RapidJSON Writer whose root is an
// object, so handlers write members in order and never concatenate strings.
//   json::Out o; o.kv("user_id", id).kv("pouches", n); o.key("plan").raw(plan_json);
//   o.key("items").arr(); ... o.end_arr(); std::string data = o.done();
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace pouch::json {

class Out {
public:
    Out();  // opens the root object
    // A writer with no root opened: the caller writes exactly one value of any kind.
    struct Bare {};
    explicit Out(Bare);
    Out& key(std::string_view k);
    Out& str(std::string_view v);
    Out& num(long long v);
    Out& boolean(bool v);
    Out& null();
    Out& raw(std::string_view json);  // an already serialized JSON value
    Out& obj();
    Out& end_obj();
    Out& arr();
    Out& end_arr();

    Out& kv(std::string_view k, std::string_view v) { return key(k).str(v); }
    Out& kv(std::string_view k, const char* v) { return key(k).str(v); }
    Out& kv(std::string_view k, const std::string& v) { return key(k).str(v); }
    Out& kv(std::string_view k, long long v) { return key(k).num(v); }
    Out& kv(std::string_view k, int v) { return key(k).num(v); }
    Out& kv(std::string_view k, bool v) { return key(k).boolean(v); }
    Out& kv(std::string_view k, const std::optional<std::string>& v) {
        return v ? key(k).str(*v) : key(k).null();
    }
    Out& kv_null(std::string_view k) { return key(k).null(); }

    std::string done();  // closes the root object (if this opened one) and returns the text
    size_t size() const { return buf_.GetSize(); }

private:
    rapidjson::StringBuffer buf_;
    rapidjson::Writer<rapidjson::StringBuffer> w_;
};

// A JSON string literal (with quotes) for s.
std::string quote(std::string_view s);

}  // namespace pouch::json
