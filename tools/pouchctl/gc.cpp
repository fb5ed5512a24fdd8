// gc.cpp -- placeholder until the blobs work lands (sync branch only).
#include "tools/pouchctl/commands.h"
namespace pouchctl {
int cmd_gc(const Args&) { return 1; }
int cmd_pouch(const Args&) { return 1; }
}  // namespace pouchctl
