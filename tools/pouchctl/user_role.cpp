// user_role.cpp -- `pouchctl user role EMAIL ROLE [--reason R]`: the operator's way to set a
// role (and make the first admin, decisions §1). Same rules, locking and audit record as op 12
// (handlers/admin/roles.cpp, which locks by id where this locks by email): the last admin
// cannot be demoted; an unchanged role writes nothing; actor_user_id NULL marks the operator.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/db/pool.h"
#include "tools/pouchctl/commands.h"

namespace {

// The target and every admin, locked in id order in one statement: two concurrent demotions
// then serialize instead of each seeing the other admin still present, and cannot deadlock.
const pouch::db::Statement kLockUsers{
    "user_role_lock",
    "SELECT id, email, role FROM users WHERE email = $1 OR role = 'admin' ORDER BY id FOR UPDATE"};
const pouch::db::Statement kSetRole{"user_role_set", "UPDATE users SET role = $2 WHERE id = $1"};
const pouch::db::Statement kAudit{
    "user_role_audit",
    "INSERT INTO audit_log (actor_user_id, action, target, before, after, reason, request_id) "
    "VALUES (NULL, 'user.role', $1, jsonb_build_object('role', $2::text), "
    "jsonb_build_object('role', $3::text), $4, NULL)"};

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
    pouch::db::Param reason;
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
        pouch::db::Result r = conn.exec(kLockUsers, {email});
        int target = -1;
        int admins = 0;
        for (int i = 0; i < r.rows(); ++i) {
            if (r.text(i, "email") == email) target = i;
            if (r.text(i, "role") == "admin") ++admins;
        }
        if (target < 0) {
            std::fprintf(stderr, "pouchctl user: no user with email %s\n", email.c_str());
            return 1;
        }
        std::string id = r.text(target, "id");
        std::string previous = r.text(target, "role");
        if (previous == role) {
            std::printf("%s already has role %s\n", email.c_str(), role.c_str());
            return 0;
        }
        if (previous == "admin" && admins <= 1) {
            std::fprintf(stderr, "pouchctl user: refusing to demote the last admin\n");
            return 1;
        }
        conn.exec(kSetRole, {id, role});
        conn.exec(kAudit, {id, previous, role, reason});
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
