// query.h -- statements typed by their parameters and rows: a Query names a parameter struct
// (its fields bound to $1..$n in the order declared) and a row struct (its fields read from the
// result's columns, by name, in the order declared). Every Query registers its shape, and
// tests/unit/db_statements_test.cpp prepares each against the migrated schema and compares what
// PostgreSQL infers (PQdescribePrepared) with the structs, so a mismatch fails `make test-unit`.
//
//   struct RenameParams {
//       std::string id, account_id, name;
//       static auto db_params() {
//           return std::tuple{db::col("id", &RenameParams::id), ...};   // $1, $2, $3
//       }
//   };
//   struct DeviceName {
//       std::string id, name;
//       static auto db_columns() { return std::tuple{db::col("id", &DeviceName::id), ...}; }
//   };
//   inline const db::Query<RenameParams, DeviceName> kRename{"devices_rename", "UPDATE ..."};
//   std::optional<DeviceName> r = conn->maybe_one(kRename, {.id = id, .account_id = a, .name = n});
//
// C++ types and the PostgreSQL types they stand for (docs/ARCHITECTURE.md, "Typed seams"):
//   std::string            text, varchar, char, name, uuid (ids are canonical text, §13)
//   long long              int8, int4, int2          int   int4, int2
//   bool                   bool                      double  float8
//   json::Raw, db::Json<T> json, jsonb (Json<T>: a described value or vector, sent as JSON)
//   std::vector<std::string> text[], varchar[], uuid[]   (parameters only)
//   std::optional<T>       T's types, and NULL
//   db::Columns<T>         a batch of described structs, one binary-format array parameter per
//                          field (below); parameters only
// A NULL read into a non-optional field is a programming error (std::logic_error, a 500).
#pragma once

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "common/db/array.h"
#include "common/db/pool.h"
#include "common/json/described.h"

