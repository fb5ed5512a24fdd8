// notifier.h -- the Redis side of long-polls (decisions §6, §5.2): one subscriber connection
// per process (PSUBSCRIBE to one pattern, common/wakeup) that tells a Listener which channel
// got a message, and
// tells it to have everyone re-read whenever messages may have been lost (connection made,
// lost or re-made). http::Parking is the listener that owns the waiting requests.
#pragma once

#include <atomic>
#include <string>
#include <thread>

namespace pouch::redis {

class Notifier {
public:
    // Called on the subscriber thread; implementations must not block for long.
    class Listener {
    public:
        virtual void on_message(const std::string& channel) = 0;
        // Messages may have been missed: every waiter must re-read.
        virtual void on_resync() = 0;

    protected:
        ~Listener() = default;
    };

    Notifier(std::string url, std::string pattern, Listener& listener);
    ~Notifier();
    Notifier(const Notifier&) = delete;
    Notifier& operator=(const Notifier&) = delete;

    // True while subscribed; while false, waiters must re-read on their own (about once a
    // second) since no message will reach them.
    bool connected() const { return connected_.load(); }
    // Ends the subscriber thread (idempotent).
    void stop();

private:
    void run();

    std::string url_;
    std::string pattern_;
    Listener& listener_;
    std::atomic<bool> connected_{false};
    std::atomic<bool> stopping_{false};
    std::thread thread_;
};

}  // namespace pouch::redis
