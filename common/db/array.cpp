// array.cpp -- the array literal syntax of PostgreSQL's array_in: elements in double quotes,
// backslash before a double quote or a backslash, NULL unquoted.
#include "common/db/array.h"

namespace pouch::db {

namespace {

void append_quoted(std::string& out, const std::string& s) {
    out += '"';
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    out += '"';
}

}  // namespace

std::string text_array(const std::vector<std::string>& items) {
    std::string out = "{";
    for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += ',';
        append_quoted(out, items[i]);
    }
    return out + "}";
}

std::string text_array(const std::vector<std::optional<std::string>>& items) {
    std::string out = "{";
    for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += ',';
        if (items[i]) append_quoted(out, *items[i]);
        else out += "NULL";
    }
    return out + "}";
}

}  // namespace pouch::db
