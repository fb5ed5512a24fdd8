// limits.h -- numbers the whole contract shares: every integer on the wire lies within
// ±(2^53 − 1) (decisions §3), the range JSON numbers keep exactly in every client.
#pragma once

namespace pouch {

inline constexpr long long kMaxSafeInt = 9007199254740991LL;

}  // namespace pouch
