// query.h -- declarative query-string validation (decisions §3): each route lists the
// parameters it takes; an unknown or malformed one, or an integer out of range, is 400
// validation_failed with field "?name".
//   auto q = validate_query(req, {query_int("limit", 1, 500, 100), query_int("after", 0, kMax,
//   0)}); long long limit = q.integer("limit");
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/http/request.h"

namespace pouch::http {

struct QueryParam {
    enum class Kind { integer, boolean, uuid, text };
    std::string name;
    Kind kind;
    long long min = 0, max = 0;         // integer bounds
    std::optional<long long> fallback;  // integer/boolean default
    size_t max_chars = 256;             // text bound
    bool required = false;              // absent: 400 "required", once every given parameter passed
};

QueryParam query_int(std::string name, long long min, long long max,
                     std::optional<long long> fallback = std::nullopt);
QueryParam query_bool(std::string name, bool fallback);  // true|false|1|0
QueryParam query_uuid(std::string name);                 // its value: the canonical lower-case form
QueryParam query_text(std::string name, size_t max_chars);
QueryParam required(QueryParam param);

class QueryValues {
  public:
    bool has(const std::string& name) const { return ints_.count(name) || texts_.count(name); }
    long long integer(const std::string& name) const { return ints_.at(name); }
    bool boolean(const std::string& name) const { return ints_.at(name) != 0; }
    std::optional<std::string> text(const std::string& name) const;

  private:
    friend QueryValues validate_query(const Request&, const std::vector<QueryParam>&);
    std::map<std::string, long long> ints_;
    std::map<std::string, std::string> texts_;
};

QueryValues validate_query(const Request& req, const std::vector<QueryParam>& params);

}  // namespace pouch::http
