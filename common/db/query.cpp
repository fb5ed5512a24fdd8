// query.cpp -- the registry of typed statements and the column conversions of query.h that
// need not be templates.
#include "common/db/query.h"

#include <cerrno>
#include <cstdlib>
#include <string_view>

namespace pouch::db {

std::vector<const Shape*>& registry() {
    static std::vector<const Shape*> all;
    return all;
}

namespace detail {

void register_shape(const Shape* shape) {
    registry().push_back(shape);
}

void expect_column(const Result& r, int col, const char* statement, const char* name) {
    const char* got = PQfname(r.raw(), col);
    if (!got || std::string_view(got) != name)
        throw std::logic_error(std::string("db: ") + statement + " column " + std::to_string(col) +
                               " is " + (got ? got : "absent") + ", not " + name);
}

void null_in(const char* statement, const char* column) {
    throw std::logic_error(std::string("db: ") + statement + " returned NULL in column " + column +
                           ", which its row struct does not allow");
}

long long to_int64(const char* statement, const char* column, const char* text) {
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0')
        throw std::logic_error(std::string("db: ") + statement + " column " + column +
                               " is not an integer");
    return v;
}

double to_double(const char* statement, const char* column, const char* text) {
    char* end = nullptr;
    double v = std::strtod(text, &end);
    if (end == text || *end != '\0')
        throw std::logic_error(std::string("db: ") + statement + " column " + column +
                               " is not a number");
    return v;
}

}  // namespace detail
}  // namespace pouch::db
