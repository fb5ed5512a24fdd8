// audit_record.h -- the audit record every admin write leaves (decisions §7): the acting
// admin, the action, its target, before/after as JSON objects, the request's optional reason
// and the request id; written inside the caller's transaction (the same shape as pouchctl's).
#pragma once

#include <optional>
#include <string>

#include "common/api/route.h"
#include "common/db/pool.h"
#include "common/json/described.h"

namespace pouch::admin {

void write_audit(db::Conn& conn, const api::Call& call, const std::string& action,
                 const std::string& target, const json::Raw& before, const json::Raw& after,
                 const std::optional<std::string>& reason);

// The same with before/after given as described structs (json/described.h).
template <json::Described T>
void write_audit(db::Conn& conn, const api::Call& call, const std::string& action,
                 const std::string& target, const T& before, const T& after,
                 const std::optional<std::string>& reason) {
    write_audit(conn, call, action, target, json::Raw{json::to_json(before)},
                json::Raw{json::to_json(after)}, reason);
}

}  // namespace pouch::admin
