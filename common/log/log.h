// log.h -- JSON-lines logging on stderr (decisions §10): ts, level, group, then fields.
// Callers pass request ids and context; never tokens, passwords or envelopes.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace pouch::log {

enum class Level { debug = 0, info = 1, warn = 2, error = 3 };

struct Field {
    std::string_view key;
    std::string value;
    bool number = false;

    Field(std::string_view k, std::string v) : key(k), value(std::move(v)) {}
    Field(std::string_view k, const char* v) : key(k), value(v ? v : "") {}
    Field(std::string_view k, long long v) : key(k), value(std::to_string(v)), number(true) {}
    Field(std::string_view k, int v) : key(k), value(std::to_string(v)), number(true) {}
    Field(std::string_view k, double v);
};

void init(std::string group, const std::string& level);  // level: debug|info|warn|error
bool enabled(Level level);
void write(Level level, std::string_view msg, std::initializer_list<Field> fields = {});

inline void info(std::string_view msg, std::initializer_list<Field> f = {}) { write(Level::info, msg, f); }
inline void warn(std::string_view msg, std::initializer_list<Field> f = {}) { write(Level::warn, msg, f); }
inline void error(std::string_view msg, std::initializer_list<Field> f = {}) { write(Level::error, msg, f); }

}  // namespace pouch::log
