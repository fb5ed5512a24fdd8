// route_matrix_test.cpp -- the permission matrix read from the route tables: every route of
// every handler group (handlers/<group>/routes.h, the one table per group main.cpp installs and
// the pipeline runs: tests/unit/route_tables.h) against the answers
// tests/smoke/matrix.tsv expects through nginx for each kind of caller. Who may call a route is
// declared once, in its table; this proves that declaration says what the matrix says (the
// smoke suite proves the running service answers the matrix).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/unit/route_tables.h"

namespace pouch::api {
namespace {

struct Row {
    std::string method, path;
    std::map<std::string, std::string> answer;  // caller kind -> "STATUS [code]"
};

const std::vector<std::string> kCallers = {"none",      "web_a",   "web_b", "cli_a",
                                           "revoked_a", "support", "admin"};

// The rows of matrix.tsv; a line that is neither blank, a comment, nor a row of 3 + one column
// per caller fails the test that reads it (a row lost to a stray tab would go unchecked).
std::vector<Row> matrix() {
    std::ifstream f("tests/smoke/matrix.tsv");
    std::vector<Row> rows;
    std::string line;
    for (int number = 1; std::getline(f, line); ++number) {
        if (line.find_first_not_of(" \t\r") == std::string::npos || line[0] == '#') continue;
        std::vector<std::string> cols;
        std::stringstream ss(line);
        std::string col;
        while (std::getline(ss, col, '\t')) cols.push_back(col);
        if (cols.size() != 3 + kCallers.size()) {
            ADD_FAILURE() << "tests/smoke/matrix.tsv line " << number << " has " << cols.size()
                          << " tab-separated columns, want " << 3 + kCallers.size() << ": " << line;
            continue;
        }
        Row r{cols[0], cols[1].substr(0, cols[1].find('?')), {}};
        for (size_t i = 0; i < kCallers.size(); ++i) r.answer[kCallers[i]] = cols[3 + i];
        rows.push_back(r);
    }
    return rows;
}

std::vector<std::string> segments(const std::string& path) {
    std::vector<std::string> out;
    std::stringstream ss(path.substr(1));
    std::string s;
    while (std::getline(ss, s, '/')) out.push_back(s);
    return out;
}

bool is_placeholder(const std::string& s) {
    return s.size() > 2 && s.front() == '{';
}

// A matrix path ("/v1/pouches/{pouchB}/shares") names a route pattern when its literal
// segments are the pattern's and its placeholders stand where the pattern has params.
bool names(const std::string& path, const Route& r) {
    auto a = segments(path), b = segments(r.pattern);
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (is_placeholder(a[i]) != is_placeholder(b[i]) || (!is_placeholder(a[i]) && a[i] != b[i]))
            return false;
    return true;
}

const Route* route_of(const Row& row) {
    const Route* found = nullptr;
    for (const Route* r : all_routes())
        if (r->method == row.method && names(row.path, *r)) {
            EXPECT_EQ(found, nullptr) << row.method << " " << row.path << " names two routes";
            found = r;
        }
    return found;
}

bool success(const std::string& answer) {
    return !answer.empty() && answer[0] == '2';
}

TEST(RouteMatrix, EveryRouteIsInTheMatrixAndEveryRowNamesOneRoute) {
    std::vector<Row> rows = matrix();
    ASSERT_GT(rows.size(), 40u) << "tests/smoke/matrix.tsv not found or empty";
    std::map<const Route*, int> seen;
    for (const Row& row : rows) {
        if (row.path == "/v1/health") continue;  // every group's server adds it
        const Route* r = route_of(row);
        EXPECT_NE(r, nullptr) << row.method << " " << row.path << " names no route";
        if (r) ++seen[r];
    }
    for (const Route* r : all_routes())
        EXPECT_GT(seen[r], 0) << r->method << " " << r->pattern << " is missing from matrix.tsv";
}

TEST(RouteMatrix, WhoMayCallIsWhatTheMatrixExpects) {
    for (const Row& row : matrix()) {
        const Route* r = route_of(row);
        if (!r) continue;
        const auto& a = row.answer;
        std::string where = row.method + " " + row.path;
        switch (r->who) {
            case Who::public_:
            case Who::dpop:
                EXPECT_NE(a.at("none"), "401 unauthenticated") << where;
                EXPECT_NE(a.at("revoked_a"), "401 device_revoked") << where;
                break;
            case Who::any:
                EXPECT_EQ(a.at("none"), "401 unauthenticated") << where;
                EXPECT_EQ(a.at("revoked_a"), "401 device_revoked") << where;
                EXPECT_NE(a.at("web_a"), "403 wrong_caller") << where;
                EXPECT_NE(a.at("cli_a"), "403 wrong_caller") << where;
                break;
            case Who::web:
                EXPECT_EQ(a.at("none"), "401 unauthenticated") << where;
                EXPECT_EQ(a.at("cli_a"), "403 wrong_caller") << where;
                EXPECT_NE(a.at("web_a"), "403 wrong_caller") << where;
                break;
            case Who::cli:
                EXPECT_EQ(a.at("none"), "401 unauthenticated") << where;
                for (const char* web : {"web_a", "web_b", "support", "admin"})
                    EXPECT_EQ(a.at(web), "403 wrong_caller") << where << " as " << web;
                EXPECT_TRUE(success(a.at("cli_a"))) << where;
                break;
            case Who::admin:
                EXPECT_EQ(a.at("none"), "401 unauthenticated") << where;
                EXPECT_EQ(a.at("cli_a"), "403 wrong_caller") << where;
                for (const char* user : {"web_a", "web_b", "support"})
                    EXPECT_EQ(a.at(user), "403 forbidden") << where << " as " << user;
                EXPECT_TRUE(success(a.at("admin"))) << where;
                break;
        }
    }
}

// The phases a route declares keep the contract's limits (decisions §3): bodies of the
// envelope-carrying routes up to 16 MiB, the commit 8 MiB, share create 12 MiB, blob upload
// 64 MiB streamed, blob check 128 KiB, the account identity (up to 2,000 identity envelopes)
// 4 MiB, everything else 64 KiB.
TEST(RouteMatrix, BodyLimitsAreTheDecidedOnes) {
    std::map<std::string, size_t> want = {
        {"POST /v1/account/roster/genesis", 16 * http::kMiB},
        {"PUT /v1/account/identity", 4 * http::kMiB},
        {"POST /v1/cli-auth/requests/{id:uuid}/approve", 16 * http::kMiB},
        {"POST /v1/devices/{id:uuid}/revoke", 16 * http::kMiB},
        {"POST /v1/pouches", 16 * http::kMiB},
        {"POST /v1/pouches/{pouchId:uuid}/key-envelopes", 16 * http::kMiB},
        {"POST /v1/pouches/{pouchId:uuid}/operations", 8 * http::kMiB},
        {"POST /v1/pouches/{pouchId:uuid}/shares", 12 * http::kMiB},
        {"PUT /v1/pouches/{pouchId:uuid}/blobs/{blobId:blobid}", 64 * http::kMiB},
        {"POST /v1/pouches/{pouchId:uuid}/blobs/check", 128 * http::kKiB},
        // docs/SHARING.md §9: a statement with a rotation's envelopes; 1,000 grants.
        {"POST /v1/pouches/{pouchId:uuid}/access", 16 * http::kMiB},
        {"POST /v1/pouches/{pouchId:uuid}/invitations", 1 * http::kMiB},
        {"POST /v1/invitations/{id:uuid}/accept", 16 * http::kMiB},
        {"POST /v1/invitations/{id:uuid}/withdraw", 16 * http::kMiB},
    };
    for (const Route* r : all_routes()) {
        std::string key = r->method + " " + r->pattern;
        size_t expected = want.count(key) ? want[key] : 64 * http::kKiB;
        EXPECT_EQ(r->body_limit, expected) << key;
    }
}

// A route under /v1/pouches/{pouchId} declares its pouch scope, so the pipeline loads the row
// (404 for another account's) and no handler loads it again; only the commit locks it. The
// one exception: an invited account reads a pouch's access list before it is in the pouch
// (docs/SHARING.md §9), so that route checks the account's row itself.
TEST(RouteMatrix, PouchRoutesDeclareTheirPouchScope) {
    for (const Route* r : all_routes()) {
        std::string key = r->method + " " + r->pattern;
        bool under_pouch = r->pattern.find("{pouchId:") != std::string::npos &&
                           key != "GET /v1/pouches/{pouchId:uuid}/access";
        EXPECT_EQ(r->pouch != PouchScope::none, under_pouch) << key;
        bool commit = key == "POST /v1/pouches/{pouchId:uuid}/operations";
        EXPECT_EQ(r->pouch == PouchScope::write, commit) << key;
    }
}

}  // namespace
}  // namespace pouch::api

namespace pouch::api {
namespace {

// A typed handler decodes the body into its request struct, so its route must validate against
// that struct's schema: every row of every table agrees, and a row that does not is named.
TEST(RouteTables, TypedHandlersDecodeTheSchemaTheirRouteValidates) {
    int typed = 0;
    for (auto table : {std::span<const Entry>(account::kRoutes), std::span<const Entry>(cliauth::kRoutes),
                       std::span<const Entry>(devices::kRoutes), std::span<const Entry>(sync::kRoutes),
                       std::span<const Entry>(shares::kRoutes), std::span<const Entry>(admin::kRoutes)}) {
        for (const Entry& e : table) {
            EXPECT_EQ(e.schema_mismatch(), "");
            if (e.request_schema) ++typed;
        }
    }
    EXPECT_GE(typed, 2);
    Entry wrong(devices::kRename, api::typed(devices::cursor));  // CursorRequest behind rename's route
    EXPECT_NE(wrong.schema_mismatch().find("PATCH /v1/devices/{id:uuid}"), std::string::npos);
}

}  // namespace
}  // namespace pouch::api
