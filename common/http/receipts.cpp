// receipts.cpp -- the bounds on uploads in receipt (receipts.h).
#include "common/http/receipts.h"

#include "common/types/error.h"

namespace pouch::http {

Receipts::Receipts(int per_account, int total, std::function<void()> on_enter)
    : per_account_(per_account), total_max_(total), on_enter_(std::move(on_enter)) {}

std::shared_ptr<void> Receipts::enter(const std::string& account) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = counts_.find(account);
        int mine = it == counts_.end() ? 0 : it->second;
        if (mine >= per_account_)
            throw Error(Code::rate_limited, "this account has " + std::to_string(mine) +
                                                " uploads in progress; retry when one is done")
                .with_header("Retry-After", "1");
        if (total_ >= total_max_)
            throw unavailable("the server has " + std::to_string(total_) +
                              " uploads in progress; retry shortly");
        ++counts_[account];
        ++total_;
    }
    // Made before on_enter runs, so the count is given back even if it throws.
    std::shared_ptr<void> ticket(nullptr, [this, account](void*) { leave(account); });
    if (on_enter_) on_enter_();
    return ticket;
}

void Receipts::leave(const std::string& account) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = counts_.find(account);
    if (it == counts_.end()) return;
    if (--it->second == 0) counts_.erase(it);
    --total_;
}

int Receipts::in_receipt() const {
    std::lock_guard<std::mutex> lock(mu_);
    return total_;
}

int Receipts::of(const std::string& account) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = counts_.find(account);
    return it == counts_.end() ? 0 : it->second;
}

}  // namespace pouch::http
