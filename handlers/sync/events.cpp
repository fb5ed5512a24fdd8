// events.cpp -- GET /v1/pouches/{pouchId}/events?epoch=&after=&limit=&wait= (decisions §5.2):
// a page of the pouch's event log after `after`, with high_water. With `wait` and nothing new
// it long-polls on its pouch's events channel (common/wakeup; commits publish after COMMIT): the
// request is parked (common/http/parking.h), which falls back to re-reading every second without
// Redis. A waiting request holds no thread and no database connection. Extension (docs/SYNC.md):
// each event also carries `key_gen` and, for a revision, the Revision itself while the page's
// revisions fit kInlineBudget, so a client acts on the page without a read per artifact.
#include <algorithm>
#include <cctype>
#include <chrono>

#include "common/auth/caller.h"
#include "common/http/error.h"
#include "common/http/query.h"
#include "common/json/out.h"
#include "common/wakeup/wakeup.h"
#include "handlers/sync/revision_json.h"
#include "handlers/sync/routes.h"
#include "handlers/sync/sql_reads.h"

namespace pouch::sync {

namespace {

// Stored bytes (envelope + signature) of the revisions one page inlines: those up to and
// including a revision whose running total stays within it come along, the rest are null.
constexpr long long kInlineBudget = 1024 * 1024;

// Reads one page; throws epoch_mismatch when the pouch has moved to another epoch and
// not_found when it is gone.
db::Result read_page(db::Conn& conn, const std::string& pouch_id, const std::string& epoch,
                     long long after, long long limit) {
    db::Result r = conn.exec(sql::kEventsPage, {pouch_id, std::to_string(after), std::to_string(limit),
                                                epoch, std::to_string(kInlineBudget)});
    if (r.rows() == 0) throw http::not_found();
    if (r.text(0, "epoch") != epoch)
        throw http::epoch_mismatch(r.text(0, "epoch"), r.int64(0, "high_water"));
    return r;
}

bool has_items(const db::Result& r) {
    return !r.is_null(0, r.column("seq"));
}

http::Response page_response(const db::Result& page) {
    json::Out o;
    o.key("items").arr();
    if (has_items(page)) {
        for (int i = 0; i < page.rows(); ++i) {
            o.obj();
            o.kv("seq", page.int64(i, "seq")).kv("kind", page.text(i, "kind"));
            o.kv("artifact_id", page.opt(i, "artifact_id"));
            o.kv("revision_id", page.opt(i, "revision_id"));
            o.kv("device_id", page.opt(i, "device_id"));
            o.kv("created_at", page.text(i, "created_at"));
            if (page.is_null(i, page.column("ev_key_gen")))
                o.kv_null("key_gen");
            else
                o.kv("key_gen", page.int64(i, "ev_key_gen"));
            if (page.text(i, "kind") == "revision") {
                o.key("revision");
                write_revision(o, page, i);  // null when over the budget
            }
            o.end_obj();
        }
    }
    o.end_arr();
    o.kv("high_water", page.int64(0, "high_water"));
    return api::ok(o.done());
}

}  // namespace

http::Response events(api::Call& call) {
    http::Services& s = call.services;
    const auth::Caller& c = call.who();
    const http::QueryValues& q = call.query;
    std::string epoch = *q.text("epoch");  // required; canonical lower case (query_uuid)
    long long after = q.integer("after");
    long long limit = q.integer("limit");
    long long wait = q.integer("wait");

    const std::string pouch_id = call.pouch().id;
    std::uint64_t seen = 0;
    db::Result page = [&] {
        auto conn = s.db.acquire();
        if (s.parking)
            seen = s.parking->stamp(
                wakeup::channel(wakeup::Topic::events, pouch_id));  // before the read
        return read_page(*conn, pouch_id, epoch, after, limit);
    }();
    if (has_items(page) || wait == 0) return page_response(page);

    // Nothing yet: park. Every waiter on this page gets the same answer, so waiters woken by
    // one commit share one re-read (LongPoll::share_key).
    auto lp = std::make_shared<http::LongPoll>();
    lp->channel = wakeup::channel(wakeup::Topic::events, pouch_id);
    lp->seen = seen;
    lp->deadline = std::chrono::steady_clock::now() + std::chrono::seconds(wait);
    lp->share_key = epoch + "|" + std::to_string(after) + "|" + std::to_string(limit);
    lp->owner = c.account_id;  // at most POUCH_MAX_WAITERS_PER_ACCOUNT parked per account
    lp->poll = [&s, pouch_id, epoch, after, limit](bool final) -> std::optional<http::Response> {
        db::Result now = [&] {
            auto conn = s.db.acquire();
            return read_page(*conn, pouch_id, epoch, after, limit);
        }();
        if (!has_items(now) && !final) return std::nullopt;
        return page_response(now);
    };
    http::Response parked;
    parked.long_poll = std::move(lp);
    return parked;
}

}  // namespace pouch::sync
