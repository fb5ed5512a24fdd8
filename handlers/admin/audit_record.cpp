// audit_record.cpp -- see audit_record.h.
#include "handlers/admin/audit_record.h"

#include "common/json/value.h"
#include "handlers/admin/sql.h"

namespace pouch::admin {

void write_audit(db::Conn& conn, const api::Call& call, const std::string& action,
                 const std::string& target, const std::string& before_json,
                 const std::string& after_json) {
    db::Param request_id;
    if (!call.req.request_id.empty()) request_id = call.req.request_id;
    conn.exec(sql::kInsertAudit, {call.who().user_id, action, target, before_json, after_json,
                                  json::opt_text(call.body, "reason"), request_id});
}

}  // namespace pouch::admin
