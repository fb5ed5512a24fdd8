# bench.mk -- `make bench` (issue 6): Google Benchmark sources in tests/bench/ -> one
# BUILD/bin/bench_crypto, the load generator tools/loadgen -> BUILD/bin/pouch-loadgen (built by
# the Makefile's tools rule; it also links the CLI's signing code), and tools/bench/run.sh,
# which starts the real stack, runs every benchmark beside its baseline and writes
# BUILD/bench/results.md. Not part of `make test`. Its clients section (tools/bench/clients.sh)
# also drives the `pouch` CLI with pouch-testweb, the web app and Debian's syncthing
# (tools/bench/deps.sh). Built with -j$(NPROC), as `make run` builds.

BENCH_BIN      := $(BUILD)/bin/bench_crypto
# The CLI's signing code moved into the common library (common/crypto/p256_private, jws_sign).
BENCH_SIGN_OBJ :=

$(BENCH_BIN): $$(patsubst %.cpp,$(BUILD)/obj/%.o,$$(wildcard tests/bench/*.cpp)) $(BENCH_SIGN_OBJ) $(LIB)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) -o $@ $^ -lbenchmark $(LDLIBS)

# The signing objects depend on the common library, which the pattern rule lists before them.
$(BUILD)/bin/pouch-loadgen: $(BENCH_SIGN_OBJ)
$(BUILD)/bin/pouch-loadgen: LDLIBS := $(LIB) $(LDLIBS)

.PHONY: bench bench-build bench-deps
# (mk/cli.mk, which names the CLI, is read after this file: its paths are spelled out here.)
bench-build: $(HANDLERS) $(POUCHCTL) $(BENCH_BIN) $(BUILD)/bin/pouch-loadgen $(BUILD)/bin/pouch \
	$(BUILD)/bin/pouch-testweb $(BUILD)/web/index.html

bench-deps:
	@tools/bench/deps.sh

bench: deps bench-deps
	@$(MAKE) --no-print-directory -j$(NPROC) bench-build
	@BUILD=$(BUILD) tools/bench/run.sh
