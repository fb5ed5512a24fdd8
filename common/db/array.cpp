// array.cpp -- the two array encodings of array.h. The literal: elements in double quotes,
// backslash before a double quote or a backslash, NULL unquoted. The binary format (array_recv,
// src/backend/utils/adt/arrayfuncs.c), every integer in network order:
//   int32 ndim (0 for an empty array, else 1), int32 flags (1 if any element is NULL),
//   uint32 element type oid, then per dimension int32 length and int32 lower bound (1),
//   then per element int32 byte length (-1 for NULL) and the element's binary form
//   (text: its bytes; int8: 8 bytes; bool: 1 byte).
#include "common/db/array.h"

#include <stdexcept>

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

void put32(std::string& out, uint32_t v) {
    char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                 static_cast<char>(v >> 8), static_cast<char>(v)};
    out.append(b, 4);
}

void set32(std::string& out, size_t at, uint32_t v) {
    out[at] = static_cast<char>(v >> 24);
    out[at + 1] = static_cast<char>(v >> 16);
    out[at + 2] = static_cast<char>(v >> 8);
    out[at + 3] = static_cast<char>(v);
}

constexpr size_t kHeader = 20;  // ndim, flags, oid, length, lower bound
constexpr uint32_t kNull = 0xffffffffu;  // -1 as the length word of a NULL element
constexpr size_t kMaxElement = 0x3fffffff;  // PostgreSQL's 1 GB limit of a value

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

// ---- BinaryArray ---------------------------------------------------------------------------

BinaryArray::BinaryArray(uint32_t element_oid, size_t reserve) {
    out_.reserve(kHeader + reserve);
    put32(out_, 1);  // ndim, flags and length are set by take()
    put32(out_, 0);
    put32(out_, element_oid);
    put32(out_, 0);
    put32(out_, 1);  // lower bound
}

void BinaryArray::add_null() {
    put32(out_, kNull);
    nulls_ = true;
    ++count_;
}

void BinaryArray::add_text(std::string_view s) {
    if (s.size() > kMaxElement) throw std::length_error("db: array element over 1 GB");
    put32(out_, static_cast<uint32_t>(s.size()));
    out_.append(s);
    ++count_;
}

void BinaryArray::add_int8(long long v) {
    put32(out_, 8);
    auto u = static_cast<unsigned long long>(v);
    put32(out_, static_cast<uint32_t>(u >> 32));
    put32(out_, static_cast<uint32_t>(u));
    ++count_;
}

void BinaryArray::add_bool(bool v) {
    put32(out_, 1);
    out_ += v ? '\1' : '\0';
    ++count_;
}

std::string BinaryArray::take() {
    if (count_ > 0x7fffffffu) throw std::length_error("db: array of more than 2^31 elements");
    if (count_ == 0) {
        // array_recv reads an empty array as ndim 0 with no dimensions.
        set32(out_, 0, 0);
        out_.resize(12);
    } else {
        set32(out_, 4, nulls_ ? 1 : 0);
        set32(out_, 12, count_);
    }
    count_ = 0;
    nulls_ = false;
    return std::move(out_);
}

std::string binary_text_array(const std::vector<std::optional<std::string>>& items) {
    size_t bytes = 0;
    for (const auto& i : items) bytes += 4 + (i ? i->size() : 0);
    BinaryArray a(BinaryArray::kText, bytes);
    for (const auto& i : items) {
        if (i) a.add_text(*i);
        else a.add_null();
    }
    return a.take();
}

std::string binary_int8_array(const std::vector<std::optional<long long>>& items) {
    BinaryArray a(BinaryArray::kInt8, 12 * items.size());
    for (const auto& i : items) {
        if (i) a.add_int8(*i);
        else a.add_null();
    }
    return a.take();
}

std::string binary_bool_array(const std::vector<std::optional<bool>>& items) {
    BinaryArray a(BinaryArray::kBool, 5 * items.size());
    for (const auto& i : items) {
        if (i) a.add_bool(*i);
        else a.add_null();
    }
    return a.take();
}

}  // namespace pouch::db
