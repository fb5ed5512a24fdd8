// stand_in.h -- the lookup's stand-in for an address without an identity (docs/SHARING.md §2):
// an account id, a genesis statement and an identity statement derived from the service
// secret and the address alone, signed with deterministic ES256, so every lookup of one
// address answers the same bytes and a stand-in looks like a real account's answer. Pure.
#pragma once

#include <string>
#include <string_view>

#include "common/clientfmt/roster.h"

namespace pouch::account {

struct StandIn {
    std::string account_id;
    clientfmt::SignedStatement identity, genesis;
};

// secret: the service's 32-byte stand-in secret; secret_created_unix: when it was drawn (the
// statements' `at` is a fixed time up to 180 days before it); email: the normalized address.
StandIn stand_in(std::string_view secret, long long secret_created_unix, std::string_view email);

}  // namespace pouch::account
