# cli.mk -- the reference CLI (issue 15): clients/cli/*.cpp -> BUILD/bin/pouch, linking the
# common library with Debian's libcurl (HTTP) and libunistring (NFC names). The CLI's objects
# other than main.o also form BUILD/libpouch_cli.a, which the unit tests and the dev/test web
# helper (tools/testweb -> BUILD/bin/pouch-testweb) link. `make build` builds them all;
# `make run` (serve-build) only the CLI.

CLI_SRC     := $(sort $(wildcard clients/cli/*.cpp))
CLI_LIB_OBJ := $(patsubst %.cpp,$(BUILD)/obj/%.o,$(filter-out clients/cli/main.cpp,$(CLI_SRC)))
CLI_LIB     := $(BUILD)/libpouch_cli.a
POUCH       := $(BUILD)/bin/pouch
CLI_LIBS    := -lcurl -lunistring

build serve-build: $(POUCH)

$(CLI_LIB): $(CLI_LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(POUCH): $(BUILD)/obj/clients/cli/main.o $(CLI_LIB) $(LIB)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) -o $@ $^ $(CLI_LIBS) $(LDLIBS)

# The pattern rules list the common library before these, so it is named again after them.
$(UNIT_TESTS): $(CLI_LIB)
$(UNIT_TESTS): LDLIBS := $(CLI_LIB) $(LIB) $(CLI_LIBS) $(LDLIBS)
$(BUILD)/bin/pouch-testweb: $(CLI_LIB)
$(BUILD)/bin/pouch-testweb: LDLIBS := $(CLI_LIB) $(LIB) $(CLI_LIBS) $(LDLIBS)

.PHONY: man
man: $(POUCH)
	$(POUCH) help --man > docs/pouch.1
