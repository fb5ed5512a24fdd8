// db_statements_test.cpp -- every typed statement (common/db/query.h) prepared against the
// migrated schema of the real PostgreSQL the unit suite runs on, and compared with its structs
// through PQdescribePrepared: the number of parameters and each one's type, the result's column
// names (exactly the row struct's, in order) and types. A statement whose SQL and structs
// disagree fails here, not as a 500 in a smoke test. The statements are registered by the
// headers below; a check reads the sources so that no typed statement is left out of them.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "common/db/query.h"
#include "tests/unit/test_env.h"

// Every header that declares typed statements.
#include "common/auth/sql_caller.h"
#include "common/auth/sql_replay.h"
#include "common/http/sql_health.h"
#include "common/model/pouch.h"
#include "common/model/sql.h"
#include "common/model/sql_access.h"
#include "common/model/sql_identity.h"
#include "handlers/account/sql.h"
#include "handlers/admin/sql.h"
#include "handlers/cliauth/sql.h"
#include "handlers/devices/sql.h"
#include "handlers/shares/sql.h"
#include "tools/pouchctl/sql_gc.h"
#include "tools/pouchctl/sql_user_role.h"
#include "handlers/sync/sql_blobs.h"
#include "handlers/sync/sql_commit.h"
#include "handlers/sync/sql_pouches.h"
#include "handlers/sync/sql_reads.h"

namespace fs = std::filesystem;

