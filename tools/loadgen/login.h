// login.h -- `pouch-loadgen login`: the CLI login long-poll at scale (docs/PERFORMANCE.md,
// target 2). See login.cpp for what it does and prints.
#pragma once

namespace loadgen {

// argv[0] is the first option after "login". Returns the process exit code.
int login_main(int argc, char** argv);

}  // namespace loadgen
