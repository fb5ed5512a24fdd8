// array.h -- PostgreSQL array literals for statement parameters ("{a,"b c",NULL}"), so a whole
// column of a multi-row write travels as one parameter (unnest($1::text[])). Every element is
// quoted and escaped, so any string round-trips; nullopt is SQL NULL.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pouch::db {

std::string text_array(const std::vector<std::string>& items);
std::string text_array(const std::vector<std::optional<std::string>>& items);

}  // namespace pouch::db
