// refresh_rules_test.cpp -- what presenting a refresh token does (common/rules/refresh.h): a
// fresh token rotates; a retry of a lost answer within the window, once, with the lost pair
// untouched, gets a new pair; every other reuse is refused, and past the window revokes the
// device's tokens; a revoked device is told so first.
#include <gtest/gtest.h>

#include "common/rules/refresh.h"

namespace {

using pouch::rules::PresentedRefresh;
using pouch::rules::refresh_step;
using pouch::rules::RefreshStep;

PresentedRefresh fresh() {
    return {};
}

// Rotated `within` the window or not; `retried`; the lost pair untouched or not.
PresentedRefresh rotated(bool within, bool retried, bool untouched) {
    PresentedRefresh t;
    t.used = true;
    t.within_grace = within;
    t.retried = retried;
    t.successor_untouched = untouched;
    return t;
}

TEST(RefreshRules, AnUnusedTokenRotates) {
    EXPECT_EQ(refresh_step(fresh()), RefreshStep::rotate);
}

TEST(RefreshRules, AnUnusedTokenThatIsRevokedOrExpiredIsRefused) {
    PresentedRefresh t = fresh();
    t.revoked = true;
    EXPECT_EQ(refresh_step(t), RefreshStep::refuse);  // e.g. the lost pair of a granted retry
    t = fresh();
    t.expired = true;
    EXPECT_EQ(refresh_step(t), RefreshStep::refuse);
}

TEST(RefreshRules, TheFirstRetryWithinTheWindowOfAnUntouchedRotationIsGranted) {
    EXPECT_EQ(refresh_step(rotated(true, false, true)), RefreshStep::retry);
}

TEST(RefreshRules, ASecondRetryWithinTheWindowIsRefusedWithoutRevoking) {
    EXPECT_EQ(refresh_step(rotated(true, true, true)), RefreshStep::refuse);
    EXPECT_EQ(refresh_step(rotated(true, true, false)), RefreshStep::refuse);
}

TEST(RefreshRules, ARetryAfterTheNewTokensWereUsedIsRefusedWithoutRevoking) {
    EXPECT_EQ(refresh_step(rotated(true, false, false)), RefreshStep::refuse);
}

TEST(RefreshRules, AnyReuseAfterTheWindowRevokesTheDevicesTokens) {
    for (bool retried : {false, true})
        for (bool untouched : {false, true})
            EXPECT_EQ(refresh_step(rotated(false, retried, untouched)),
                      RefreshStep::refuse_and_revoke)
                << retried << untouched;
}

TEST(RefreshRules, ARevokedDeviceIsToldSoWhateverTheToken) {
    for (PresentedRefresh t : {fresh(), rotated(true, false, true), rotated(false, false, false)}) {
        t.device_revoked = true;
        EXPECT_EQ(refresh_step(t), RefreshStep::device_revoked);
    }
}

TEST(RefreshRules, TheWindowIsTheSixtySecondsOfTheReuseRule) {
    EXPECT_EQ(pouch::rules::kRefreshGraceSeconds, 60);
}

}  // namespace
