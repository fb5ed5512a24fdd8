// pouch.cpp -- reads (and optionally locks) a pouch as an account reaches it into a PouchRow.
#include "common/model/pouch.h"

#include "common/json/out.h"

namespace pouch::model {

std::string_view role_name(Role r) {
    switch (r) {
        case Role::read: return "read";
        case Role::write: return "write";
        case Role::admin: return "admin";
    }
    return "read";
}

std::optional<Role> parse_role(std::string_view name) {
    if (name == "read") return Role::read;
    if (name == "write") return Role::write;
    if (name == "admin") return Role::admin;
    return std::nullopt;
}

bool PouchRow::may(Role need) const {
    std::optional<Role> mine = parse_role(role);
    return mine && static_cast<int>(*mine) >= static_cast<int>(need);
}

Error insufficient_role(const PouchRow& row, Role required) {
    json::Out d;
    d.kv("role", row.role).kv("required", std::string(role_name(required)));
    return Error(Code::insufficient_role,
                 "this needs the role " + std::string(role_name(required)) +
                     " in the pouch; the account's role is " + row.role)
        .with_details(d.done());
}

std::optional<PouchRow> find_pouch(db::Conn& conn, const std::string& pouch_id,
                                   const std::string& account_id, bool for_update) {
    const db::PouchOfAccount key{.pouch_id = pouch_id, .account_id = account_id};
    return conn.maybe_one(for_update ? sql::kPouchForUpdate : sql::kPouch, key);
}

}  // namespace pouch::model
