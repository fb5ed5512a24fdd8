// notifier.cpp -- the subscriber thread: connect, AUTH, PSUBSCRIBE its pattern, then poll(2) the socket
// with a one-second timeout (so stop() is noticed) and feed hiredis's reader; any error
// drops the context, marks the notifier disconnected, has every waiter re-read and reconnects.
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

Notifier::Notifier(std::string url, std::string pattern, Listener& listener)
    : url_(std::move(url)), pattern_(std::move(pattern)), listener_(listener) {
    thread_ = std::thread([this] { run(); });
}

Notifier::~Notifier() { stop(); }

void Notifier::stop() {
    stopping_ = true;
    if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
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
        std::string refused;
        if (ctx.c && !ctx.c->err && !authenticate(ctx.c, *addr, refused)) {
            if (!refused.empty() && !logged_down)
                log::warn("redis refused the subscriber's AUTH", {{"error", refused}});
            redisFree(ctx.c);
            ctx.c = nullptr;
        }
        if (ctx.c && !ctx.c->err) {
            ReplyOwner ack;
            ack.r = static_cast<redisReply*>(redisCommand(ctx.c, "PSUBSCRIBE %s", pattern_.c_str()));
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
        listener_.on_resync();  // anything published while we were away was lost

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
                    listener_.on_message(
                        std::string(msg.r->element[2]->str, msg.r->element[2]->len));
            }
            if (broken) break;
        }
        connected_ = false;
        if (!stopping_.load()) {
            log::warn("redis subscriber lost its connection, reconnecting");
            logged_down = true;
            listener_.on_resync();
        }
    }
}

}  // namespace pouch::redis