namespace pouch::db {
namespace {

std::string names(const std::vector<Oid>& oids) {
    std::string s;
    for (Oid o : oids) s += (s.empty() ? "" : "|") + std::to_string(o);
    return s;
}

bool allowed(const FieldShape& f, Oid got) {
    return std::find(f.types.begin(), f.types.end(), got) != f.types.end();
}

// The errors of one statement's shape against what PostgreSQL says of it; empty when it fits.
std::vector<std::string> mismatches(PGconn* c, const Shape& s) {
    std::vector<std::string> out;
    std::string name = std::string("check_") + s.name;
    PGresult* prep = PQprepare(c, name.c_str(), s.sql, 0, nullptr);
    bool ok = PQresultStatus(prep) == PGRES_COMMAND_OK;
    std::string err = ok ? "" : PQresultErrorMessage(prep);
    PQclear(prep);
    if (!ok) return {"does not prepare: " + err};
    PGresult* d = PQdescribePrepared(c, name.c_str());
    if (PQresultStatus(d) != PGRES_COMMAND_OK) {
        out.push_back(std::string("cannot be described: ") + PQresultErrorMessage(d));
        PQclear(d);
        PQclear(PQexec(c, ("DEALLOCATE " + name).c_str()));
        return out;
    }
    int np = PQnparams(d);
    if (np != static_cast<int>(s.params.size()))
        out.push_back("takes " + std::to_string(np) + " parameters, its struct binds " +
                      std::to_string(s.params.size()));
    for (int i = 0; i < np && i < static_cast<int>(s.params.size()); ++i) {
        const FieldShape& f = s.params[static_cast<size_t>(i)];
        Oid got = PQparamtype(d, i);
        if (!allowed(f, got))
            out.push_back("$" + std::to_string(i + 1) + " (" + f.name + ") is of type oid " +
                          std::to_string(got) + ", its field's type allows " + names(f.types));
    }
    int nf = PQnfields(d);
    if (nf != static_cast<int>(s.columns.size()))
        out.push_back("returns " + std::to_string(nf) + " columns, its row struct reads " +
                      std::to_string(s.columns.size()));
    for (int i = 0; i < nf && i < static_cast<int>(s.columns.size()); ++i) {
        const FieldShape& f = s.columns[static_cast<size_t>(i)];
        std::string got_name = PQfname(d, i);
        if (got_name != f.name)
            out.push_back("column " + std::to_string(i + 1) + " is " + got_name +
                          ", its row struct's field there is " + f.name);
        Oid got = PQftype(d, i);
        if (!allowed(f, got))
            out.push_back("column " + got_name + " is of type oid " + std::to_string(got) +
                          ", its field's type allows " + names(f.types));
    }
    PQclear(d);
    PQclear(PQexec(c, ("DEALLOCATE " + name).c_str()));
    return out;
}

TEST(DbStatements, EveryTypedStatementMatchesItsStructs) {
    REQUIRE_DB();
    PGconn* c = PQconnectdb(url.c_str());
    ASSERT_EQ(PQstatus(c), CONNECTION_OK) << PQerrorMessage(c);
    ASSERT_FALSE(registry().empty());
    std::set<std::string> seen;
    for (const Shape* s : registry()) {
        EXPECT_TRUE(seen.insert(s->name).second) << "two statements are named " << s->name;
        for (const std::string& m : mismatches(c, *s)) ADD_FAILURE() << s->name << ": " << m;
    }
    PQfinish(c);
}

// A row struct that disagrees with its SQL is caught: the checker itself is tested on
// statements that are wrong on purpose (registered here only, never run by a handler).
struct OneText {
    std::string id;
    static auto db_params() { return std::tuple{col("id", &OneText::id)}; }
};
struct IdAndName {
    std::string id;
    std::string name;
    static auto db_columns() {
        return std::tuple{col("id", &IdAndName::id), col("name", &IdAndName::name)};
    }
};
struct Count {
    long long n = 0;
    static auto db_columns() { return std::tuple{col("n", &Count::n)}; }
};

TEST(DbStatements, TheCheckFindsEachKindOfMismatch) {
    REQUIRE_DB();
    PGconn* c = PQconnectdb(url.c_str());
    ASSERT_EQ(PQstatus(c), CONNECTION_OK) << PQerrorMessage(c);
    auto expect = [&](const Shape& s, const std::string& part) {
        auto m = mismatches(c, s);
        std::string all;
        for (const auto& x : m) all += x + "\n";
        EXPECT_NE(all.find(part), std::string::npos) << s.name << ": " << all;
    };
    // Columns in another order than the struct's.
    Shape order{"t_order", "SELECT name, id FROM devices WHERE id = $1",
                {{"id", {oid::text, oid::uuid}, ""}},
                {{"id", {oid::text, oid::uuid}, ""}, {"name", {oid::text}, ""}}, true};
    expect(order, "column 1 is name, its row struct's field there is id");
    // A column missing.
    Shape missing{"t_missing", "SELECT id FROM devices WHERE id = $1",
                  {{"id", {oid::uuid}, ""}},
                  {{"id", {oid::uuid}, ""}, {"name", {oid::text}, ""}}, true};
    expect(missing, "returns 1 columns, its row struct reads 2");
    // A parameter too many, and a parameter of the wrong type.
    Shape params{"t_params", "SELECT count(*) AS n FROM devices WHERE id = $1 AND $2::int > 0",
                 {{"id", {oid::text}, ""}}, {{"n", {oid::int8}, ""}}, true};
    expect(params, "takes 2 parameters, its struct binds 1");
    expect(params, "$1 (id) is of type oid 2950");
    // A column of the wrong type.
    Shape type{"t_type", "SELECT count(*)::text AS n FROM devices", {}, {{"n", {oid::int8}, ""}}, true};
    expect(type, "column n is of type oid 25");
    // SQL that does not prepare.
    Shape broken{"t_broken", "SELECT nope FROM devices", {}, {}, true};
    expect(broken, "does not prepare");
    // And the structs as a Query sees them.
    Query<OneText, Count> typed{"t_typed", "SELECT count(*) AS n FROM devices WHERE id = $1"};
    EXPECT_TRUE(mismatches(c, typed.shape()).empty());
    Query<OneText, IdAndName> wrong{"t_wrong", "SELECT id FROM devices WHERE id = $1"};
    EXPECT_FALSE(mismatches(c, wrong.shape()).empty());
    PQfinish(c);
    // Both were registered; the whole-registry test must not see them.
    auto& all = registry();
    std::erase_if(all, [&](const Shape* s) { return s == &typed.shape() || s == &wrong.shape(); });
}

// Every `db::Query<...> kName{"name"` in the sources is registered here, so none escapes the
// check by living in a header this test does not include.
TEST(DbStatements, EveryTypedStatementInTheSourcesIsChecked) {
    ASSERT_TRUE(fs::is_directory("common")) << "run from the repository root";
    std::set<std::string> registered;
    for (const Shape* s : registry()) registered.insert(s->name);
    const std::regex decl(R"re(db::Query<[^;{]*>\s+k\w+\s*\{\s*"([a-z0-9_]+)")re");
    int found = 0;
    for (const char* dir : {"common", "handlers", "tools"}) {
        for (const auto& e : fs::recursive_directory_iterator(dir)) {
            auto ext = e.path().extension();
            if (!e.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
            std::ifstream f(e.path());
            std::stringstream text;
            text << f.rdbuf();
            std::string src = text.str();
            for (std::sregex_iterator it(src.begin(), src.end(), decl), end; it != end; ++it) {
                ++found;
                EXPECT_TRUE(registered.count((*it)[1])) << e.path() << " declares " << (*it)[1]
                                                        << ", which this test does not include";
            }
        }
    }
    EXPECT_GE(found, static_cast<int>(registered.size()));
}

}  // namespace
}  // namespace pouch::db
