// client.h -- a small thread-safe Redis client over hiredis for the replay cache and
// wake-ups: every call has a read timeout (redisSetTimeout), a broken context is dropped
// and reconnected on the next call, and "unreachable" is reported, never thrown.
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
    // url: redis://host:port[/db]
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
    };
    static std::optional<Address> parse_url(const std::string& url);

private:
    bool connect_locked();
    std::string url_;
    std::chrono::milliseconds timeout_;
    std::mutex mu_;
    redisContext* ctx_ = nullptr;
};

}  // namespace pouch::redis
