// client.cpp -- the hiredis-backed Redis client (client.h). Relies on hiredis 0.14 facts
// (decisions §11): reads are bounded only by redisSetTimeout, a context is not thread-safe
// (one mutex), and a context that saw an I/O error stays broken, so it is freed; every new
// context sends AUTH (Redis 6+ ACL user, or the default user's password) before anything else.
#include "common/redis/client.h"

#include <hiredis/hiredis.h>
#include <sys/time.h>

#include <cstdlib>
#include <functional>
#include <vector>

#include "common/log/log.h"

namespace pouch::redis {

namespace {

using Reply = std::unique_ptr<redisReply, void (*)(void*)>;

timeval to_timeval(std::chrono::milliseconds ms) {
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
    return tv;
}

// %XX escapes of a URL's user or password; nullopt on a malformed escape or a raw '@' or
// '/' (which the URL syntax would have split on).
std::optional<std::string> percent_decode(const std::string& s) {
    auto hex = [](char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '@' || s[i] == '/') return std::nullopt;
        if (s[i] != '%') {
            out += s[i];
            continue;
        }
        if (i + 2 >= s.size()) return std::nullopt;
        int h = hex(s[i + 1]), l = hex(s[i + 2]);
        if (h < 0 || l < 0) return std::nullopt;
        out += static_cast<char>(h * 16 + l);
        i += 2;
    }
    return out;
}

bool parse_int(const std::string& s, int lo, int hi, int* out) {
    if (s.empty() || s.size() > 6) return false;
    for (char ch : s)
        if (ch < '0' || ch > '9') return false;
    int v = std::atoi(s.c_str());
    if (v < lo || v > hi) return false;
    *out = v;
    return true;
}

}  // namespace

std::optional<Client::Address> Client::parse_url(const std::string& url) {
    const std::string scheme = "redis://";
    if (url.compare(0, scheme.size(), scheme) != 0) return std::nullopt;
    std::string rest = url.substr(scheme.size());
    Address a;
    std::string hostport = rest;
    if (auto slash = rest.find('/'); slash != std::string::npos) {
        hostport = rest.substr(0, slash);
        std::string db = rest.substr(slash + 1);
        if (!db.empty() && !parse_int(db, 0, 65535, &a.db)) return std::nullopt;
    }
    if (auto at = hostport.rfind('@'); at != std::string::npos) {
        std::string userinfo = hostport.substr(0, at);
        hostport = hostport.substr(at + 1);
        auto colon = userinfo.find(':');
        if (colon == std::string::npos) return std::nullopt;  // a user without a password
        auto user = percent_decode(userinfo.substr(0, colon));
        auto password = percent_decode(userinfo.substr(colon + 1));
        if (!user || !password || password->empty()) return std::nullopt;
        a.username = *user;
        a.password = *password;
    }
    std::string port;
    if (!hostport.empty() && hostport[0] == '[') {  // [::1]:6379
        auto close = hostport.find(']');
        if (close == std::string::npos) return std::nullopt;
        a.host = hostport.substr(1, close - 1);
        std::string after = hostport.substr(close + 1);
        if (!after.empty()) {
            if (after[0] != ':') return std::nullopt;
            port = after.substr(1);
            if (port.empty()) return std::nullopt;
        }
    } else if (auto colon = hostport.rfind(':'); colon != std::string::npos) {
        a.host = hostport.substr(0, colon);
        port = hostport.substr(colon + 1);
        if (port.empty()) return std::nullopt;
    } else {
        a.host = hostport;
    }
    if (a.host.empty()) return std::nullopt;
    if (!port.empty() && !parse_int(port, 1, 65535, &a.port)) return std::nullopt;
    return a;
}

std::string Client::redacted(const std::string& url) {
    auto at = url.rfind('@');
    auto scheme = url.find("://");
    if (at == std::string::npos || scheme == std::string::npos || at < scheme) return url;
    auto colon = url.find(':', scheme + 3);
    if (colon == std::string::npos || colon > at) return url;
    return url.substr(0, colon + 1) + "***" + url.substr(at);
}