namespace pouch::db {

// The PostgreSQL type oids the mapping above names (pg_type.dat; stable across versions).
namespace oid {
inline constexpr Oid boolean = 16, name = 19, int8 = 20, int2 = 21, int4 = 23, text = 25,
                     json = 114, float8 = 701, unknown = 705, bpchar = 1042, varchar = 1043,
                     uuid = 2950, jsonb = 3802, text_array = 1009, varchar_array = 1015,
                     uuid_array = 2951, bool_array = 1000, int8_array = 1016;
}

// A parameter sent as JSON text: a described struct or a vector of them (a batch as ONE
// parameter, read in SQL with jsonb_to_recordset).
template <class T>
struct Json {
    T value;
};

// A batch of described structs (json/described.h) sent column by column: ONE binary-format array
// parameter (array.h) per JSON field of T, in the order declared, taking consecutive $n from
// its place, read in SQL with unnest($k::text[], $k+1::int8[], ...) AS o(<the field names>).
// Nothing is lexed on the server, where a jsonb array of 2 MB costs jsonb_in ~9 ms. Per field:
//   std::string, optional<string>    text[]   (a uuid as text: cast it, o.id::uuid)
//   long long, int, their optionals  int8[]
//   bool, optional<bool>             bool[]
//   std::vector<std::string>         text[] of array literals (text_array): o.ids::text[]
// db_statements_test holds each parameter's declared type to its field's.
template <class T>
struct Columns {
    using row_type = T;
    std::vector<T> rows;
};

template <class S, class T>
struct Col {
    const char* name;
    T S::*member;
};
template <class S, class T>
constexpr Col<S, T> col(const char* name, T S::*member) {
    return {name, member};
}

// A run of a row's columns read into one optional struct member (a joined row that may be
// absent): nullopt when its first column is NULL, else every column read into G.
//   db::group(&EventRow::revision, Revision::revision_columns())
template <class S, class G, class Cols>
struct Group {
    std::optional<G> S::*member;
    Cols cols;
};
template <class S, class G, class Cols>
Group<S, G, Cols> group(std::optional<G> S::*member, Cols cols) {
    return {member, std::move(cols)};
}

// A row struct's columns: its db_columns(), or, for a struct described as JSON
// (json/described.h) without them, its JSON fields, named as its columns are.
template <class R>
auto columns_of() {
    if constexpr (requires { R::db_columns(); }) return R::db_columns();
    else return R::json_fields();
}

// For statements without parameters, or without rows.
struct NoParams {
    static auto db_params() { return std::tuple{}; }
};
struct NoRow {
    static auto db_columns() { return std::tuple{}; }
};

// What a C++ field may stand for on the PostgreSQL side.
struct FieldShape {
    std::string name;
    std::vector<Oid> types;  // any of these
    std::string cxx;         // the C++ type, for messages
};

// A registered statement: its text and what its structs expect.
struct Shape {
    const char* name;
    const char* sql;
    std::vector<FieldShape> params;   // $1..$n
    std::vector<FieldShape> columns;  // the result's, in order; empty for a statement without rows
    bool returns_rows;
};

// Every Query constructed so far (each registers itself; statements live in headers, so the
// unit test that includes them all sees every one).
std::vector<const Shape*>& registry();

namespace detail {

template <class T>
struct is_columns : std::false_type {};
template <class T>
struct is_columns<Columns<T>> : std::true_type {};

template <class V>
struct unoptional {
    using type = V;
};
template <class V>
struct unoptional<std::optional<V>> {
    using type = V;
};

// The array type a field of a Columns<T> row travels as, and how one value goes into it.
template <class F>
struct column_of {
    using V = std::remove_cvref_t<F>;
    using E = typename unoptional<V>::type;
    static constexpr bool text = std::is_same_v<E, std::string> || std::is_same_v<E, std::vector<std::string>>;
    static constexpr bool int8 = std::is_same_v<E, long long> || std::is_same_v<E, int>;
    static constexpr bool boolean = std::is_same_v<E, bool>;
    static_assert(text || int8 || boolean, "no array column for this field type");
    static Oid array_oid() { return text ? oid::text_array : int8 ? oid::int8_array : oid::bool_array; }
    static uint32_t element_oid() {
        return text ? BinaryArray::kText : int8 ? BinaryArray::kInt8 : BinaryArray::kBool;
    }
    static size_t bytes(const V& v) {
        if constexpr (json::is_optional<V>::value) return v ? element_bytes(*v) : 4;
        else return element_bytes(v);
    }
    static size_t element_bytes(const E& e) {
        if constexpr (std::is_same_v<E, std::string>) return 4 + e.size();
        else if constexpr (std::is_same_v<E, std::vector<std::string>>) return 4 + 2 + 48 * e.size();
        else if constexpr (int8) return 12;
        else return 5;
    }
    static void add(BinaryArray& a, const V& v) {
        if constexpr (json::is_optional<V>::value) {
            if (!v) return a.add_null();
            add_element(a, *v);
        } else {
            add_element(a, v);
        }
    }
    static void add_element(BinaryArray& a, const E& e) {
        if constexpr (std::is_same_v<E, std::string>) a.add_text(e);
        else if constexpr (std::is_same_v<E, std::vector<std::string>>) a.add_text(text_array(e));
        else if constexpr (int8) a.add_int8(e);
        else a.add_bool(e);
    }
};

template <class T>
struct type_of {
    static std::vector<Oid> oids() {
        if constexpr (json::is_optional<T>::value) {
            return type_of<typename T::value_type>::oids();
        } else if constexpr (std::is_same_v<T, std::string>) {
            return {oid::text, oid::varchar, oid::bpchar, oid::name, oid::uuid, oid::unknown};
        } else if constexpr (std::is_same_v<T, long long>) {
            return {oid::int8, oid::int4, oid::int2};
        } else if constexpr (std::is_same_v<T, int>) {
            return {oid::int4, oid::int2};
        } else if constexpr (std::is_same_v<T, bool>) {
            return {oid::boolean};
        } else if constexpr (std::is_same_v<T, double>) {
            return {oid::float8};
        } else if constexpr (std::is_same_v<T, json::Raw>) {
            return {oid::json, oid::jsonb};
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
            return {oid::text_array, oid::varchar_array, oid::uuid_array};
        } else {
            return json_oids(static_cast<T*>(nullptr));
        }
    }
    template <class U>
    static std::vector<Oid> json_oids(Json<U>*) {
        return {oid::json, oid::jsonb};
    }
};

template <class T>
Param bind(const T& v);

// Appends the parameter(s) of one field: one, or for a Columns field one binary array per field
// of its rows (format_into gives their formats: 0 text, 1 binary).
template <class T>
void bind_into(std::vector<Param>& out, const T& v) {
    if constexpr (is_columns<T>::value) {
        using Row = typename T::row_type;
        std::apply(
            [&](const auto&... f) {
                auto one = [&](const auto& field) {
                    using C = column_of<decltype(std::declval<const Row&>().*(field.member))>;
                    size_t bytes = 0;
                    for (const Row& r : v.rows) bytes += C::bytes(r.*(field.member));
                    BinaryArray a(C::element_oid(), bytes);
                    for (const Row& r : v.rows) C::add(a, r.*(field.member));
                    out.push_back(a.take());
                };
                (one(f), ...);
            },
            Row::json_fields());
    } else {
        out.push_back(bind(v));
    }
}

template <class T>
void format_into(std::vector<int>& out) {
    if constexpr (is_columns<T>::value) {
        using Row = typename T::row_type;
        out.insert(out.end(), std::tuple_size_v<decltype(Row::json_fields())>, 1);
    } else {
        out.push_back(0);
    }
}

template <class T>
Param bind(const T& v) {
    if constexpr (json::is_optional<T>::value) {
        if (!v) return std::nullopt;
        return bind(*v);
    } else if constexpr (std::is_same_v<T, std::string>) {
        return v;
    } else if constexpr (std::is_same_v<T, long long> || std::is_same_v<T, int>) {
        return std::to_string(v);
    } else if constexpr (std::is_same_v<T, bool>) {
        return std::string(v ? "true" : "false");
    } else if constexpr (std::is_same_v<T, double>) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.17g", v);
        return std::string(buf);
    } else if constexpr (std::is_same_v<T, json::Raw>) {
        return v.text;
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
        return text_array(v);
    } else {
        return json::to_json(v.value);  // Json<U>
    }
}

[[noreturn]] void null_in(const char* statement, const char* column);
long long to_int64(const char* statement, const char* column, const char* text);
double to_double(const char* statement, const char* column, const char* text);

template <class T>
void read(const Result& r, int row, int col, const char* statement, const char* column, T& out) {
    PGresult* res = r.raw();
    bool null = PQgetisnull(res, row, col);
    if constexpr (json::is_optional<T>::value) {
        if (null) {
            out = std::nullopt;
        } else {
            typename T::value_type v{};
            read(r, row, col, statement, column, v);
            out = std::move(v);
        }
        return;
    } else {
        if (null) null_in(statement, column);
        const char* text = PQgetvalue(res, row, col);
        size_t len = static_cast<size_t>(PQgetlength(res, row, col));
        if constexpr (std::is_same_v<T, std::string>) {
            out.assign(text, len);
        } else if constexpr (std::is_same_v<T, long long> || std::is_same_v<T, int>) {
            out = static_cast<T>(to_int64(statement, column, text));
        } else if constexpr (std::is_same_v<T, bool>) {
            out = text[0] == 't';
        } else if constexpr (std::is_same_v<T, double>) {
            out = to_double(statement, column, text);
        } else if constexpr (std::is_same_v<T, json::Raw>) {
            out.text.assign(text, len);
        } else {
            static_assert(sizeof(T) == 0, "no column reading for this type");
        }
    }
}

}  // namespace detail

