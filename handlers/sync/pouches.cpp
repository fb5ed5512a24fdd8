// pouches.cpp -- placeholder until its owner lands the real endpoints (sync branch only).
#include "common/http/error.h"
#include "handlers/sync/routes.h"
namespace pouch::sync {
Response list_pouches(Request&, Services&) { throw ApiError(404, "not_found", "pending"); }
Response get_pouch(Request&, Services&) { throw ApiError(404, "not_found", "pending"); }
Response create_pouch(Request&, Services&) { throw ApiError(404, "not_found", "pending"); }
}  // namespace pouch::sync
