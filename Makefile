# Pouch Sync build.  `make run` serves the local stack, `make test` runs every suite.
# Sources are discovered by directory: common/ -> one static library, handlers/<group>/ ->
# build/bin/pouch-<group>, tools/pouchctl/ -> build/bin/pouchctl, tests/unit/ -> unit_tests.
# SAN=address,undefined builds everything with those sanitizers.

CXX      ?= g++
CC       ?= gcc
BUILD    ?= build
SAN      ?=
OPT      ?= -O2

BLAKE3_DIR := $(firstword $(wildcard /usr/share/cargo/registry/blake3-*/c))

CPPFLAGS := -I. -Ibuild/include -I/usr/include/postgresql -MMD -MP
CXXFLAGS := -std=c++20 $(OPT) -g -Wall -Wextra -Werror -pthread
CFLAGS   := $(OPT) -g
LDFLAGS  := -pthread
LDLIBS   := -lfcgi -lpq -lhiredis -lssl -lcrypto -lsodium
# NFC and Unicode properties of labels (common/json/label.cpp, Debian's libunistring-dev).
LDLIBS   += -lunistring
# Metrics in the Prometheus text format (common/metrics, Debian's prometheus-cpp-dev).
LDLIBS   += -lprometheus-cpp-core
# S3 requests signed by libcurl (common/storage/s3_store.cpp, Debian's libcurl4-openssl-dev).
LDLIBS   += -lcurl

comma := ,
ifneq ($(SAN),)
  BUILD    := build/san-$(subst $(comma),-,$(SAN))
  CXXFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
  CFLAGS   += -fsanitize=$(SAN) -fno-omit-frame-pointer
  LDFLAGS  += -fsanitize=$(SAN)
endif

COMMON_SRC  := $(sort $(shell find common -name '*.cpp' 2>/dev/null))
COMMON_OBJ  := $(COMMON_SRC:%.cpp=$(BUILD)/obj/%.o)
BLAKE3_C    := blake3.c blake3_dispatch.c blake3_portable.c
BLAKE3_S    := blake3_sse2_x86-64_unix.S blake3_sse41_x86-64_unix.S \
               blake3_avx2_x86-64_unix.S blake3_avx512_x86-64_unix.S
BLAKE3_OBJ  := $(BLAKE3_C:%.c=$(BUILD)/obj/blake3/%.o) $(BLAKE3_S:%.S=$(BUILD)/obj/blake3/%.o)
LIB         := $(BUILD)/libpouch_common.a

GROUPS      := $(sort $(patsubst handlers/%/,%,$(wildcard handlers/*/)))
HANDLERS    := $(GROUPS:%=$(BUILD)/bin/pouch-%)
POUCHCTL    := $(BUILD)/bin/pouchctl
UNIT_TESTS  := $(BUILD)/bin/unit_tests
TOOLS_EXTRA := $(patsubst tools/%/main.cpp,$(BUILD)/bin/pouch-%,$(filter-out tools/pouchctl/main.cpp,$(wildcard tools/*/main.cpp)))

.PHONY: all build serve-build deps run test test-unit clean format bench fuzz
all: build
build: $(HANDLERS) $(POUCHCTL) $(UNIT_TESTS) $(TOOLS_EXTRA)
# What `make run` needs: the handlers, pouchctl (migrations), the web app, and the `pouch` CLI
# a newcomer uses next (mk/cli.mk); not the unit tests or the test and bench tools.
serve-build: $(HANDLERS) $(POUCHCTL)

# BLAKE3's header is included as <blake3.h> from Debian's copy of the sources.
build/include/blake3.h: | $(BLAKE3_DIR)/blake3.h
	@mkdir -p $(@D)
	cp $(BLAKE3_DIR)/blake3.h $@

$(BUILD)/obj/blake3/%.o: $(BLAKE3_DIR)/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/blake3/%.o: $(BLAKE3_DIR)/%.S
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: %.cpp | build/include/blake3.h
	@mkdir -p $(@D)
	$(CXX) $(CPPFLAGS) $(CXXFLAGS) -c $< -o $@

$(LIB): $(COMMON_OBJ) $(BLAKE3_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

# Objects are kept (not intermediate), and `%` inside patsubst would be taken for the stem of
# the pattern rule, so object lists are built with subst.
.SECONDARY:
.SECONDEXPANSION:
$(BUILD)/bin/pouch-%: $$(foreach s,$$(wildcard handlers/$$*/*.cpp tools/$$*/*.cpp),$(BUILD)/obj/$$(subst .cpp,.o,$$(s))) $(LIB)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(POUCHCTL): $$(patsubst %.cpp,$(BUILD)/obj/%.o,$$(wildcard tools/pouchctl/*.cpp)) $(LIB)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The unit tests link every handler's objects but its main.cpp, so they read each group's route
# table (handlers/<group>/routes.h) with the handlers it names.
HANDLER_OBJ := $(patsubst %.cpp,$(BUILD)/obj/%.o,$(filter-out handlers/%/main.cpp,$(wildcard handlers/*/*.cpp)))
$(UNIT_TESTS): $$(patsubst %.cpp,$(BUILD)/obj/%.o,$$(wildcard tests/unit/*.cpp)) $(HANDLER_OBJ) $(LIB)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) -o $@ $^ -lgtest -lgtest_main $(LDLIBS)

# --- the web app (clients/web): its pinned npm packages, then one esbuild bundle in BUILD/web,
# which nginx serves at / (tools/stack/lib.sh). npm ci reinstalls only when the lock changes.
WEB_SRC := $(shell find clients/web/src -type f 2>/dev/null) clients/web/index.html clients/web/build.mjs
WEB_NPM := env NODE_EXTRA_CA_CERTS=$${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt} npm
build serve-build: $(BUILD)/web/index.html

clients/web/node_modules/.package-lock.json: clients/web/package-lock.json clients/web/package.json
	cd clients/web && $(WEB_NPM) ci --no-audit --no-fund --loglevel=error

$(BUILD)/web/index.html: $(WEB_SRC) clients/web/node_modules/.package-lock.json
	rm -rf $(BUILD)/web
	node clients/web/build.mjs $(BUILD)/web

deps:
	@tools/stack/deps.sh

NPROC := $(shell nproc 2>/dev/null || echo 2)

run: deps
	@$(MAKE) --no-print-directory -j$(NPROC) serve-build
	@BUILD=$(BUILD) tools/stack/run.sh

test: deps
	@$(MAKE) --no-print-directory -j$(NPROC) build
	@BUILD=$(BUILD) tools/stack/test.sh

test-unit: build
	$(UNIT_TESTS)

format:
	clang-format -i $$(find common handlers clients tools tests -name '*.cpp' -o -name '*.h')

clean:
	rm -rf build

# Extra targets (bench, fuzz, fault tests) live in mk/*.mk.
-include mk/*.mk

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
