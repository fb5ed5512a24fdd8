// notifier.cpp -- the subscriber thread: connect, PSUBSCRIBE pouch:*, then poll(2) the socket
// with a one-second timeout (so stop() is noticed) and feed hiredis's reader; any error
// drops the context, marks the notifier disconnected, wakes every waiter and reconnects.
#include "common/redis/notifier.h"

#include <hiredis/hiredis.h>
#include <poll.h>

#include <cerrno>

#include "common/log/log.h"
#include "common/redis/client.h"

namespace pouch::redis {

namespace {

struct ContextOwner {
    redisContext* c = nullptr;
    ~ContextOwner() {
        if (c) redisFree(c);
    }
};

struct ReplyOwner {
    redisReply* r = nullptr;
    ~ReplyOwner() {
        if (r) freeReplyObject(r);
    }
};

}  // namespace

Notifier::Notifier(std::string url) : url_(std::move(url)) {
    thread_ = std::thread([this] { run(); });
}

Notifier::~Notifier() {
    stop();
    if (thread_.joinable()) thread_.join();
}

void Notifier::stop() {
    stopping_ = true;
    wake_all();
}

size_t Notifier::waiters() const {
    std::lock_guard<std::mutex> lock(mu_);
    return subs_.size();
}

std::unique_ptr<Notifier::Subscription> Notifier::subscribe(const std::string& channel) {
    std::unique_ptr<Subscription> s(new Subscription(*this, channel));
    std::lock_guard<std::mutex> lock(mu_);
    subs_.emplace(channel, s.get());
    return s;
}

Notifier::Subscription::~Subscription() {
    std::lock_guard<std::mutex> lock(n_.mu_);
    auto [b, e] = n_.subs_.equal_range(channel_);
    for (auto it = b; it != e; ++it) {
        if (it->second == this) {
            n_.subs_.erase(it);
            break;
        }
    }
}

bool Notifier::Subscription::wait_until(Clock::time_point deadline) {
    std::unique_lock<std::mutex> lock(n_.mu_);
    if (!n_.connected_.load()) {
        // Fallback: the caller re-reads the database at least once a second.
        deadline = std::min(deadline, Clock::now() + std::chrono::seconds(1));
    }
    n_.cv_.wait_until(lock, deadline, [&] { return pending_ > 0 || n_.stopping_.load(); });
    bool woken = pending_ > 0;
    pending_ = 0;
    return woken;
}

void Notifier::deliver(const std::string& channel) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        auto [b, e] = subs_.equal_range(channel);
        if (b == e) return;
        for (auto it = b; it != e; ++it) ++it->second->pending_;
    }
    cv_.notify_all();
}

void Notifier::wake_all() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        for (auto& [ch, s] : subs_) ++s->pending_;
    }
    cv_.notify_all();
}

void Notifier::run() {
    auto addr = Client::parse_url(url_);
    bool logged_down = false;
    // Between attempts: a second, in steps short enough for stop() to be noticed.
    auto pause = [this] {
        for (int i = 0; i < 10 && !stopping_.load(); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
    };
    while (!stopping_.load()) {
        ContextOwner ctx;
        if (addr) {
            struct timeval tv {1, 0};
            ctx.c = redisConnectWithTimeout(addr->host.c_str(), addr->port, tv);
            // The connect timeout does not bound reads (decisions §11): without this a
            // server that accepts but never answers PSUBSCRIBE would hang this thread, and
            // with it the process's shutdown.
            if (ctx.c && !ctx.c->err) redisSetTimeout(ctx.c, tv);
        }
        bool subscribed = false;
        if (ctx.c && !ctx.c->err) {
            ReplyOwner ack;
            ack.r = static_cast<redisReply*>(redisCommand(ctx.c, "PSUBSCRIBE pouch:*"));
            subscribed = ack.r && ack.r->type == REDIS_REPLY_ARRAY && ctx.c->err == 0;
        }
        if (!subscribed) {
            if (!logged_down) log::warn("redis subscriber unavailable, waits poll the database");
            logged_down = true;
            pause();
            continue;
        }
        connected_ = true;
        if (logged_down) log::info("redis subscriber connected");
        logged_down = false;
        wake_all();  // anything published while we were away was lost: everyone re-reads

        while (!stopping_.load()) {
            struct pollfd p {ctx.c->fd, POLLIN, 0};
            int rc = ::poll(&p, 1, 1000);
            if (rc == 0) continue;
            if (rc < 0) {
                if (errno == EINTR) continue;
                break;
            }
            if (redisBufferRead(ctx.c) != REDIS_OK) break;
            bool broken = false;
            while (true) {
                void* raw = nullptr;
                if (redisGetReplyFromReader(ctx.c, &raw) != REDIS_OK) {
                    broken = true;
                    break;
                }
                if (!raw) break;
                ReplyOwner msg;
                msg.r = static_cast<redisReply*>(raw);
                // ["pmessage", pattern, channel, payload]
                if (msg.r->type == REDIS_REPLY_ARRAY && msg.r->elements == 4 &&
                    msg.r->element[2]->type == REDIS_REPLY_STRING)
                    deliver(std::string(msg.r->element[2]->str, msg.r->element[2]->len));
            }
            if (broken) break;
        }
        connected_ = false;
        if (!stopping_.load()) {
            log::warn("redis subscriber lost its connection, reconnecting");
            logged_down = true;
            wake_all();
        }
    }
}

}  // namespace pouch::redis
