// artifacts.cpp -- placeholder until its owner lands the real endpoints (sync branch only).
#include "common/http/error.h"
#include "handlers/sync/routes.h"
namespace pouch::sync {
Response list_artifacts(Request&, Services&) { throw ApiError(404, "not_found", "pending"); }
Response list_revisions(Request&, Services&) { throw ApiError(404, "not_found", "pending"); }
}  // namespace pouch::sync
