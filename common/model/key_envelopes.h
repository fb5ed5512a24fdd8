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
#include "common/redis/client.h"

namespace pouch::model {

struct StoredEnvelopes {
    std::vector<std::string> rotated_pouches;  // pouch ids that got a key_rotation event
};

// `envelopes` is the validated JSON array; `pointer` its JSON Pointer for error fields
// ("/key_envelopes" or "/roster/key_envelopes"). Throws validation_failed naming the first
// bad envelope when a pouch is not the account's or created_by_member differs from
// `creator_member_id`. `require_active_member` also checks member_id is an active member.
StoredEnvelopes store_key_envelopes(db::Conn& conn, const std::string& account_id,
                                    const rapidjson::Value& envelopes, const std::string& pointer,
                                    const std::string& creator_member_id,
                                    const std::string& device_id, bool require_active_member);

// Appends `kind` events ("roster", "key_rotation") to every listed pouch (locks them).
void append_pouch_events(db::Conn& conn, const std::vector<std::string>& pouch_ids,
                         const std::string& kind, const std::string& device_id);

// Serialises roster changes of one account (transaction-scoped advisory lock).
void lock_roster(db::Conn& conn, const std::string& account_id);

// Appends statements to the account's roster; returns the index of the first one.
// An identical statement already present is skipped (a retried request appends nothing);
// `appended`, when given, receives how many were really appended.
long long append_roster(db::Conn& conn, const std::string& account_id,
                        const rapidjson::Value& statements, long long* appended = nullptr);

// The account's pouch ids, for roster events.
std::vector<std::string> account_pouches(db::Conn& conn, const std::string& account_id);

// The Redis channel that wakes event long-polls of a pouch.
std::string events_channel(const std::string& pouch_id);

// Publishes a wake-up for each pouch (after COMMIT). Stops at the first failure: Redis is
// then down or stalled, waiters re-read the database every second by themselves, and 2,000
// publishes each waiting out a timeout would hold the request for minutes.
void wake_pouches(redis::Client& redis, const std::vector<std::string>& pouch_ids);

}  // namespace pouch::model
