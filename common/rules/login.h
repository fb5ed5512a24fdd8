// login.h -- the life of a CLI login request (decisions §6) as one state machine: an enum of
// states and one transition function, proved by a table test. The handlers read the state
// (expiry folded in by SQL: a pending or approved request past expires_at reads as expired),
// ask transition() what an event does, and either write the next state or throw the refusal.
//
//   pending --approve--> approved --redeem--> redeemed
//      |  \--deny-----> denied
//      \--(expires_at)--> expired      (approved past expires_at reads as expired too)
//
// A token poll on a pending request waits (the CLI keeps polling or long-polls).
#pragma once

#include <optional>
#include <string_view>

#include "common/types/error.h"

namespace pouch::rules {

enum class LoginState { pending, approved, denied, expired, redeemed };

enum class LoginEvent {
    approve,  // the browser approves (POST …/approve)
    deny,     // the browser denies (POST …/deny)
    redeem,   // the CLI asks for its tokens (POST /v1/cli-auth/token)
};

// The stored/visible status text; std::nullopt for anything else.
std::optional<LoginState> parse_login_state(std::string_view text);
const char* login_state_name(LoginState s);

struct LoginStep {
    enum class Kind { move, wait, refuse };
    Kind kind = Kind::refuse;
    LoginState next = LoginState::pending;  // move: the state to write
    std::optional<Error> refusal;           // refuse: what to answer
};

// What `event` does to a request in state `from`:
//   approve/deny on pending  -> move to approved/denied
//   approve/deny on expired  -> refuse 410 expired_token
//   approve/deny otherwise   -> refuse 409 already_decided ("… is already <state>")
//   redeem on pending        -> wait
//   redeem on approved       -> move to redeemed
//   redeem on expired        -> refuse 410 expired_token
//   redeem on denied         -> refuse 403 access_denied
//   redeem on redeemed       -> refuse 400 invalid_grant (a code is redeemed once)
LoginStep transition(LoginState from, LoginEvent event);

}  // namespace pouch::rules
