// receipts.h -- uploads whose body is still arriving (issue 27). nginx hands a blob upload's
// body on as it arrives (fastcgi_request_buffering off on that location), so reading it waits
// on the client: a trickling body would hold its thread for as long as the client likes.
// Such a request therefore enters receipt before it reads a byte, and the server's `on_enter`
// starts another worker when too few are left serving (common/http/server.cpp): the requests
// in receipt wait on their clients, and POUCH_THREADS workers still serve everything else.
// Receipt is bounded: at most `per_account` uploads of one account (the next is 429
// `rate_limited`) and at most `total` in all (the next is 503 `unavailable`), each with
// Retry-After. How long a body may take is the server's (server.cpp, receipt_seconds).
//
// Invariant: counts_ holds exactly the accounts with a ticket alive, each with its number of
// tickets, and total_ is their sum.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace pouch::http {

class Receipts {
  public:
    Receipts(int per_account, int total, std::function<void()> on_enter = {});
    Receipts(const Receipts&) = delete;
    Receipts& operator=(const Receipts&) = delete;

    // Enters receipt for `account` and calls on_enter; the returned ticket leaves it when
    // destroyed. Throws Error 429 or 503 (above) when a bound is reached.
    std::shared_ptr<void> enter(const std::string& account);

    int in_receipt() const;
    int of(const std::string& account) const;

  private:
    void leave(const std::string& account);

    int per_account_;
    int total_max_;
    std::function<void()> on_enter_;
    mutable std::mutex mu_;
    std::unordered_map<std::string, int> counts_;
    int total_ = 0;
};

}  // namespace pouch::http
