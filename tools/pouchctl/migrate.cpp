// migrate.cpp -- `pouchctl migrate [--dir DIR]`: applies the numbered sql/*.sql files not yet
// recorded in schema_migrations, each in its own transaction, in name order (decisions §10).
// Relies on common/db (libpq) and a session advisory lock so concurrent runs take turns.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/db/pool.h"
#include "tools/pouchctl/commands.h"

namespace fs = std::filesystem;

namespace {

// Arbitrary but fixed: every pouchctl migrate run contends for the same lock.
constexpr const char* kLockSql = "SELECT pg_advisory_lock(7506104851)";
constexpr const char* kUnlockSql = "SELECT pg_advisory_unlock(7506104851)";

const pouch::db::Statement kRecord{"migrate_record",
                                   "INSERT INTO schema_migrations (version) VALUES ($1)"};

// The default "sql" is looked up in the current directory first, then above the binary
// (build/bin/pouchctl -> ../../sql; sanitizer builds sit one level deeper), so the tool
// works from anywhere in a checkout.
fs::path resolve_dir(const std::string& given) {
    if (!given.empty()) return given;
    if (fs::is_directory("sql")) return "sql";
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        fs::path dir = exe.parent_path();
        for (int up = 0; up < 4 && dir.has_parent_path() && dir != dir.parent_path(); ++up) {
            dir = dir.parent_path();
            if (fs::is_regular_file(dir / "sql" / "001_init.sql")) return dir / "sql";
        }
    }
    return "sql";
}

bool read_file(const fs::path& p, std::string* out) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return false;
    std::ostringstream ss;
    ss << in.rdbuf();
    *out = ss.str();
    return static_cast<bool>(in) || in.eof();
}

}  // namespace

namespace pouchctl {

int cmd_migrate(const Args& args) {
    std::string dir_arg;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--dir" && i + 1 < args.size()) {
            dir_arg = args[++i];
        } else {
            std::fprintf(stderr, "usage: pouchctl migrate [--dir DIR]\n");
            return 2;
        }
    }
    fs::path dir = resolve_dir(dir_arg);
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.is_regular_file() && e.path().extension() == ".sql") files.push_back(e.path());
    if (ec) {
        std::fprintf(stderr, "pouchctl migrate: cannot read %s: %s\n", dir.c_str(),
                     ec.message().c_str());
        return 1;
    }
    std::sort(files.begin(), files.end(),
              [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });

    const char* env = std::getenv("POUCH_DATABASE_URL");
    pouch::db::Conn conn(env && *env ? env : "postgresql:///pouch");
    if (!conn.ensure_connected()) {
        std::fprintf(stderr, "pouchctl migrate: cannot connect to the database: %s",
                     conn.last_error().c_str());
        return 1;
    }
    std::string current;
    try {
        conn.exec_sql(kLockSql);
        conn.exec_sql(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version text PRIMARY KEY,"
            " applied_at timestamptz NOT NULL DEFAULT now())");
        std::set<std::string> applied;
        pouch::db::Result r = conn.exec_sql("SELECT version FROM schema_migrations");
        for (int i = 0; i < r.rows(); ++i) applied.insert(r.text(i, 0));

        int count = 0;
        for (const auto& f : files) {
            current = f.stem().string();
            if (applied.count(current)) continue;
            std::string sql;
            if (!read_file(f, &sql)) {
                std::fprintf(stderr, "pouchctl migrate: cannot read %s\n", f.c_str());
                return 1;
            }
            pouch::db::Transaction tx(conn);
            conn.exec_sql(sql);
            conn.exec(kRecord, {current});
            tx.commit();
            std::printf("applied %s\n", current.c_str());
            ++count;
        }
        conn.exec_sql(kUnlockSql);
        if (count == 0)
            std::printf("up to date (%zu migrations)\n", applied.size());
        else
            std::printf("applied %d migration%s\n", count, count == 1 ? "" : "s");
    } catch (const pouch::Error& e) {
        std::fprintf(stderr, "pouchctl migrate: %s%s%s\n", current.empty() ? "" : current.c_str(),
                     current.empty() ? "" : ": ", e.what());
        return 1;
    }
    return 0;
}

}  // namespace pouchctl
