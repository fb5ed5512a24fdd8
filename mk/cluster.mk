# cluster.mk -- `make test-cluster` (issues 18, 27): two handler hosts in network namespaces
# behind one nginx, pg_auto_failover (monitor, primary, synchronous standby), a shared Redis
# and blobs in the S3 bucket of a single-host Ceph (tools/stack/ceph.sh) on one machine, under
# a CLI-path commit load and parked long-polls: a handler host killed, radosgw killed under a
# blob upload load, the primary killed and rejoining. Needs root. POUCH_CLUSTER_BLOBS=dir: one
# shared blob directory instead of Ceph. Ends with "N passed, N failed"; see
# tests/cluster/run.sh, docs/SCALING.md and docs/RELIABILITY.md (Cluster).

.PHONY: test-cluster
test-cluster: deps
	@$(MAKE) --no-print-directory -j$(NPROC) build
	@BUILD=$(BUILD) tests/cluster/run.sh
