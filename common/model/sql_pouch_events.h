// sql_pouch_events.h -- the statements of the per-pouch events that are not commits
// (pouch_events.cpp), in a header so tests/unit/db_statements_test.cpp checks them against the
// schema.
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "common/db/query.h"

namespace pouch::model::sql {

struct PouchIds {
    std::vector<std::string> pouch_ids;
    static auto db_params() { return std::tuple{db::col("pouch_ids", &PouchIds::pouch_ids)}; }
};

struct AppendEventsParams {
    std::vector<std::string> pouch_ids;
    std::string kind;
    std::optional<std::string> device_id;  // NULL: an operator's or the server's own
    static auto db_params() {
        return std::tuple{db::col("pouch_ids", &AppendEventsParams::pouch_ids),
                          db::col("kind", &AppendEventsParams::kind),
                          db::col("device_id", &AppendEventsParams::device_id)};
    }
};

struct OfAccount {
    std::string account_id;
    static auto db_params() { return std::tuple{db::col("account_id", &OfAccount::account_id)}; }
};

struct PouchId {
    std::string id;
    static auto db_columns() { return std::tuple{db::col("id", &PouchId::id)}; }
};

inline const db::Query<PouchIds, PouchId> kLockPouches{
    "model_lock_pouches",
    "SELECT id FROM pouches WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE"};

inline const db::Query<AppendEventsParams> kAppendEvents{
    "model_append_events",
    "WITH bumped AS ("
    "  UPDATE pouches SET high_water = high_water + 1 WHERE id = ANY($1::uuid[])"
    "  RETURNING id, epoch, high_water)"
    " INSERT INTO events (pouch_id, epoch, seq, kind, device_id)"
    " SELECT id, epoch, high_water, $2, $3::uuid FROM bumped"};

inline const db::Query<OfAccount, PouchId> kAccountPouches{
    "model_account_pouches", "SELECT id FROM pouches WHERE account_id = $1 ORDER BY id"};

}  // namespace pouch::model::sql
