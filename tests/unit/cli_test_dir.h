// cli_test_dir.h -- a fresh directory under /tmp for the CLI's unit tests (a synced folder, a
// config directory), removed with its owner even where a test took its permissions away.
#pragma once

#include <cstdlib>
#include <fstream>
#include <string>

namespace pouch::testing {

struct TempDir {
    std::string path;
    TempDir() {
        char tmpl[] = "/tmp/pouch-cli-test.XXXXXX";
        path = ::mkdtemp(tmpl);
    }
    ~TempDir() { std::system(("chmod -R u+rwx '" + path + "'; rm -rf '" + path + "'").c_str()); }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    std::string at(const std::string& rel) const { return path + "/" + rel; }
    // Writes `data` to `rel` (its directory must exist); returns the file's path.
    std::string write(const std::string& rel, const std::string& data) const {
        std::ofstream(at(rel), std::ios::binary) << data;
        return at(rel);
    }
};

}  // namespace pouch::testing
