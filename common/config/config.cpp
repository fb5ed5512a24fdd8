// config.cpp -- reads POUCH_* variables; numbers are range-checked so a typo fails at start.
#include "common/config/config.h"

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace pouch {

namespace {

void read_string(const char* name, std::string& out) {
    const char* v = std::getenv(name);
    if (v && *v) out = v;
}

void read_int(const char* name, int& out, int lo, int hi) {
    const char* v = std::getenv(name);
    if (!v || !*v) return;
    char* end = nullptr;
    long n = std::strtol(v, &end, 10);
    if (*end != '\0' || n < lo || n > hi)
        throw std::runtime_error(std::string(name) + " must be an integer in [" +
                                 std::to_string(lo) + ", " + std::to_string(hi) + "]");
    out = static_cast<int>(n);
}

std::string strip_trailing_slash(std::string s) {
    while (!s.empty() && s.back() == '/') s.pop_back();
    return s;
}

}  // namespace

Config Config::from_env() {
    Config c;
    read_string("POUCH_DATABASE_URL", c.database_url);
    read_string("POUCH_REDIS_URL", c.redis_url);
    read_string("POUCH_PUBLIC_URL", c.public_url);
    read_string("POUCH_WEB_URL", c.web_url);
    read_string("POUCH_BLOB_DIR", c.blob_dir);
    read_string("POUCH_SOCKET", c.socket_path);
    read_string("POUCH_LOG_LEVEL", c.log_level);
    read_int("POUCH_THREADS", c.threads, 1, 4096);
    read_int("POUCH_DB_POOL", c.db_pool, 1, 1024);
    read_int("POUCH_LOGIN_TTL", c.login_ttl_seconds, 1, 86400);
    read_int("POUCH_ARGON2_PARALLEL", c.argon2_parallel, 1, 64);
    read_int("POUCH_MAX_WAITERS_PER_ACCOUNT", c.max_waiters_per_account, 1, 1000000);
    c.public_url = strip_trailing_slash(c.public_url);
    c.web_url = strip_trailing_slash(c.web_url);
    if (c.log_level != "debug" && c.log_level != "info" && c.log_level != "warn" &&
        c.log_level != "error")
        throw std::runtime_error("POUCH_LOG_LEVEL must be debug, info, warn or error");
    return c;
}

}  // namespace pouch