template <class P, class R = NoRow>
class Query {
public:
    Query(const char* name, const char* sql);
    Query(const Query&) = delete;
    Query& operator=(const Query&) = delete;

    Statement statement;
    const Shape& shape() const { return shape_; }

    std::vector<Param> params(const P& p) const {
        std::vector<Param> out;
        std::apply([&](const auto&... c) { (detail::bind_into(out, p.*(c.member)), ...); },
                   P::db_params());
        return out;
    }
    // Each parameter's format (0 text, 1 binary: the arrays of a Columns field).
    const std::vector<int>& formats() const { return formats_; }
    // Row `row` of a result of this statement, its columns checked by name.
    R row(const Result& r, int row) const;

private:
    Shape shape_;
    std::vector<int> formats_;
};

// ---- Conn's typed calls (declared in pool.h) --------------------------------------------------

template <class P, class R>
std::vector<R> Conn::rows(const Query<P, R>& q, const P& p) {
    Result r = exec(q.statement, q.params(p), q.formats());
    std::vector<R> out;
    out.reserve(static_cast<size_t>(r.rows()));
    for (int i = 0; i < r.rows(); ++i) out.push_back(q.row(r, i));
    return out;
}

template <class P, class R>
std::optional<R> Conn::maybe_one(const Query<P, R>& q, const P& p) {
    Result r = exec(q.statement, q.params(p), q.formats());
    if (r.rows() == 0) return std::nullopt;
    if (r.rows() > 1)
        throw std::logic_error(std::string("db: ") + q.statement.name + " returned several rows");
    return q.row(r, 0);
}

