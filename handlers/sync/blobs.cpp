// blobs.cpp -- placeholder until its owner lands the real endpoints (sync branch only).
#include "common/http/error.h"
#include "handlers/sync/routes.h"
namespace pouch::sync {
Response check_blobs(Request&, Services&) { throw ApiError(404, "not_found", "pending"); }
Response upload_blob(Request&, Services&) { throw ApiError(404, "not_found", "pending"); }
Response download_blob(Request&, Services&) { throw ApiError(404, "not_found", "pending"); }
}  // namespace pouch::sync
