// layers_test.cpp -- the include rules of docs/ARCHITECTURE.md, read from the sources: a folder
// of common/ includes only folders below it in the layer list, common/ never includes
// handlers/, tools/ or clients/, and a handler group includes no other group.
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace fs = std::filesystem;

namespace {

// Top to bottom, as docs/ARCHITECTURE.md lists them.
const std::vector<std::string> kLayers = {
    "api",    "auth", "paging", "http", "model", "rules",  "jose",    "clientfmt", "storage",
    "wakeup", "db",   "redis",  "log",  "json",  "crypto", "metrics", "types",     "config",
};

std::vector<std::pair<fs::path, std::string>> includes_under(const std::string& dir) {
    std::vector<std::pair<fs::path, std::string>> out;
    const std::regex inc(R"(^\s*#include\s+"([^"]+)\")");
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
        auto ext = e.path().extension();
        if (!e.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
        std::ifstream f(e.path());
        std::string line;
        std::smatch m;
        while (std::getline(f, line))
            if (std::regex_search(line, m, inc)) out.emplace_back(e.path(), m[1]);
    }
    return out;
}

int rank(const std::string& folder) {
    for (size_t i = 0; i < kLayers.size(); ++i)
        if (kLayers[i] == folder) return static_cast<int>(i);
    return -1;
}

TEST(Layers, EveryCommonFolderIsListed) {
    ASSERT_TRUE(fs::is_directory("common")) << "run from the repository root";
    for (const auto& e : fs::directory_iterator("common")) {
        if (!e.is_directory()) continue;
        EXPECT_GE(rank(e.path().filename().string()), 0)
            << e.path() << " is missing from the layer list (docs/ARCHITECTURE.md)";
    }
}

TEST(Layers, CommonIncludesOnlyPointDown) {
    int checked = 0;
    for (const auto& [file, target] : includes_under("common")) {
        std::string from = file.lexically_relative("common").begin()->string();
        EXPECT_NE(target.rfind("handlers/", 0), 0u) << file << " includes " << target;
        EXPECT_NE(target.rfind("tools/", 0), 0u) << file << " includes " << target;
        EXPECT_NE(target.rfind("clients/", 0), 0u) << file << " includes " << target;
        if (target.rfind("common/", 0) != 0) continue;
        std::string to = fs::path(target).lexically_relative("common").begin()->string();
        if (to == from) continue;
        ++checked;
        EXPECT_GT(rank(to), rank(from)) << file << " (" << from << ") includes " << target << ": "
                                        << to << " is not below " << from;
    }
    EXPECT_GT(checked, 50) << "no includes between folders found";
}

TEST(Layers, AHandlerGroupIncludesNoOtherGroup) {
    for (const auto& [file, target] : includes_under("handlers")) {
        if (target.rfind("handlers/", 0) != 0) continue;
        std::string from = file.lexically_relative("handlers").begin()->string();
        std::string to = fs::path(target).lexically_relative("handlers").begin()->string();
        EXPECT_EQ(to, from) << file << " includes " << target;
    }
}

}  // namespace
