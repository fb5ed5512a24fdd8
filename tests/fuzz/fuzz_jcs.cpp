// fuzz_jcs.cpp -- libFuzzer target: RFC 8785 canonicalization of any strictly parsed value.
// Invariant: canonical text parses again and canonicalizes to itself, jcs(parse(jcs(x))) ==
// jcs(x); a value JCS refuses (nullopt) is allowed, a crash or a mismatch is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/json/jcs.h"
#include "common/json/parse.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    rapidjson::Document doc;
    try {
        doc = pouch::json::parse_strict_any(text);
    } catch (const pouch::Error& e) {
        pouch::fuzz::require_client_error(e, 400, "invalid_json");
        return 0;
    }
    auto canonical = pouch::json::jcs(doc);
    if (!canonical) return 0;
    rapidjson::Document again;
    try {
        again = pouch::json::parse_strict_any(*canonical);
    } catch (const pouch::Error&) {
        pouch::fuzz::require(false, "JCS output is strict JSON");
    }
    auto twice = pouch::json::jcs(again);
    pouch::fuzz::require(twice.has_value(), "JCS output canonicalizes");
    pouch::fuzz::require(*twice == *canonical, "jcs(parse(jcs(x))) == jcs(x)");
    return 0;
}
