// pouch_events.h -- the per-pouch events that are not commits (decisions §5.2): `roster` when
// the account's roster changes, `key_rotation` when a pouch's key_gen rises. Each takes the
// pouch's next seq under its row lock, inside the caller's transaction; the caller publishes
// the wake-ups (common/wakeup) after COMMIT. Each records the pouch's key_gen as it is then.
#pragma once

#include <string>
#include <vector>

#include "common/db/pool.h"

namespace pouch::model {

// Appends `kind` events ("roster", "key_rotation") to every listed pouch (locks them).
void append_pouch_events(db::Conn& conn, const std::vector<std::string>& pouch_ids,
                         const std::string& kind, const std::string& device_id);

// Appends a `roster` event to every pouch of the account (the roster changed); returns their
// ids, for the wake-ups after COMMIT. `device_id` is the writing device, "" for the web.
std::vector<std::string> append_roster_events(db::Conn& conn, const std::string& account_id,
                                              const std::string& device_id);

}  // namespace pouch::model
