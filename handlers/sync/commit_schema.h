// commit_schema.h -- the request schema of POST /v1/pouches/{pouchId}/operations (op 1,
// decisions §5.3): what commit.cpp validates a body against, and what the fuzz target
// tests/fuzz/fuzz_json_schema.cpp exercises.
#pragma once

#include "common/json/schema.h"

namespace pouch::sync {

// At most 50 ops; each op's fields and bounds as the interface table of op 1.
const json::schema::Node& commit_schema();

}  // namespace pouch::sync
