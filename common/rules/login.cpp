// login.cpp -- see login.h.
#include "common/rules/login.h"

#include <string>

namespace pouch::rules {

namespace {

LoginStep move(LoginState next) { return {LoginStep::Kind::move, next, std::nullopt}; }
LoginStep refuse(Error e) { return {LoginStep::Kind::refuse, LoginState::pending, std::move(e)}; }

Error expired() { return Error(Code::expired_token); }

}  // namespace

std::optional<LoginState> parse_login_state(std::string_view text) {
    for (LoginState s : {LoginState::pending, LoginState::approved, LoginState::denied,
                         LoginState::expired, LoginState::redeemed})
        if (text == login_state_name(s)) return s;
    return std::nullopt;
}

const char* login_state_name(LoginState s) {
    switch (s) {
        case LoginState::pending: return "pending";
        case LoginState::approved: return "approved";
        case LoginState::denied: return "denied";
        case LoginState::expired: return "expired";
        case LoginState::redeemed: return "redeemed";
    }
    return "?";
}

LoginStep transition(LoginState from, LoginEvent event) {
    if (event == LoginEvent::redeem) {
        switch (from) {
            case LoginState::pending: return {LoginStep::Kind::wait, from, std::nullopt};
            case LoginState::approved: return move(LoginState::redeemed);
            case LoginState::expired: return refuse(expired());
            case LoginState::denied:
                return refuse(Error(Code::access_denied));
            case LoginState::redeemed:
                return refuse(Error(Code::invalid_grant, "the login was already redeemed"));
        }
    }
    if (from == LoginState::pending)
        return move(event == LoginEvent::approve ? LoginState::approved : LoginState::denied);
    if (from == LoginState::expired) return refuse(expired());
    return refuse(Error(Code::already_decided,
                        std::string("the login request is already ") + login_state_name(from)));
}

}  // namespace pouch::rules
