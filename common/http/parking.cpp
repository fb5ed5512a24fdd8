// parking.cpp -- the parked-request registry: indexes by channel and deadline, a queue of
// requests to re-poll, poll threads that answer them, and a timer thread for deadlines and
// the once-a-second database fallback while Redis is down. One mutex guards the registry;
// polls and answers run outside it.
#include "common/http/parking.h"

#include <stdexcept>

#include "common/http/error.h"

namespace pouch::http {

namespace {

constexpr auto kFallbackInterval = std::chrono::seconds(1);
constexpr size_t kSharedAnswersMax = 1024;  // share keys remembered (cleared past this)

}  // namespace

Parking::Parking(const std::string& redis_url, const std::string& pattern, int threads,
                 size_t max_per_owner)
    : max_per_owner_(max_per_owner) {
    notifier_ =
        std::make_unique<redis::Notifier>(redis_url, pattern, static_cast<Listener&>(*this));
    for (int i = 0; i < std::max(threads, 1); ++i) pollers_.emplace_back([this] { poll_thread(); });
    timer_ = std::thread([this] { timer_thread(); });
}

Parking::~Parking() {
    stop();
}

std::uint64_t Parking::stamp(const std::string& channel) const {
    size_t bucket = std::hash<std::string>{}(channel) % kStampBuckets;
    return stamps_[bucket].load() + resyncs_.load();
}

size_t Parking::parked() const {
    std::lock_guard<std::mutex> lock(mu_);
    return entries_.size();
}

void Parking::on_message(const std::string& channel) {
    // The stamp moves before the lookup: a park() that checks the stamp after this either
    // sees it moved or is already registered and found below.
    stamps_[std::hash<std::string>{}(channel) % kStampBuckets].fetch_add(1);
    std::lock_guard<std::mutex> lock(mu_);
    auto [b, e] = by_channel_.equal_range(channel);
    for (auto it = b; it != e; ++it) enqueue(it->second);
}

void Parking::on_resync() {
    resyncs_.fetch_add(1);
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [p, owned] : entries_) enqueue(p);
}

void Parking::park(LongPoll poll, std::string request_id, Finish finish) {
    auto owned = std::make_unique<Entry>();
    owned->lp = std::move(poll);
    owned->request_id = std::move(request_id);
    owned->finish = std::move(finish);
    Entry* e = owned.get();

    std::unique_lock<std::mutex> lock(mu_);
    if (ended_) {  // shutting down and the poll threads are gone: answer here
        lock.unlock();
        Rendered out;
        std::string detail;
        poll_once(*e, true, out, detail);
        e->finish(out, detail);
        return;
    }
    if (!e->lp.owner.empty() && per_owner_[e->lp.owner] >= max_per_owner_) {
        lock.unlock();
        e->finish(render_error(Error(Code::rate_limited,
                                     "too many requests of this account are waiting; retry "
                                     "later")
                                   .with_header("Retry-After", "5"),
                               e->request_id),
                  "");
        return;
    }
    if (!e->lp.exclusive_key.empty()) {
        auto [it, fresh] = by_exclusive_.try_emplace(e->lp.exclusive_key, e);
        if (!fresh) {
            Entry* older = it->second;
            it->second = e;
            Error why = older->lp.superseded.value_or(
                Error(Code::rate_limited, "a newer request took this one's place"));
            older->forced = render_error(why, older->request_id);
            enqueue(older);
        }
    }
    if (!e->lp.owner.empty()) ++per_owner_[e->lp.owner];
    entries_.emplace(e, std::move(owned));
    by_channel_.emplace(e->lp.channel, e);
    if (e->lp.deadline <= Clock::now()) {
        e->expired = true;
        enqueue(e);
    } else {
        by_deadline_.emplace(e->lp.deadline, e);
        timer_cv_.notify_one();
        if (stopping_ || stamp(e->lp.channel) != e->lp.seen) enqueue(e);
    }
}

void Parking::enqueue(Entry* e) {
    if (e->running) {
        e->dirty = true;
        return;
    }
    if (e->queued) return;
    e->queued = true;
    queue_.push_back(e);
    work_cv_.notify_one();
}

