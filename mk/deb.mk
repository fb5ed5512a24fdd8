# deb.mk -- `make deb`: the pouch-server and pouch-cli Debian packages in build/deb/, built by
# dpkg-buildpackage (debhelper) from a staged copy of the checkout with tools/deb/debian as its
# debian/ (tools/deb/build.sh). The binaries and the web bundle are made here first, by the
# ordinary rules (npm ci included), and the package build reuses them through BUILD: it
# compiles nothing that is up to date. `make test-deb` runs the package test (tests/deb/run.sh:
# install, serve, remove, purge on this machine; root only).

.PHONY: deb test-deb
deb: deps
	@$(MAKE) --no-print-directory -j$(NPROC) serve-build
	tools/deb/build.sh $(abspath $(BUILD))

test-deb: deps
	@$(MAKE) --no-print-directory -j$(NPROC) serve-build
	BUILD=$(BUILD) tests/deb/run.sh
