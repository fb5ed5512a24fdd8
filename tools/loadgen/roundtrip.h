// roundtrip.h -- `pouch-loadgen roundtrip` (roundtrip.cpp): A commits, B (beside idle
// waiters) wakes and reads the revision; the time from A's send to B having it.
#pragma once

namespace loadgen {

int roundtrip_main(int argc, char** argv);

}  // namespace loadgen