void Parking::remove(Entry* e) {
    if (!e->lp.owner.empty()) {
        auto it = per_owner_.find(e->lp.owner);
        if (--it->second == 0) per_owner_.erase(it);
    }
    if (!e->lp.exclusive_key.empty()) {
        auto it = by_exclusive_.find(e->lp.exclusive_key);
        if (it != by_exclusive_.end() && it->second == e) by_exclusive_.erase(it);
    }
    auto [cb, ce] = by_channel_.equal_range(e->lp.channel);
    for (auto it = cb; it != ce; ++it)
        if (it->second == e) {
            by_channel_.erase(it);
            break;
        }
    if (!e->expired) {  // an expired entry has already left by_deadline_
        auto [db, de] = by_deadline_.equal_range(e->lp.deadline);
        for (auto it = db; it != de; ++it)
            if (it->second == e) {
                by_deadline_.erase(it);
                break;
            }
    }
}

std::optional<Response> Parking::shared_poll(Entry& e) {
    // While Redis is down stamps stand still, so a remembered answer could be stale.
    if (!notifier_->connected()) return e.lp.poll(false);
    const std::string key = e.lp.channel + '\n' + e.lp.share_key;
    // An answer is reusable if its poll began after every message this one must see.
    const std::uint64_t now = stamp(e.lp.channel);
    {
        std::lock_guard<std::mutex> lock(shared_mu_);
        auto it = shared_.find(key);
        if (it != shared_.end() && it->second.stamp >= now) return it->second.answer;
    }
    std::optional<Response> answer = e.lp.poll(false);
    std::lock_guard<std::mutex> lock(shared_mu_);
    if (shared_.size() >= kSharedAnswersMax) shared_.clear();
    auto [it, fresh] = shared_.try_emplace(key, Shared{now, answer});
    if (!fresh && it->second.stamp < now) it->second = Shared{now, answer};
    return answer;
}

bool Parking::poll_once(Entry& e, bool final, Rendered& out, std::string& error_detail) {
    bool pending = false;
    out = render_guarded(e.request_id, error_detail, [&] {
        std::optional<Response> answer =
            final || e.lp.share_key.empty() ? e.lp.poll(final) : shared_poll(e);
        if (answer) return std::move(*answer);
        if (final) throw std::logic_error("a long-poll gave no answer at its deadline");
        pending = true;
        return Response{};
    });
    return !pending;
}

void Parking::poll_thread() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
        work_cv_.wait(lock, [&] { return !queue_.empty() || ended_; });
        if (queue_.empty()) return;
        Entry* e = queue_.front();
        queue_.pop_front();
        e->queued = false;
        e->running = true;
        e->dirty = false;
        bool final = e->expired || stopping_;
        std::optional<Rendered> forced = e->forced;
        lock.unlock();

        Rendered out;
        std::string detail;
        bool answered = true;
        if (forced)
            out = std::move(*forced);
        else
            answered = poll_once(*e, final, out, detail);

        lock.lock();
        e->running = false;
        if (!answered) {
            if (e->dirty || e->expired || stopping_) enqueue(e);
            continue;
        }
        auto it = entries_.find(e);
        std::unique_ptr<Entry> owned = std::move(it->second);
        entries_.erase(it);
        remove(e);
        lock.unlock();
        owned->finish(out, detail);
        owned.reset();
        lock.lock();
        idle_cv_.notify_all();
    }
}

void Parking::timer_thread() {
    std::unique_lock<std::mutex> lock(mu_);
    auto next_fallback = Clock::now() + kFallbackInterval;
    while (!ended_) {
        auto wake = next_fallback;
        if (!by_deadline_.empty()) wake = std::min(wake, by_deadline_.begin()->first);
        timer_cv_.wait_until(lock, wake);
        if (ended_) break;
        auto now = Clock::now();
        while (!by_deadline_.empty() && by_deadline_.begin()->first <= now) {
            Entry* e = by_deadline_.begin()->second;
            by_deadline_.erase(by_deadline_.begin());
            e->expired = true;
            enqueue(e);
        }
        if (now >= next_fallback) {
            if (!notifier_->connected())
                for (auto& [p, owned] : entries_) enqueue(p);
            next_fallback = now + kFallbackInterval;
        }
    }
}

void Parking::stop() {
    {
        std::unique_lock<std::mutex> lock(mu_);
        if (!ended_) {
            stopping_ = true;
            for (auto& [p, owned] : entries_) enqueue(p);
            idle_cv_.wait(lock, [&] { return entries_.empty(); });
            ended_ = true;
        }
    }
    work_cv_.notify_all();
    timer_cv_.notify_all();
    for (auto& t : pollers_)
        if (t.joinable()) t.join();
    if (timer_.joinable()) timer_.join();
    notifier_->stop();
}

}  // namespace pouch::http
