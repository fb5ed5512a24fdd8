// paging.h -- the one cursor design of every list endpoint (decisions §5.4, §13): `limit`
// (1..1000, default 100, unless a list says otherwise) and an opaque `cursor`, the
// `meta.next_cursor` of the previous page. A cursor is b64url of "<scope>|<key>|<key>...":
// the scope names the list it belongs to (endpoint and what it is scoped to, e.g.
// "devices/<account>"), the keys are the sort keys of the last item shown, so every page is a
// keyset page (page N costs what page 1 costs). Anything this list did not hand out is
// 400 invalid_cursor. A page stops after `limit` items or once its JSON passes 4 MiB (at least
// one item), and next_cursor is null on the last page.
//
//   const paging::List list("devices/" + c.account_id, {paging::Key::natural, paging::Key::uuid});
//   QueryValues q = validate_query(req, {paging::cursor_param(), paging::limit_param()});
//   auto after = list.read(q);             // nullopt: from the start
//   db::Result r = conn->exec(st, {..., paging::after_key(after, 0), paging::after_key(after, 1),
//                                  std::to_string(limit + 1)});   // ... LIMIT $n
//   return list.page(q.integer("limit"), r.rows(), r.rows(), [&](json::Out& o, int i) {
//       ...write row i...; return paging::Keys{r.text(i, "created_us"), r.text(i, "id")};
//   });
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/db/pool.h"
#include "common/http/query.h"
#include "common/http/response.h"
#include "common/json/out.h"

namespace pouch::paging {

constexpr size_t kPageBudget = 4 * 1024 * 1024;  // JSON bytes after which a page stops
constexpr long long kDefaultLimit = 100;
constexpr long long kMaxLimit = 1000;

// The kinds of sort keys a cursor carries, each checked on the way in so a key reaches SQL
// only in a form PostgreSQL accepts and a list never starts from a position it cannot hand out.
// Integers are canonical decimals (one spelling per number) within ±(2^53 − 1):
//   positive: 1.. (seqs, key generations, audit ids);
//   natural:  0.. (roster indexes, microseconds since 1970 of a created_at, see below);
//   integer:  any sign (a plan's sort);
//   uuid:     a UUID in canonical lower case;
//   text:     1..64 characters of [a-z0-9-] (slugs).
enum class Key { positive, natural, integer, uuid, text };
using Keys = std::vector<std::string>;

// SQL for a created_at as an exact integer key and back (timestamptz keeps microseconds).
#define POUCH_PAGING_MICROS(col) "(extract(epoch FROM " col ") * 1000000)::bigint"
#define POUCH_PAGING_FROM_MICROS(param) \
    "(timestamptz 'epoch' + " param "::bigint * interval '1 microsecond')"

http::QueryParam cursor_param();
http::QueryParam limit_param(long long max = kMaxLimit);

Error invalid_cursor();

// Key k of the cursor read by List::read as a statement parameter: SQL NULL (from the start)
// when there is no cursor.
db::Param after_key(const std::optional<Keys>& after, size_t k);

// The same for a key of kind positive, natural or integer, as a typed statement takes it.
std::optional<long long> after_number(const std::optional<Keys>& after, size_t k);

// The `fetched` column of a page statement that cuts by bytes (the rows it read before that
// cut, the same on every row), 0 when it returned none.
long long fetched(const db::Result& r);

class List {
  public:
    List(std::string scope, std::vector<Key> kinds);

    // The keys inside ?cursor; nullopt without one. Throws 400 invalid_cursor.
    std::optional<Keys> read(const http::QueryValues& q) const;
    std::optional<Keys> decode(const std::string& cursor) const;  // nullopt when not ours
    std::string encode(const Keys& keys) const;

    // Writes {"items":[...]} from rows [0, rows): `item` writes row i and returns its keys.
    // Stops after `limit` items or once the JSON passes kPageBudget. `fetched` is how many
    // rows the query could return before any byte cut of its own (at most limit + 1): when
    // fewer were written, next_cursor names the last one written. `extra` may append more
    // members to data after the items.
    http::Response page(long long limit, int rows, long long fetched,
                        const std::function<Keys(json::Out&, int)>& item,
                        const std::function<void(json::Out&)>& extra = {}) const;

  private:
    std::string scope_;
    std::vector<Key> kinds_;
};

}  // namespace pouch::paging
