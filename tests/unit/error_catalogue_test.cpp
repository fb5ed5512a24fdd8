// error_catalogue_test.cpp -- the catalogue (common/types/error_catalogue.def) is the one list of
// codes: docs/API.md's error table is rendered from it (POUCH_WRITE_DOCS=1 rewrites it); nginx's
// static errors and docs/openapi.yaml's error codes use its codes and statuses.
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "common/http/error.h"

namespace pouch {
namespace {

constexpr const char* kApiMd = "docs/API.md";
constexpr const char* kBegin =
    "<!-- error table: generated from common/types/error_catalogue.def; checked by "
    "tests/unit/error_catalogue_test.cpp (POUCH_WRITE_DOCS=1 rewrites it) -->\n";
constexpr const char* kEnd = "<!-- end of error table -->\n";

std::string read(const std::string& path) {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// One row per code, in the catalogue's order (by status); nginx's own statuses after their code.
std::string rendered_table() {
    std::string t = "| HTTP | code | message (default) | when |\n|---|---|---|---|\n";
    for (const CodeEntry& c : kCatalogue) {
        t += "| " + std::to_string(c.status) + " | `" + std::string(c.code) + "` | " +
             std::string(c.message) + " | " + std::string(c.when) + " |\n";
        for (const EdgeEntry& e : kEdgeStatuses)
            if (e.code == c.code)
                t += "| " + std::to_string(e.status) + " | `" + std::string(e.code) +
                     "` | (nginx's) | " + std::string(e.when) + " |\n";
    }
    return t;
}

TEST(ErrorCatalogue, CodesAreUniqueAndIndexedByTheirEnum) {
    std::set<std::string_view> seen;
    for (std::size_t i = 0; i < std::size(kCatalogue); ++i) {
        const CodeEntry& c = kCatalogue[i];
        EXPECT_EQ(static_cast<std::size_t>(c.id), i) << c.code;
        EXPECT_TRUE(seen.insert(c.code).second) << c.code << " is listed twice";
        EXPECT_EQ(http::status_of(c.fault), c.status) << c.code;
        EXPECT_FALSE(c.message.empty()) << c.code;
        EXPECT_FALSE(c.when.empty()) << c.code;
        EXPECT_EQ(c.message.find('|'), std::string_view::npos) << c.code;  // a table cell
        EXPECT_EQ(c.when.find('|'), std::string_view::npos) << c.code;
    }
    for (const EdgeEntry& e : kEdgeStatuses)
        EXPECT_TRUE(seen.count(e.code)) << e.code << " (an nginx status) is not in the catalogue";
}

TEST(ErrorCatalogue, AnErrorTakesItsCodeStatusAndDefaultMessageFromItsEntry) {
    Error e(Code::epoch_mismatch);
    EXPECT_EQ(e.code, "epoch_mismatch");
    EXPECT_EQ(http::status_of(e.fault), 409);
    EXPECT_EQ(e.message, "the pouch's event log has another epoch; resync");
    Error f(Code::validation_failed, "must be at most 254 characters", "/email");
    EXPECT_EQ(f.message, "must be at most 254 characters");
    EXPECT_EQ(f.field, "/email");
    EXPECT_STREQ(f.what(), "must be at most 254 characters");
}

TEST(ErrorCatalogue, ApiMdErrorTableIsTheCatalogue) {
    std::string doc = read(kApiMd);
    ASSERT_FALSE(doc.empty()) << "run from the repository root";
    std::size_t b = doc.find(kBegin);
    std::size_t e = doc.find(kEnd);
    ASSERT_NE(b, std::string::npos) << kApiMd << " lacks the marker " << kBegin;
    ASSERT_NE(e, std::string::npos) << kApiMd << " lacks the marker " << kEnd;
    ASSERT_LT(b, e);
    b += std::string(kBegin).size();
    std::string want = rendered_table();
    if (const char* w = std::getenv("POUCH_WRITE_DOCS"); w && std::string(w) == "1") {
        doc.replace(b, e - b, want);
        std::ofstream(kApiMd) << doc;
        return;
    }
    EXPECT_EQ(doc.substr(b, e - b), want)
        << kApiMd << "'s error table differs from the catalogue; rewrite it with\n"
        << "  POUCH_WRITE_DOCS=1 build/bin/unit_tests --gtest_filter=ErrorCatalogue.*";
}

// nginx answers some errors itself with static JSON (error_page ... return NNN '{...}'): each
// uses a catalogue code with its status, or a status the catalogue lists as nginx's own.
TEST(ErrorCatalogue, NginxStaticErrorsUseCatalogueCodesAndStatuses) {
    std::string conf = read("nginx/pouch.conf.template");
    ASSERT_FALSE(conf.empty());
    const std::regex ret(R"re(return (\d{3}) '\{"ok":false,"error":\{"code":"([a-z_]+)")re");
    std::map<std::string, int> status;
    for (const CodeEntry& c : kCatalogue) status[std::string(c.code)] = c.status;
    std::set<std::pair<std::string, int>> edge_used;
    int checked = 0;
    for (auto it = std::sregex_iterator(conf.begin(), conf.end(), ret);
         it != std::sregex_iterator(); ++it, ++checked) {
        int s = std::stoi((*it)[1]);
        std::string code = (*it)[2];
        ASSERT_TRUE(status.count(code))
            << "nginx answers " << s << " " << code << ", a code the catalogue lacks";
        if (status[code] == s) continue;
        bool edge = false;
        for (const EdgeEntry& e : kEdgeStatuses) edge = edge || (e.code == code && e.status == s);
        EXPECT_TRUE(edge) << "nginx answers " << code << " with " << s << ", the catalogue with "
                          << status[code];
        edge_used.insert({code, s});
    }
    EXPECT_GE(checked, 8) << "the pattern no longer matches nginx's error answers";
    for (const EdgeEntry& e : kEdgeStatuses)
        EXPECT_TRUE(edge_used.count({std::string(e.code), e.status}))
            << "the catalogue lists nginx's " << e.status << " " << e.code
            << ", which nginx no longer answers";
}

// docs/openapi.yaml names the codes of each error answer (`code: {enum: [...]}` on the Error
// schema): each is a catalogue code, and one listed under a status ('409':) has that status.
TEST(ErrorCatalogue, OpenApiErrorCodesAreCatalogueCodesWithTheirStatus) {
    std::ifstream f("docs/openapi.yaml");
    ASSERT_TRUE(f) << "run from the repository root";
    std::map<std::string, int> status;
    for (const CodeEntry& c : kCatalogue) status[std::string(c.code)] = c.status;
    const std::regex status_line(R"re(^\s+'(\d{3})':)re");
    const std::regex error_enum(R"re(schemas/Error'.*code: \{enum: \[([a-z_, ]+)\]\})re");
    const std::regex word("[a-z_]+");
    std::string line;
    int line_no = 0, last_status = 0, last_status_line = -100, checked = 0;
    std::smatch m;
    while (std::getline(f, line)) {
        ++line_no;
        if (std::regex_search(line, m, status_line)) {
            last_status = std::stoi(m[1]);
            last_status_line = line_no;
        }
        if (!std::regex_search(line, m, error_enum)) continue;
        std::string list = m[1];
        for (auto it = std::sregex_iterator(list.begin(), list.end(), word);
             it != std::sregex_iterator(); ++it, ++checked) {
            std::string code = it->str();
            ASSERT_TRUE(status.count(code))
                << "docs/openapi.yaml:" << line_no << " names " << code << ", not in the catalogue";
            if (line_no - last_status_line <= 4) {  // an inline answer under its status
                EXPECT_EQ(status[code], last_status) << "docs/openapi.yaml:" << line_no << " lists "
                                                     << code << " under " << last_status;
            }
        }
    }
    EXPECT_GE(checked, 40) << "the pattern no longer matches docs/openapi.yaml's error answers";
}

}  // namespace
}  // namespace pouch