bool authenticate(redisContext* c, const Client::Address& a, std::string& error) {
    error.clear();
    if (a.password.empty()) return true;
    std::vector<const char*> argv{"AUTH"};
    std::vector<size_t> lens{4};
    if (!a.username.empty()) {
        argv.push_back(a.username.data());
        lens.push_back(a.username.size());
    }
    argv.push_back(a.password.data());
    lens.push_back(a.password.size());
    Reply r(static_cast<redisReply*>(
                redisCommandArgv(c, static_cast<int>(argv.size()), argv.data(), lens.data())),
            freeReplyObject);
    if (!r) return false;  // an I/O error: Redis is unreachable, not refusing
    if (r->type == REDIS_REPLY_ERROR) {
        error = std::string(r->str, r->len);
        return false;
    }
    return true;
}

Client::Client(std::string url, std::chrono::milliseconds timeout)
    : url_(std::move(url)), timeout_(timeout) {}

Client::~Client() {
    if (ctx_) redisFree(ctx_);
}

bool Client::connect_locked() {
    if (ctx_) return true;
    auto addr = parse_url(url_);
    if (!addr) return false;
    redisContext* c = redisConnectWithTimeout(addr->host.c_str(), addr->port, to_timeval(timeout_));
    if (!c) return false;
    // The connect timeout does not bound reads in hiredis 0.14; without this a stalled
    // server would hang the calling request thread.
    if (c->err || redisSetTimeout(c, to_timeval(timeout_)) != REDIS_OK) {
        redisFree(c);
        return false;
    }
    // Every new connection authenticates again: after a Redis restart or a dropped context.
    std::string refused;
    if (!authenticate(c, *addr, refused)) {
        if (!auth_warned_ && !refused.empty())
            log::warn("redis refused AUTH; running on the database fallbacks",
                      {{"error", refused}, {"redis", redacted(url_)}});
        auth_warned_ = auth_warned_ || !refused.empty();
        redisFree(c);
        return false;
    }
    auth_warned_ = false;
    if (addr->db != 0) {
        std::string db = std::to_string(addr->db);
        const char* argv[] = {"SELECT", db.c_str()};
        size_t lens[] = {6, db.size()};
        Reply r(static_cast<redisReply*>(redisCommandArgv(c, 2, argv, lens)), freeReplyObject);
        if (!r || r->type == REDIS_REPLY_ERROR) {
            redisFree(c);
            return false;
        }
    }
    ctx_ = c;
    return true;
}

namespace {

// Runs one command with the lock held. A context that had been idle may have been closed by
// the server meanwhile, so an I/O error on an old context earns one retry on a fresh one;
// an error on a fresh context means Redis is down and is reported as such (null reply).
Reply run(redisContext*& ctx, const std::function<bool()>& connect,
          const std::vector<std::string>& args) {
    std::vector<const char*> argv;
    std::vector<size_t> lens;
    for (const auto& a : args) {
        argv.push_back(a.data());
        lens.push_back(a.size());
    }
    for (int attempt = 0; attempt < 2; ++attempt) {
        bool fresh = ctx == nullptr;
        if (!connect()) break;
        Reply r(static_cast<redisReply*>(
                    redisCommandArgv(ctx, static_cast<int>(argv.size()), argv.data(), lens.data())),
                freeReplyObject);
        if (r && ctx->err == 0) return r;
        redisFree(ctx);
        ctx = nullptr;
        if (fresh) break;
    }
    return Reply(nullptr, freeReplyObject);
}

}  // namespace

std::optional<bool> Client::set_nx_ex(const std::string& key, const std::string& value,
                                      int seconds) {
    std::lock_guard<std::mutex> lk(mu_);
    Reply r = run(ctx_, [this] { return connect_locked(); },
                  {"SET", key, value, "NX", "EX", std::to_string(seconds)});
    if (!r) return std::nullopt;
    if (r->type == REDIS_REPLY_NIL) return false;
    if (r->type == REDIS_REPLY_STATUS) return true;
    // An error reply (LOADING, READONLY, OOM) gives no answer; the caller falls back.
    return std::nullopt;
}

std::optional<long long> Client::publish(const std::string& channel, const std::string& message) {
    std::lock_guard<std::mutex> lk(mu_);
    Reply r = run(ctx_, [this] { return connect_locked(); }, {"PUBLISH", channel, message});
    if (!r || r->type != REDIS_REPLY_INTEGER) return std::nullopt;
    return r->integer;
}

bool Client::ping() {
    std::lock_guard<std::mutex> lk(mu_);
    Reply r = run(ctx_, [this] { return connect_locked(); }, {"PING"});
    return r && r->type == REDIS_REPLY_STATUS && std::string(r->str, r->len) == "PONG";
}

}  // namespace pouch::redis
