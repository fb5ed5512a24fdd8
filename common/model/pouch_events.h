// pouch_events.h -- the per-pouch events that are not commits (decisions §5.2): `roster` when
// the account's roster changes, `key_rotation` when a pouch's key_gen rises. Each takes the
// pouch's next seq under its row lock, inside the caller's transaction; the caller publishes
// the wake-ups (common/wakeup) after COMMIT.
#pragma once

#include <string>
#include <vector>

#include "common/db/pool.h"

namespace pouch::model {

// Appends `kind` events ("roster", "key_rotation") to every listed pouch (locks them).
void append_pouch_events(db::Conn& conn, const std::vector<std::string>& pouch_ids,
                         const std::string& kind, const std::string& device_id);

// The account's pouch ids, for roster events.
std::vector<std::string> account_pouches(db::Conn& conn, const std::string& account_id);

}  // namespace pouch::model
