// fuzz_jws_dpop.cpp -- libFuzzer target: JWS compact parsing (attached and detached) and
// DPoP proof verification with a fixed method, URL and clock. parse_jws* return nullopt on
// bad input; verify_dpop may only throw Error 401 invalid_dpop_proof.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/jose/dpop.h"
#include "common/jose/jws.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

// The clock of the committed seeds (tests/fuzz/corpus/fuzz_jws_dpop/), so a valid proof
// reaches the claim checks.
constexpr long long kNow = 1767225600;  // 2026-01-01T00:00:00Z

void dpop(std::string_view proof, std::optional<std::string_view> token) {
    pouch::jose::DpopInput in{proof, "POST", "https://sync.example.com",
                                "/v1/pouches/0b7e7a55-3c59-4a4b-9b1a-2f6d1f0c9a10/operations",
                                token, kNow};
    try {
        auto p = pouch::jose::verify_dpop(in);
        pouch::fuzz::require(p.jkt.size() == 43, "jkt is a 43-char thumbprint");
    } catch (const pouch::Error& e) {
        pouch::fuzz::require_client_error(e, 401, "invalid_dpop_proof");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view in(reinterpret_cast<const char*>(data), size);

    if (auto j = pouch::jose::parse_jws(in)) {
        pouch::fuzz::require(j->header.IsObject(), "JWS header is an object");
        pouch::fuzz::require(j->signing_input == j->header_b64 + "." + j->payload_b64,
                             "signing input");
    }
    (void)pouch::jose::parse_jws_detached(in, "eyJhIjoxfQ");
    (void)pouch::jose::normalize_htu(in);

    dpop(in, std::nullopt);
    dpop(in, std::string_view("fuzz-access-token"));
    return 0;
}