template <class P, class R>
R Conn::one(const Query<P, R>& q, const P& p) {
    std::optional<R> r = maybe_one(q, p);
    if (!r) throw std::logic_error(std::string("db: ") + q.statement.name + " returned no row");
    return std::move(*r);
}

template <class P, class R>
long long Conn::run(const Query<P, R>& q, const P& p) {
    Result r = exec(q.statement, q.params(p), q.formats());
    const char* n = PQcmdTuples(r.raw());
    return n && *n ? std::atoll(n) : 0;
}

// ---- Query ------------------------------------------------------------------------------------

namespace detail {

template <class S, class T>
void add_shape(std::vector<FieldShape>& out, const Col<S, T>& c) {
    using V = std::remove_cvref_t<T>;
    if constexpr (is_columns<V>::value) {
        using Row = typename V::row_type;
        std::apply(
            [&](const auto&... f) {
                auto one = [&](const auto& field) {
                    using F = std::remove_cvref_t<decltype(std::declval<const Row&>().*(field.member))>;
                    out.push_back(FieldShape{std::string(c.name) + "." + field.name,
                                             {column_of<F>::array_oid()},
                                             std::string("column of ") + typeid(F).name()});
                };
                (one(f), ...);
            },
            Row::json_fields());
    } else {
        out.push_back(FieldShape{c.name, type_of<V>::oids(), typeid(V).name()});
    }
}
template <class S, class T>
void add_shape(std::vector<FieldShape>& out, const json::Field<S, T>& c) {
    using V = std::remove_cvref_t<T>;
    out.push_back(FieldShape{c.name, type_of<V>::oids(), typeid(V).name()});
}
template <class S, class G, class Cols>
void add_shape(std::vector<FieldShape>& out, const Group<S, G, Cols>& g) {
    std::apply([&](const auto&... c) { (add_shape(out, c), ...); }, g.cols);
}

template <class S, class Tuple>
std::vector<FieldShape> field_shapes(const Tuple& fields) {
    std::vector<FieldShape> out;
    std::apply([&](const auto&... c) { (add_shape(out, c), ...); }, fields);
    return out;
}

// Reads the column(s) of one field descriptor at `col` on, checking their names.
void expect_column(const Result& r, int col, const char* statement, const char* name);

template <class Out, class F>
void read_field(const Result& r, int row, int& col, const char* statement, Out& out, const F& c) {
    if constexpr (requires { c.cols; }) {
        int first = col;
        bool absent = PQgetisnull(r.raw(), row, first);
        using G = typename std::remove_cvref_t<decltype(out.*(c.member))>::value_type;
        if (absent) {
            out.*(c.member) = std::nullopt;
            col += static_cast<int>(std::tuple_size_v<decltype(c.cols)>);
            return;
        }
        G g{};
        std::apply([&](const auto&... inner) { (read_field(r, row, col, statement, g, inner), ...); },
                   c.cols);
        out.*(c.member) = std::move(g);
    } else {
        expect_column(r, col, statement, c.name);
        read(r, row, col, statement, c.name, out.*(c.member));
        ++col;
    }
}

void register_shape(const Shape* shape);

}  // namespace detail

template <class P, class R>
Query<P, R>::Query(const char* name, const char* sql)
    : statement{name, sql},
      shape_{name, sql, detail::field_shapes<P>(P::db_params()),
             detail::field_shapes<R>(columns_of<R>()), !std::is_same_v<R, NoRow>} {
    std::apply([&](const auto&... c) {
        (detail::format_into<std::remove_cvref_t<decltype(std::declval<const P&>().*(c.member))>>(formats_), ...);
    }, P::db_params());
    detail::register_shape(&shape_);
}

template <class P, class R>
R Query<P, R>::row(const Result& r, int row) const {
    R out{};
    int col = 0;
    std::apply([&](const auto&... c) { (detail::read_field(r, row, col, statement.name, out, c), ...); },
               columns_of<R>());
    return out;
}

}  // namespace pouch::db
