# cluster.mk -- `make test-cluster` (issue 18): two handler hosts in network namespaces behind
# one nginx, pg_auto_failover (monitor, primary, synchronous standby) and shared Redis and blob
# directory on one machine, under a CLI-path commit load and parked long-polls: a handler host
# killed, the primary killed and rejoining. Needs root. Ends with "N passed, N failed"; see
# tests/cluster/run.sh, docs/SCALING.md and docs/RELIABILITY.md (Cluster).

.PHONY: test-cluster
test-cluster: deps
	@$(MAKE) --no-print-directory -j$(NPROC) build
	@BUILD=$(BUILD) tests/cluster/run.sh
