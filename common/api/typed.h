// typed.h -- handlers that take a typed request and return a typed answer: the route's schema
// is the request struct's (json/described.h), the pipeline decodes the validated body into it,
// and the answer struct is written as the response's data. A handler holds no JSON.
//
//   struct RenameRequest { std::string name; static auto json_fields() {...} };
//   struct DeviceName { std::string id, name; static auto json_fields() {...} };
//   DeviceName rename(api::Call& call, const RenameRequest& body);
//   inline const api::Route kRename{"PATCH", "/v1/devices/{id:uuid}", api::Who::any,
//                                   .schema = api::schema<RenameRequest>()};
//   {kRename, api::typed(rename)}                       // the group's table of routes
//
// An answer may be api::Created<T> (201), api::NoContent (204), or an http::Response where a
// handler must shape it itself (a page, a blob stream).
#pragma once

#include <type_traits>

#include "common/api/route.h"
#include "common/json/described.h"

namespace pouch::api {

// The strict schema of a request struct, for Route::schema.
template <json::Described Req>
const json::schema::Node* schema() {
    return &json::schema_of<Req>();
}

template <class T>
struct Created {
    T value;
};
struct NoContent {};

namespace detail {

template <class Ans>
http::Response answer(Ans&& a) {
    using A = std::remove_cvref_t<Ans>;
    if constexpr (std::is_same_v<A, http::Response>) {
        return std::forward<Ans>(a);
    } else if constexpr (std::is_same_v<A, NoContent>) {
        http::Response r;
        r.status = 204;
        return r;
    } else if constexpr (requires { a.value; } && !json::Described<A>) {
        return created(json::to_json(a.value));
    } else {
        return ok(json::to_json(a));
    }
}

}  // namespace detail

// A typed handler as the pipeline's: Ans fn(Call&, const Req&), or Ans fn(Call&) for a route
// whose handler decodes no request struct. The row of the group's table checks that the
// route declares Req's schema (route.h, Entry).
template <class Ans, json::Described Req>
TypedHandler typed(Ans (*fn)(Call&, const Req&)) {
    return {[fn](Call& call) -> http::Response {
                return detail::answer(fn(call, json::decode<Req>(call.body)));
            },
            &json::schema_of<Req>()};
}

template <class Ans>
TypedHandler typed(Ans (*fn)(Call&)) {
    return {[fn](Call& call) -> http::Response { return detail::answer(fn(call)); }, nullptr};
}

}  // namespace pouch::api
