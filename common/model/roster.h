// roster.h -- appending to an account's roster (decisions §4, §6): the signed statements that say
// which members (browser, devices) hold the account's keys. Runs inside the caller's
// transaction; roster changes of one account are serialised by an advisory lock.
#pragma once

#include <string>

#include <rapidjson/document.h>

#include "common/db/pool.h"

namespace pouch::model {

// Serialises roster changes of one account (transaction-scoped advisory lock).
void lock_roster(db::Conn& conn, const std::string& account_id);

// Appends statements to the account's roster; returns the index of the first one.
// An identical statement already present is skipped (a retried request appends nothing);
// `appended`, when given, receives how many were really appended.
long long append_roster(db::Conn& conn, const std::string& account_id,
                        const rapidjson::Value& statements, long long* appended = nullptr);

}  // namespace pouch::model
