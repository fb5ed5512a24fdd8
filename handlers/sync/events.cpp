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
#include "common/wakeup/wakeup.h"
#include "handlers/sync/routes.h"
#include "handlers/sync/sql_reads.h"

namespace pouch::sync {

namespace {

// Stored bytes (envelope + signature) of the revisions one page inlines: those up to and
// including a revision whose running total stays within it come along, the rest are null.
constexpr long long kInlineBudget = 1024 * 1024;

// Reads one page; throws epoch_mismatch when the pouch has moved to another epoch and
// not_found when it is gone.
std::vector<sql::EventRow> read_page(db::Conn& conn, const std::string& pouch_id,
                                     const std::string& epoch, long long after, long long limit) {
    std::vector<sql::EventRow> rows = conn.rows(sql::kEventsPage, {.pouch_id = pouch_id,
                                                                   .after = after,
                                                                   .limit = limit,
                                                                   .epoch = epoch,
                                                                   .inline_budget = kInlineBudget});
    if (rows.empty()) throw http::not_found();
    if (rows[0].epoch != epoch) throw http::epoch_mismatch(rows[0].epoch, rows[0].high_water);
    return rows;
}

bool has_items(const std::vector<sql::EventRow>& rows) {
    return rows[0].seq.has_value();
}

http::Response page_response(const std::vector<sql::EventRow>& rows) {
    EventsPage page{.high_water = rows[0].high_water};
    if (has_items(rows)) {
        for (const sql::EventRow& r : rows) {
            Event& e = page.items.emplace_back(Event{.seq = *r.seq,
                                                     .kind = *r.kind,
                                                     .artifact_id = r.artifact_id,
                                                     .revision_id = r.revision_id,
                                                     .device_id = r.device_id,
                                                     .created_at = *r.created_at,
                                                     .key_gen = r.ev_key_gen});
            if (e.kind == "revision") e.revision = r.revision;  // null when over the budget
        }
    }
    return api::ok(json::to_json(page));
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
    std::vector<sql::EventRow> page = [&] {
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
        std::vector<sql::EventRow> now = [&] {
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
