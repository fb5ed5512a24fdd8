// user_role.cpp -- `pouchctl user role EMAIL ROLE [--reason R]`: the operator's way to set a
// role (and make the first admin, decisions §1). Same rules, locking and audit record as op 12
// (handlers/admin/roles.cpp, which locks by id where this locks by email): the last admin
// cannot be demoted; an unchanged role writes nothing; actor_user_id NULL marks the operator.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "common/db/pool.h"
#include "tools/pouchctl/commands.h"
#include "tools/pouchctl/sql_user_role.h"

namespace {

int usage() {
    std::fprintf(stderr, "usage: pouchctl user role EMAIL user|support|admin [--reason R]\n");
    return 2;
}

std::string normalize_email(std::string e) {
    auto not_space = [](unsigned char c) { return !std::isspace(c); };
    e.erase(e.begin(), std::find_if(e.begin(), e.end(), not_space));
    e.erase(std::find_if(e.rbegin(), e.rend(), not_space).base(), e.end());
    std::transform(e.begin(), e.end(), e.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return e;
}

}  // namespace

namespace pouchctl {

int cmd_user(const Args& args) {
    if (args.size() < 3 || args[0] != "role") return usage();
    std::string email = normalize_email(args[1]);
    std::string role = args[2];
    std::optional<std::string> reason;
    for (size_t i = 3; i < args.size(); ++i) {
        if (args[i] == "--reason" && i + 1 < args.size())
            reason = args[++i];
        else
            return usage();
    }
    if (role != "user" && role != "support" && role != "admin") return usage();
    if (reason && reason->size() > 500) {
        std::fprintf(stderr, "pouchctl user: reason is longer than 500 characters\n");
        return 2;
    }

    const char* env = std::getenv("POUCH_DATABASE_URL");
    pouch::db::Conn conn(env && *env ? env : "postgresql:///pouch");
    if (!conn.ensure_connected()) {
        std::fprintf(stderr, "pouchctl user: cannot connect to the database: %s",
                     conn.last_error().c_str());
        return 1;
    }
    try {
        pouch::db::Transaction tx(conn);
        std::vector<sql::UserRow> rows = conn.rows(sql::kLockUsers, {.email = email});
        const sql::UserRow* target = nullptr;
        int admins = 0;
        for (const sql::UserRow& u : rows) {
            if (u.email == email) target = &u;
            if (u.role == "admin") ++admins;
        }
        if (!target) {
            std::fprintf(stderr, "pouchctl user: no user with email %s\n", email.c_str());
            return 1;
        }
        std::string id = target->id;
        std::string previous = target->role;
        if (previous == role) {
            std::printf("%s already has role %s\n", email.c_str(), role.c_str());
            return 0;
        }
        if (previous == "admin" && admins <= 1) {
            std::fprintf(stderr, "pouchctl user: refusing to demote the last admin\n");
            return 1;
        }
        conn.run(sql::kSetRole, {.id = id, .role = role});
        conn.run(sql::kAudit,
                 {.target = id, .before_role = previous, .after_role = role, .reason = reason});
        tx.commit();
        std::printf("%s (%s): role %s -> %s\n", email.c_str(), id.c_str(), previous.c_str(),
                    role.c_str());
    } catch (const pouch::Error& e) {
        std::fprintf(stderr, "pouchctl user: %s\n", e.what());
        return 1;
    }
    return 0;
}

}  // namespace pouchctl
