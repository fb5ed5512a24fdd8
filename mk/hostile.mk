# hostile.mk -- the hostile suite's malicious member (tools/attacker -> BUILD/bin/pouch-attacker,
# built by the Makefile's tools rule) links the CLI's library like pouch-testweb: it signs with
# an enrolled device's keys through the CLI's own Config, Api and Trust. tests/hostile/run.sh
# (the `hostile` suite of `make test`, or `make test-hostile`) drives it.

$(BUILD)/bin/pouch-attacker: $(CLI_LIB)
$(BUILD)/bin/pouch-attacker: LDLIBS := $(CLI_LIB) $(LIB) $(CLI_LIBS) $(LDLIBS)

.PHONY: test-hostile
test-hostile: deps
	@$(MAKE) --no-print-directory build
	@BUILD=$(BUILD) tests/hostile/run.sh
