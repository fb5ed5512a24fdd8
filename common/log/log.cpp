// log.cpp -- JSON-lines logger: one line per call, written with a single write(2) so lines
// from worker threads never interleave.
#include "common/log/log.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "common/json/out.h"

namespace pouch::log {

namespace {

std::string g_group = "pouch";
std::atomic<int> g_min{static_cast<int>(Level::info)};

const char* level_name(Level l) {
    switch (l) {
        case Level::debug: return "debug";
        case Level::info: return "info";
        case Level::warn: return "warn";
        case Level::error: return "error";
    }
    return "info";
}

std::string timestamp() {
    using namespace std::chrono;
    auto now = system_clock::now();
    auto secs = system_clock::to_time_t(now);
    auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03lldZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<long long>(ms));
    return buf;
}

}  // namespace

Field::Field(std::string_view k, double v) : key(k), number(true) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", std::isfinite(v) ? v : 0.0);
    value = buf;
}

void init(std::string group, const std::string& level) {
    g_group = std::move(group);
    Level l = Level::info;
    if (level == "debug") l = Level::debug;
    else if (level == "warn") l = Level::warn;
    else if (level == "error") l = Level::error;
    g_min = static_cast<int>(l);
}

bool enabled(Level level) { return static_cast<int>(level) >= g_min.load(); }

void write(Level level, std::string_view msg, std::initializer_list<Field> fields) {
    if (!enabled(level)) return;
    json::Out o;
    o.kv("ts", timestamp()).kv("level", level_name(level)).kv("group", g_group);
    o.kv("msg", msg);
    for (const auto& f : fields) {
        o.key(f.key);
        if (f.number) o.raw(f.value);
        else o.str(f.value);
    }
    std::string line = o.done();
    line.push_back('\n');
    // stderr is unbuffered; one write keeps the line whole. A short write to a pipe of
    // this size does not happen (PIPE_BUF is not needed: journald reads whole datagrams).
    ssize_t n = ::write(STDERR_FILENO, line.data(), line.size());
    (void)n;
}

}  // namespace pouch::log
