// sharing.h -- what the sharing endpoints of the shares group have in common (docs/SHARING.md
// §6-§9): the pouch locked in the order every writer keeps (the owner's account row, then the
// pouch row), the audit actor, and a rotation that goes with a statement.
#pragma once

#include <optional>
#include <string>

#include <rapidjson/document.h>

#include "common/api/route.h"
#include "common/auth/caller.h"
#include "common/model/access.h"
#include "common/model/pouch.h"
#include "common/model/usage.h"

namespace pouch::shares {

using model::PouchRow;

struct Locked {
    model::Usage before;  // the owner's usage, its row locked
    PouchRow pouch;       // the pouch row locked, as the caller reaches it
};

// Locks the owner's account row and then the pouch of the route's scope, checked again under
// the lock: 404 when the caller lost access meanwhile, 403 insufficient_role below `role`.
Locked lock_pouch(db::Conn& conn, api::Call& call, model::Role role);

// The user an audit entry names (a CLI device acts for its account's user as well).
std::optional<std::string> actor(const auth::Caller& c);

// The rotation a `remove`, a `leave` or a lowered role owes, made in the same request (SHARING.md
// §7): `key_envelopes` of the body for the caller's own members at the pouch's key_gen + 1
// (which raises it), and `key_grants` for every other account in the list at that generation
// (409 access_conflict otherwise). Returns the pouches that got a key_rotation event.
std::vector<std::string> rotate(db::Conn& conn, const auth::Caller& c, const PouchRow& p,
                                const model::Appended& a, const rapidjson::Value& body);

}  // namespace pouch::shares
