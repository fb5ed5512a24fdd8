// described.h -- a plain struct described once, as the JSON it travels as: from one list of
// fields the strict request schema (schema.h), the decoder of a validated document and the
// writer of an answer are derived, so a field is named in one place (docs/ARCHITECTURE.md,
// "Typed seams").
//
//   struct Rename {
//       std::string name;
//       std::optional<std::string> reason;
//       static auto json_fields() {
//           return std::tuple{json::field("name", &Rename::name, js::label()),
//                             json::field("reason", &Rename::reason)};
//       }
//   };
//   json::schema_of<Rename>();      // object({req("name", label()), opt("reason", string())})
//   json::decode<Rename>(doc);      // after validate(doc, schema_of<Rename>())
//   json::to_json(answer);          // {"name":"…","reason":null}
//
// The rules: a member is required unless it is a std::optional; an optional member may be
// absent, and null only if its node says nullable() (as every hand-written schema did); an
// empty optional is written as null unless the field says omit(). Members are written in
// declaration order. A field without a node gets the plain one of its type (string(),
// integer(), boolean(), array of the element's, the object of a described struct); a Raw
// (JSON passed through as text) always names its node.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "common/json/out.h"
#include "common/json/schema.h"
#include "common/json/value.h"

namespace pouch::json {

// A JSON value held as its serialized text: passed through (a roster statement, a stored
// jsonb) rather than modelled field by field.
struct Raw {
    std::string text;
    bool operator==(const Raw&) const = default;
};

template <class S, class T>
struct Field {
    const char* name;
    T S::*member;
    std::optional<schema::Node> node{};
    bool omit_empty = false;  // an empty optional is left out of the answer instead of null

