// wait.h -- `pouch-loadgen wait` (wait.cpp): many devices long-polling events, woken by
// commits.
#pragma once

namespace loadgen {

int wait_main(int argc, char** argv);

}  // namespace loadgen
