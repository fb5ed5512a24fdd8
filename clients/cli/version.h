// version.h -- the CLI's version, sent as cli_version at login and printed by --version.
#pragma once

namespace pouch::cli {

inline constexpr const char* kPouchVersion = "0.1.0";

}  // namespace pouch::cli
