# upgrade.mk -- `make test-upgrade` (issue 26): the previous release's stack and CLI write data,
# then HEAD's migrations and handlers take over and every row and file must survive; a
# migration that fails half-way must change nothing. Builds the previous release once, in a git
# worktree under build/upgrade/ (kept). Not part of `make test`. See tests/upgrade/run.sh and
# docs/OPERATIONS.md "Upgrade".

.PHONY: test-upgrade
test-upgrade: deps
	@$(MAKE) --no-print-directory -j$(NPROC) build
	@BUILD=$(BUILD) tests/upgrade/run.sh
