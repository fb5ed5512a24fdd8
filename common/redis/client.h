// client.h -- a small thread-safe Redis client over hiredis for the replay cache and
// wake-ups: every call has a read timeout (redisSetTimeout), a broken context is dropped
// and reconnected on the next call (AUTH and SELECT again), and "unreachable" is reported,
// never thrown. The URL may carry a Redis 6+ ACL user and password, or a password alone.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

struct redisContext;

namespace pouch::redis {

class Client {
public:
    // url: redis://[[user]:password@]host[:port][/db] (parse_url)
    Client(std::string url, std::chrono::milliseconds timeout = std::chrono::milliseconds(500));
    ~Client();
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;

    // SET key value NX EX seconds: true if set, false if the key existed, nullopt if Redis
    // is unreachable.
    std::optional<bool> set_nx_ex(const std::string& key, const std::string& value, int seconds);
    // PUBLISH: number of receivers, nullopt if unreachable.
    std::optional<long long> publish(const std::string& channel, const std::string& message);
    bool ping();

    struct Address {
        std::string host;
        int port = 6379;
        int db = 0;
        std::string username;  // "" with a password: Redis's default user (requirepass)
        std::string password;  // "": no AUTH
    };
    // redis://[[user]:password@]host[:port][/db]: user and password percent-decoded (a ':',
    // '@' or '/' in them written %3A, %40, %2F); a user without a password, an empty password
    // or any other malformed part is nullopt, never a silent connection without AUTH.
    static std::optional<Address> parse_url(const std::string& url);
    // The URL with its password replaced by "***", for messages and logs.
    static std::string redacted(const std::string& url);

private:
    bool connect_locked();
    bool auth_warned_ = false;  // a refused AUTH is logged once until one succeeds
    std::string url_;
    std::chrono::milliseconds timeout_;
    std::mutex mu_;
    redisContext* ctx_ = nullptr;
};

// Sends AUTH on a fresh context when `a` carries a password ("AUTH user password", or
// "AUTH password" for the default user). True when none is needed or Redis accepted it; else
// false with Redis's refusal (or the I/O error) in `error`.
bool authenticate(redisContext* c, const Client::Address& a, std::string& error);

}  // namespace pouch::redis
