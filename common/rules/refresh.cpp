// refresh.cpp -- refresh_step of refresh.h.
#include "common/rules/refresh.h"

namespace pouch::rules {

RefreshStep refresh_step(const PresentedRefresh& t) {
    if (t.device_revoked) return RefreshStep::device_revoked;
    if (t.used) {
        if (!t.within_grace) return RefreshStep::refuse_and_revoke;
        if (!t.retried && t.successor_untouched) return RefreshStep::retry;
        return RefreshStep::refuse;
    }
    if (t.revoked || t.expired) return RefreshStep::refuse;
    return RefreshStep::rotate;
}

}  // namespace pouch::rules
