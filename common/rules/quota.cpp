// quota.cpp -- see quota.h.
#include "common/rules/quota.h"

namespace pouch::rules {

std::optional<QuotaExcess> check_growth(const Usage& before, const Usage& after) {
    long long grown = after.stored_bytes - before.stored_bytes;
    if (grown <= 0 || after.used() <= after.limit_bytes) return std::nullopt;
    return QuotaExcess{after.limit_bytes, before.used(), grown};
}

std::optional<QuotaExcess> check_request(const Usage& now, long long requested) {
    if (requested <= 0 || now.used() + requested <= now.limit_bytes) return std::nullopt;
    return QuotaExcess{now.limit_bytes, now.used(), requested};
}

long long reservation_growth(const std::vector<BlobAsk>& asks) {
    long long grown = 0;
    for (const auto& a : asks)
        if (!a.present && a.stored_size > a.reserved) grown += a.stored_size - a.reserved;
    return grown;
}

}  // namespace pouch::rules
