# faults.mk -- `make test-faults`: the fault scenarios (issue 7) against the local stack: kill -9
# of the sync handler, a PostgreSQL restart, a Redis outage and nginx reloads, each under a
# steady commit load with known operation_ids. Ends with "N passed, N failed" like `make test`.
# See tests/faults/run.sh and docs/RELIABILITY.md (Faults).

.PHONY: test-faults
test-faults: deps
	@$(MAKE) --no-print-directory build
	@BUILD=$(BUILD) tests/faults/run.sh
