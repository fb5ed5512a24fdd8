// login_rules_test.cpp -- the CLI login state machine of common/rules/login.h, every (state,
// event) pair: the next state, a wait, or the exact refusal (fault, code, message).
#include <string>

#include <gtest/gtest.h>

#include "common/rules/login.h"

namespace {

using pouch::Fault;
using pouch::rules::LoginEvent;
using pouch::rules::LoginState;
using pouch::rules::LoginStep;
using pouch::rules::transition;

using S = LoginState;
using E = LoginEvent;
using K = LoginStep::Kind;

struct Row {
    S from;
    E event;
    K kind;
    S next;             // move only
    Fault fault;        // refuse only
    const char* code;   // refuse only
    const char* message;
};

TEST(LoginRules, EveryStateAndEvent) {
    const Row rows[] = {
        {S::pending, E::approve, K::move, S::approved, {}, "", ""},
        {S::pending, E::deny, K::move, S::denied, {}, "", ""},
        {S::pending, E::redeem, K::wait, S::pending, {}, "", ""},
        {S::approved, E::redeem, K::move, S::redeemed, {}, "", ""},
        {S::approved, E::approve, K::refuse, {}, Fault::conflict, "already_decided",
         "the login request is already approved"},
        {S::approved, E::deny, K::refuse, {}, Fault::conflict, "already_decided",
         "the login request is already approved"},
        {S::denied, E::approve, K::refuse, {}, Fault::conflict, "already_decided",
         "the login request is already denied"},
        {S::denied, E::deny, K::refuse, {}, Fault::conflict, "already_decided",
         "the login request is already denied"},
        {S::denied, E::redeem, K::refuse, {}, Fault::forbidden, "access_denied",
         "the login was denied"},
        {S::redeemed, E::approve, K::refuse, {}, Fault::conflict, "already_decided",
         "the login request is already redeemed"},
        {S::redeemed, E::deny, K::refuse, {}, Fault::conflict, "already_decided",
         "the login request is already redeemed"},
        {S::redeemed, E::redeem, K::refuse, {}, Fault::bad_input, "invalid_grant",
         "the login was already redeemed"},
        {S::expired, E::approve, K::refuse, {}, Fault::gone, "expired_token",
         "the login request expired"},
        {S::expired, E::deny, K::refuse, {}, Fault::gone, "expired_token",
         "the login request expired"},
        {S::expired, E::redeem, K::refuse, {}, Fault::gone, "expired_token",
         "the login request expired"},
    };
    for (const auto& r : rows) {
        std::string where = std::string(pouch::rules::login_state_name(r.from)) + " + event " +
                            std::to_string(static_cast<int>(r.event));
        LoginStep step = transition(r.from, r.event);
        ASSERT_EQ(step.kind, r.kind) << where;
        if (r.kind == K::move) {
            EXPECT_EQ(step.next, r.next) << where;
        }
        if (r.kind != K::refuse) {
            EXPECT_FALSE(step.refusal) << where;
            continue;
        }
        ASSERT_TRUE(step.refusal) << where;
        EXPECT_EQ(step.refusal->fault, r.fault) << where;
        EXPECT_EQ(step.refusal->code, r.code) << where;
        EXPECT_EQ(step.refusal->message, r.message) << where;
    }
}

TEST(LoginRules, StatusTextRoundTrips) {
    for (S s : {S::pending, S::approved, S::denied, S::expired, S::redeemed})
        EXPECT_EQ(pouch::rules::parse_login_state(pouch::rules::login_state_name(s)), s);
    EXPECT_FALSE(pouch::rules::parse_login_state("Pending"));
    EXPECT_FALSE(pouch::rules::parse_login_state(""));
}

}  // namespace
