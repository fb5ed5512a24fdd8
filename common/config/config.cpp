// config.cpp -- reads POUCH_* variables; numbers are range-checked so a typo fails at start.
#include "common/config/config.h"

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace pouch::config {

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
        throw BadConfig(std::string(name) + " must be an integer in [" + std::to_string(lo) + ", " +
                        std::to_string(hi) + "]");
    out = static_cast<int>(n);
}

// POUCH_LISTEN: [IPv4 address or host name]:port. Its allow-list (FCGI_WEB_SERVER_ADDRS) is
// checked by the server for every TCP listen socket, systemd's included.
void read_listen(std::string& out) {
    const char* v = std::getenv("POUCH_LISTEN");
    if (!v || !*v) return;
    std::string s = v;
    size_t colon = s.rfind(':');
    const std::string port = colon == std::string::npos ? "" : s.substr(colon + 1);
    char* end = nullptr;
    long n = port.empty() ? 0 : std::strtol(port.c_str(), &end, 10);
    if (colon == std::string::npos || s.find(':') != colon || port.empty() || *end != '\0' ||
        n < 1 || n > 65535)
        throw BadConfig("POUCH_LISTEN must be host:port or :port (IPv4), port 1..65535");
    out = s;
}

// POUCH_PUBLIC_URL / POUCH_WEB_URL: the origin clients use, http:// or https:// with a host,
// an optional port and path, nothing else. DPoP proofs are checked against it (htu) and the
// CLI's approval link is built on it, so a value without its scheme (or with a query, a
// fragment, user info or a space) would refuse every proof: it fails at start instead.
void check_origin(const char* name, const std::string& url) {
    size_t rest = url.rfind("https://", 0) == 0 ? 8 : url.rfind("http://", 0) == 0 ? 7 : 0;
    bool ok = rest > 0 && url.size() > rest && url[rest] != '/';
    for (unsigned char c : url)
        if (c <= 0x20 || c >= 0x7f || c == '?' || c == '#' || c == '@' || c == '\\') ok = false;
    if (!ok)
        throw BadConfig(std::string(name) +
                        " must be http:// or https:// followed by the host, an optional port and "
                        "path (the origin clients use), e.g. https://sync.example.com");
}

std::string strip_trailing_slash(std::string s) {
    while (!s.empty() && s.back() == '/') s.pop_back();
    return s;
}

// POUCH_BLOB_STORE and the POUCH_S3_* settings it needs (docs/SCALING.md).
void read_blob_store(Config& c) {
    const char* v = std::getenv("POUCH_BLOB_STORE");
    std::string store = v ? v : "";
    if (store.empty()) return;
    if (store.rfind("s3://", 0) != 0) {
        if (store[0] != '/')
            throw BadConfig("POUCH_BLOB_STORE must be s3://BUCKET or an absolute directory path");
        c.blob_dir = store;
        return;
    }
    c.s3_bucket = store.substr(5);
    bool ok = c.s3_bucket.size() >= 3 && c.s3_bucket.size() <= 63;
    for (char ch : c.s3_bucket)
        ok = ok && ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '.');
    if (!ok)
        throw BadConfig(
            "POUCH_BLOB_STORE: s3://BUCKET needs a bucket name of 3..63 characters "
            "a-z 0-9 . -");
    read_string("POUCH_S3_ENDPOINT", c.s3_endpoint);
    read_string("POUCH_S3_REGION", c.s3_region);
    read_string("POUCH_S3_ACCESS_KEY", c.s3_access_key);
    read_string("POUCH_S3_SECRET_KEY", c.s3_secret_key);
    while (!c.s3_endpoint.empty() && c.s3_endpoint.back() == '/') c.s3_endpoint.pop_back();
    if (c.s3_endpoint.rfind("http://", 0) != 0 && c.s3_endpoint.rfind("https://", 0) != 0)
        throw BadConfig("POUCH_S3_ENDPOINT must be http://host[:port] or https://host[:port]");
    if (c.s3_endpoint.find('/', c.s3_endpoint.find("://") + 3) != std::string::npos)
        throw BadConfig("POUCH_S3_ENDPOINT must have no path (path-style addressing adds it)");
    if (c.s3_access_key.empty() || c.s3_secret_key.empty())
        throw BadConfig(
            "POUCH_BLOB_STORE=s3://… needs POUCH_S3_ACCESS_KEY and POUCH_S3_SECRET_KEY");
}

}  // namespace

Config Config::from_env() {
    Config c;
    read_string("POUCH_DATABASE_URL", c.database_url);
    read_string("POUCH_REDIS_URL", c.redis_url);
    read_string("POUCH_PUBLIC_URL", c.public_url);
    read_string("POUCH_WEB_URL", c.web_url);
    read_string("POUCH_BLOB_DIR", c.blob_dir);
    read_blob_store(c);
    read_string("POUCH_SOCKET", c.socket_path);
    read_listen(c.listen);
    read_string("POUCH_LOG_LEVEL", c.log_level);
    read_int("POUCH_THREADS", c.threads, 1, 4096);
    read_int("POUCH_LISTENERS", c.listeners, 0, 4096);
    read_int("POUCH_DB_POOL", c.db_pool, 1, 1024);
    read_int("POUCH_LOGIN_TTL", c.login_ttl_seconds, 1, 86400);
    read_int("POUCH_ARGON2_PARALLEL", c.argon2_parallel, 1, 64);
    read_int("POUCH_MAX_WAITERS_PER_ACCOUNT", c.max_waiters_per_account, 1, 1000000);
    read_int("POUCH_UPLOADS_PER_ACCOUNT", c.uploads_per_account, 1, 4096);
    read_int("POUCH_UPLOADS_IN_PROGRESS", c.uploads_in_progress, 1, 4096);
    read_int("POUCH_UPLOAD_SECONDS", c.upload_seconds, 1, 86400);
    c.public_url = strip_trailing_slash(c.public_url);
    c.web_url = strip_trailing_slash(c.web_url);
    check_origin("POUCH_PUBLIC_URL", c.public_url);
    check_origin("POUCH_WEB_URL", c.web_url);
    if (c.log_level != "debug" && c.log_level != "info" && c.log_level != "warn" &&
        c.log_level != "error")
        throw BadConfig("POUCH_LOG_LEVEL must be debug, info, warn or error");
    c.check();
    return c;
}

void Config::check() const {
    if (!listen.empty() && !socket_path.empty())
        throw BadConfig("set POUCH_LISTEN or POUCH_SOCKET (or --socket), not both");
}

}  // namespace pouch::config