    Field omit() const {
        Field f = *this;
        f.omit_empty = true;
        return f;
    }
};

template <class S, class T>
Field<S, T> field(const char* name, T S::*member) {
    return {name, member};
}
template <class S, class T>
Field<S, T> field(const char* name, T S::*member, schema::Node node) {
    return {name, member, std::move(node)};
}

// ---- traits ----------------------------------------------------------------------------------

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_vector : std::false_type {};
template <class T, class A>
struct is_vector<std::vector<T, A>> : std::true_type {};

template <class T>
concept Described = requires { T::json_fields(); };

template <class T>
concept Integral = std::is_same_v<T, long long> || std::is_same_v<T, int>;

template <Described S>
const schema::Node& schema_of();

namespace detail {

// The plain node of a C++ type, for fields that name none.
template <class T>
schema::Node default_node() {
    if constexpr (is_optional<T>::value) {
        return default_node<typename T::value_type>();
    } else if constexpr (std::is_same_v<T, std::string>) {
        return schema::string();
    } else if constexpr (std::is_same_v<T, bool>) {
        return schema::boolean();
    } else if constexpr (Integral<T>) {
        return schema::integer();
    } else if constexpr (is_vector<T>::value) {
        return schema::array(default_node<typename T::value_type>());
    } else if constexpr (Described<T>) {
        return schema_of<T>();
    } else if constexpr (std::is_same_v<T, Raw>) {
        // Compiled for every field, used only for one that names no node.
        throw std::logic_error("a json::Raw field must name its schema node");
    } else {
        static_assert(sizeof(T) == 0, "this type needs a schema node in its json::field()");
    }
}

template <class S, class T>
schema::Member member_of(const Field<S, T>& f) {
    schema::Node n = f.node ? *f.node : default_node<T>();
    if constexpr (is_optional<T>::value) return schema::opt(f.name, std::move(n));
    else return schema::req(f.name, std::move(n));
}

// ---- decoding (the document was validated against schema_of<S>()) ---------------------------

template <class T>
void read_value(const rapidjson::Value& v, T& out);

template <Described S>
void read_object(const rapidjson::Value& v, S& out) {
    std::apply(
        [&](const auto&... f) {
            (
                [&] {
                    auto it = v.FindMember(f.name);
                    using T = std::remove_cvref_t<decltype(out.*(f.member))>;
                    if (it == v.MemberEnd() || it->value.IsNull()) {
                        if constexpr (is_optional<T>::value) out.*(f.member) = std::nullopt;
                        // A required member is there: validation saw to it.
                        return;
                    }
                    detail::read_value(it->value, out.*(f.member));
                }(),
                ...);
        },
        S::json_fields());
}

template <class T>
void read_value(const rapidjson::Value& v, T& out) {
    if constexpr (is_optional<T>::value) {
        if (v.IsNull()) {
            out = std::nullopt;
        } else {
            typename T::value_type inner{};
            detail::read_value(v, inner);
            out = std::move(inner);
        }
    } else if constexpr (std::is_same_v<T, std::string>) {
        out = text(v);
    } else if constexpr (std::is_same_v<T, bool>) {
        out = v.GetBool();
    } else if constexpr (Integral<T>) {
        out = static_cast<T>(v.GetInt64());
    } else if constexpr (std::is_same_v<T, Raw>) {
        rapidjson::StringBuffer buf;
        rapidjson::Writer<rapidjson::StringBuffer> w(buf);
        v.Accept(w);
        out.text.assign(buf.GetString(), buf.GetSize());
    } else if constexpr (is_vector<T>::value) {
        out.clear();
        out.reserve(v.Size());
        for (const auto& item : v.GetArray()) {
            typename T::value_type x{};
            detail::read_value(item, x);
            out.push_back(std::move(x));
        }
    } else if constexpr (Described<T>) {
        detail::read_object(v, out);
    } else {
        static_assert(sizeof(T) == 0, "no JSON decoding for this type");
    }
}

// ---- writing ---------------------------------------------------------------------------------

template <class T>
void write_value(Out& o, const T& v);

template <Described S>
void write_members(Out& o, const S& s) {
    std::apply(
        [&](const auto&... f) {
            (
                [&] {
                    const auto& v = s.*(f.member);
                    using T = std::remove_cvref_t<decltype(v)>;
                    if constexpr (is_optional<T>::value)
                        if (!v && f.omit_empty) return;
                    o.key(f.name);
                    detail::write_value(o, v);
                }(),
                ...);
        },
        S::json_fields());
}

template <class T>
void write_value(Out& o, const T& v) {
    if constexpr (is_optional<T>::value) {
        if (v) detail::write_value(o, *v);
        else o.null();
    } else if constexpr (std::is_same_v<T, std::string>) {
        o.str(v);
    } else if constexpr (std::is_same_v<T, bool>) {
        o.boolean(v);
    } else if constexpr (Integral<T>) {
        o.num(static_cast<long long>(v));
    } else if constexpr (std::is_same_v<T, Raw>) {
        o.raw(v.text);
    } else if constexpr (is_vector<T>::value) {
        o.arr();
        for (const auto& x : v) detail::write_value(o, x);
        o.end_arr();
    } else if constexpr (Described<T>) {
        o.obj();
        detail::write_members(o, v);
        o.end_obj();
    } else {
        static_assert(sizeof(T) == 0, "no JSON writing for this type");
    }
}

}  // namespace detail

// The strict schema of S (unknown members refused), built once.
template <Described S>
const schema::Node& schema_of() {
    static const schema::Node node = std::apply(
        [](const auto&... f) { return schema::object({detail::member_of(f)...}); },
        S::json_fields());
    return node;
}

// S read from a document (or value) already validated against schema_of<S>().
template <Described S>
S decode(const rapidjson::Value& v) {
    S s{};
    detail::read_object(v, s);
    return s;
}

// S's members written into an open object (Out's root, or after obj()).
template <Described S>
void write_members(Out& o, const S& s) {
    detail::write_members(o, s);
}

// S as a JSON object's text; a vector of S as an array's text.
template <class T>
std::string to_json(const T& v) {
    if constexpr (Described<T>) {
        Out o;
        detail::write_members(o, v);
        return o.done();
    } else {
        Out o{Out::Bare{}};
        detail::write_value(o, v);
        return o.done();
    }
}

}  // namespace pouch::json
