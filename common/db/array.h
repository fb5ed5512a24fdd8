// array.h -- PostgreSQL arrays for statement parameters, so a whole column of a multi-row write
// travels as one parameter (unnest($1::text[])). Two encodings: the text literal of array_in
// ("{a,"b c",NULL}": every element quoted and escaped, so any string round-trips), and the
// binary format of array_recv, which the server reads by length with nothing to lex (a 2 MB
// column of envelopes costs it a copy where array_in or jsonb_in go a character at a time).
// nullopt is SQL NULL in both.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pouch::db {

std::string text_array(const std::vector<std::string>& items);
std::string text_array(const std::vector<std::optional<std::string>>& items);

// A one-dimensional array in array_recv's binary format, built element by element; send it with
// paramFormats = 1 as a parameter declared of the matching array type (array_recv rejects
// another element type): text[] (element oid 25), int8[] (20), bool[] (16). Text elements go
// as their bytes; the server still checks they are valid in its encoding, as for text format.
class BinaryArray {
public:
    static constexpr uint32_t kText = 25, kInt8 = 20, kBool = 16;
    // `reserve`: the bytes the elements will take, if known, to allocate once.
    explicit BinaryArray(uint32_t element_oid, size_t reserve = 0);
    void add_null();
    void add_text(std::string_view s);
    void add_int8(long long v);
    void add_bool(bool v);
    // The finished array (the builder is left empty).
    std::string take();

private:
    std::string out_;
    uint32_t count_ = 0;
    bool nulls_ = false;
};

std::string binary_text_array(const std::vector<std::optional<std::string>>& items);
std::string binary_int8_array(const std::vector<std::optional<long long>>& items);
std::string binary_bool_array(const std::vector<std::optional<bool>>& items);

}  // namespace pouch::db
