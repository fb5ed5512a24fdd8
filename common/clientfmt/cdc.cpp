// cdc.cpp -- content-defined chunk boundaries (cdc.h).
#include "common/clientfmt/cdc.h"

#include <blake3.h>

#include <algorithm>
#include <array>

namespace pouch::clientfmt {

namespace {

std::array<uint32_t, 256> make_gear() {
    static constexpr std::string_view kContext = "pouch/cdc/v1";
    std::array<unsigned char, 1024> out{};
    blake3_hasher h;
    blake3_hasher_init(&h);
    blake3_hasher_update(&h, kContext.data(), kContext.size());
    blake3_hasher_finalize(&h, out.data(), out.size());
    std::array<uint32_t, 256> gear{};
    for (size_t i = 0; i < gear.size(); ++i) {
        const unsigned char* b = out.data() + 4 * i;
        gear[i] = static_cast<uint32_t>(b[0]) | static_cast<uint32_t>(b[1]) << 8 |
                  static_cast<uint32_t>(b[2]) << 16 | static_cast<uint32_t>(b[3]) << 24;
    }
    return gear;
}

}  // namespace

const uint32_t* cdc_gear() {
    static const std::array<uint32_t, 256> gear = make_gear();
    return gear.data();
}

size_t cdc_cut(std::string_view data) {
    size_t n = data.size();
    if (n <= kCdcMin) return n;
    const uint32_t* gear = cdc_gear();
    const auto* p = reinterpret_cast<const unsigned char*>(data.data());
    size_t end = std::min(n, kCdcMax);
    size_t normal = std::min(end, kCdcNormal);
    uint32_t h = 0;
    size_t i = kCdcMin;
    for (; i < normal; ++i) {
        h = (h << 1) + gear[p[i]];
        if ((h & kCdcMaskHard) == 0) return i + 1;
    }
    for (; i < end; ++i) {
        h = (h << 1) + gear[p[i]];
        if ((h & kCdcMaskEasy) == 0) return i + 1;
    }
    return end;
}

}  // namespace pouch::clientfmt
