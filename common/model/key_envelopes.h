// key_envelopes.h -- storing key envelopes (decisions §5.6) for approve, revoke and
// POST key-envelopes: every pouch must be the account's, every envelope made by the given
// member, and a key_gen above a pouch's current one raises it with a `key_rotation` event.
// Runs inside the caller's transaction; returns the pouches whose events changed so the
// caller can publish wake-ups after COMMIT.
#pragma once

#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "common/db/pool.h"

namespace pouch::model {

struct StoredEnvelopes {
    std::vector<std::string> rotated_pouches;  // pouch ids that got a key_rotation event
};

// Which key generations a request may store (decisions §13), checked per pouch against the
// pouch's current key_gen under its row lock; a breach is 409 key_gen_conflict with details
// {current_key_gen, pouch_id}:
//   rotation: every envelope of one pouch in the request has the same key_gen, the current one
//             or current + 1 (which raises it): POST key-envelopes, revoke, a new pouch;
//   history:  each key_gen is at most the current one, so a newly approved member can be given
//             the keys of every generation its pouches' revisions were written under.
enum class KeyGenRule { rotation, history };

// `envelopes` is the validated JSON array; `pointer` its JSON Pointer for error fields
// ("/key_envelopes" or "/roster/key_envelopes"). Throws validation_failed naming the first
// bad envelope when a pouch is not the account's, created_by_member differs from
// `creator_member_id`, or (pouch, member, key_gen) repeats within the request;
// `require_active_member` also checks member_id is an active member. A (pouch, member,
// key_gen) already stored is a retry when the envelope is identical (nothing is written) and
// 409 key_gen_conflict when it differs: an envelope is never silently dropped. The caller
// holds the account row lock (model/usage.h) so the lock order account -> pouches holds.
StoredEnvelopes store_key_envelopes(db::Conn& conn, const std::string& account_id,
                                    const rapidjson::Value& envelopes, const std::string& pointer,
                                    const std::string& creator_member_id,
                                    const std::string& device_id, bool require_active_member,
                                    KeyGenRule rule);

// Revocation (decisions §13): deletes the envelopes `member_id` created above the current
// key_gen of their pouch, so the remover's rotation to current + 1 always goes through.
void drop_envelopes_above_current(db::Conn& conn, const std::string& account_id,
                                  const std::string& member_id);

}  // namespace pouch::model
