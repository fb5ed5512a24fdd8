// audit_record.cpp -- see audit_record.h.
#include "handlers/admin/audit_record.h"

#include "handlers/admin/sql.h"

namespace pouch::admin {

void write_audit(db::Conn& conn, const api::Call& call, const std::string& action,
                 const std::string& target, const json::Raw& before, const json::Raw& after,
                 const std::optional<std::string>& reason) {
    std::optional<std::string> request_id;
    if (!call.req.request_id.empty()) request_id = call.req.request_id;
    conn.run(sql::kInsertAudit, {.actor_user_id = call.who().user_id,
                                 .action = action,
                                 .target = target,
                                 .before = before,
                                 .after = after,
                                 .reason = reason,
                                 .request_id = request_id});
}

}  // namespace pouch::admin
