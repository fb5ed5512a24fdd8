// audit_record.h -- the audit record every admin write leaves (decisions §7): the acting
// admin, the action, its target, before/after as JSON, the optional "reason" of the body and
// the request id; written inside the caller's transaction (the same shape as pouchctl's).
#pragma once

#include <string>

#include "common/api/route.h"
#include "common/db/pool.h"

namespace pouch::admin {

void write_audit(db::Conn& conn, const api::Call& call, const std::string& action,
                 const std::string& target, const std::string& before_json,
                 const std::string& after_json);

}  // namespace pouch::admin
