// commit_sql.h -- `pouch-loadgen commit-sql`: writes the pgbench script of make bench's
// commit baseline from the handler's statements (commit_sql.cpp).
#pragma once

namespace loadgen {

int commit_sql_main(int argc, char** argv);

}  // namespace loadgen
