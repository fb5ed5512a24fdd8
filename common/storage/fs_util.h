// fs_util.h -- the few file-system steps the stores share (errors throw with the path).
#pragma once

#include <ctime>
#include <string>

namespace pouch::storage {

[[noreturn]] void io_failure(const std::string& what, const std::string& path);
// Creates a directory if it is missing (0750). True if it was created: its parent then needs
// an fsync for the entry to last.
bool ensure_dir(const std::string& path);
void fsync_dir(const std::string& path);
bool modified_before(const std::string& path, std::time_t cutoff);

}  // namespace pouch::storage
