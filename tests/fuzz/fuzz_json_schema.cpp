// fuzz_json_schema.cpp -- libFuzzer target: the strict JSON parser (decisions §3) and
// schema::validate over representative request schemas (the commit schema of handlers/sync,
// a copy of the signup one, the jwk() node, and one node of every other kind, a label among
// them). Only Error 400 invalid_json / validation_failed (invalid_field for the label) may
// come out; anything else is a finding, and so is a parsed document beyond the parse budget
// (depth, members per object, values), and so is a request body parsed in place
// (parse_request) that is refused otherwise or read into another document.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/json/parse.h"
#include "common/json/schema.h"
#include "handlers/sync/commit_types.h"
#include "tests/fuzz/fuzz_util.h"

namespace js = pouch::json::schema;

namespace {

// Copy of handlers/account/signup.cpp kCredentials.
const js::Node& credentials_schema() {
    static const js::Node n = js::object({
        js::req("email", js::string().min_chars(1).max_chars(254)),
        js::req("password", js::string().min_chars(10).max_chars(1024)),
    });
    return n;
}

// A device registration shape: the jwk node plus the remaining node kinds.
const js::Node& device_schema() {
    static const js::Node n = js::object({
        js::req("jwk", js::jwk()),
        js::opt("name", js::string().max_chars(64).nullable()),
        js::opt("kind", js::one_of({"cli", "web", "desktop"})),
        js::opt("expires_at", js::datetime()),
        js::opt("primary", js::boolean()),
        js::opt("tags", js::array(js::string().max_chars(16)).max_items(8).distinct()),
        js::opt("n", js::integer().min(-5).max(5)),
        js::opt("blob", js::b64url().max_chars(86)),
        js::opt("label", js::label()),
    });
    return n;
}

// The parse budget (decisions §13) holds for every document parse_strict returns: depth,
// members per object, values per document. Returns the values counted under v.
size_t require_within_budget(const rapidjson::Value& v, int depth) {
    size_t values = 1;
    if (v.IsObject() || v.IsArray())
        pouch::fuzz::require(depth <= pouch::json::kMaxDepth, "nesting within the budget");
    if (v.IsObject()) {
        pouch::fuzz::require(v.MemberCount() <= pouch::json::kMaxMembers, "members within budget");
        for (const auto& m : v.GetObject()) values += require_within_budget(m.value, depth + 1);
    } else if (v.IsArray()) {
        for (const auto& e : v.GetArray()) values += require_within_budget(e, depth + 1);
    }
    return values;
}

// validate() rewrites UUIDs in place, so each schema gets its own copy of the document.
void validate_expecting_400(const rapidjson::Value& v, const js::Node& schema) {
    rapidjson::Document copy;
    copy.CopyFrom(v, copy.GetAllocator());
    try {
        js::validate(copy, schema);
    } catch (const pouch::Error& e) {
        pouch::fuzz::require_client_error(
            e, 400, e.code == "invalid_field" ? "invalid_field" : "validation_failed");
        pouch::fuzz::require(e.field.empty() || e.field[0] == '/',
                             "validation field is a JSON Pointer");
    }
}

}  // namespace

// The in-place parse of a request body reads what parse_strict reads: the same refusal, or
// an equal document (its budget in bytes set past anything this input can need).
void require_in_place_agrees(std::string_view text, const rapidjson::Document* strict,
                             const std::string& refusal) {
    std::string body(text);
    rapidjson::Document doc;
    try {
        doc = pouch::json::parse_request(body, SIZE_MAX);
    } catch (const pouch::Error& e) {
        pouch::fuzz::require_client_error(e, 400, "invalid_json");
        pouch::fuzz::require(!strict && e.message == refusal,
                             "parse_request refuses as parse_strict does");
        return;
    }
    pouch::fuzz::require(strict && doc == *strict, "parse_request reads what parse_strict reads");
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    rapidjson::Document doc;
    try {
        doc = pouch::json::parse_strict(text);
    } catch (const pouch::Error& e) {
        pouch::fuzz::require_client_error(e, 400, "invalid_json");
        require_in_place_agrees(text, nullptr, e.message);
        return 0;
    }
    require_in_place_agrees(text, &doc, "");
    pouch::fuzz::require(doc.IsObject(), "parse_strict returns an object");
    pouch::fuzz::require(require_within_budget(doc, 1) <= pouch::json::kMaxValues,
                         "values within the budget");
    validate_expecting_400(doc, pouch::json::schema_of<pouch::sync::CommitRequest>());
    validate_expecting_400(doc, credentials_schema());
    validate_expecting_400(doc, device_schema());
    auto jwk = doc.FindMember("jwk");
    validate_expecting_400(jwk == doc.MemberEnd() ? doc : jwk->value, js::jwk());
    return 0;
}
