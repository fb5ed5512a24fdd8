// empty_body.cpp -- import and revoke carry no data: no body, or an empty JSON object. Any
// member is refused like an unknown field anywhere else (decisions §3).
#include "common/json/parse.h"
#include "common/json/schema.h"
#include "handlers/shares/routes.h"

namespace pouch::shares {

void require_empty_body(const Request& req) {
    if (req.body.empty()) return;
    static const json::schema::Node kEmpty = json::schema::object({});
    rapidjson::Document doc = json::parse_strict(req.body);
    json::schema::validate(doc, kEmpty);
}

}  // namespace pouch::shares
