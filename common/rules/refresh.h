// refresh.h -- what presenting a refresh token does (decisions §1, §15; docs/LOGIN.md §6), as
// one pure function proved by a table test; handlers/cliauth/refresh.cpp reads the state and
// writes the step. Refresh tokens are single use and rotated on every refresh (RFC 9700
// §4.14.2). A CLI whose answer was lost presents the token it just used again: within the
// grace window, once, and only while the pair of the lost answer is still untouched, that
// retry gets a fresh pair and the lost pair is revoked. Any other second use is reuse: refused,
// and past the window every token of the device is revoked as well.
#pragma once

namespace pouch::rules {

// Seconds after a rotation during which the rotated token may be presented again (a retry of
// a lost answer) without revoking the device; the window of the reuse rule of decisions §1.
constexpr int kRefreshGraceSeconds = 60;

struct PresentedRefresh {
    bool device_revoked = false;
    bool revoked = false;  // the token itself (device revocation, or a retry's lost pair)
    bool expired = false;
    bool used = false;                 // rotated already
    bool within_grace = false;         // rotated at most kRefreshGraceSeconds ago
    bool retried = false;              // its one retry was granted already
    bool successor_untouched = false;  // the pair it was rotated to: neither token used or revoked
};

enum class RefreshStep {
    rotate,             // issue a new pair, mark the token used
    retry,              // issue a new pair, revoke the lost pair, mark the token retried
    refuse,             // 400 invalid_grant
    refuse_and_revoke,  // 400 invalid_grant, and every token of the device revoked
    device_revoked,     // 401 device_revoked
};

RefreshStep refresh_step(const PresentedRefresh& t);

}  // namespace pouch::rules
