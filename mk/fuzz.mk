# fuzz.mk -- `make fuzz`: libFuzzer targets of tests/fuzz/fuzz_*.cpp, built with clang and
# -fsanitize=fuzzer,address,undefined into build/fuzz/ (their own objects of the parsing
# sources and of BLAKE3's portable C), then each run for FUZZ_SECONDS against its committed
# seed corpus tests/fuzz/corpus/<target>/. New inputs go to build/fuzz/corpus/<target>/,
# crashes to build/fuzz/crashes/. See docs/RELIABILITY.md.
#   make fuzz                        all targets, 30 s each
#   make fuzz FUZZ_SECONDS=300       longer
#   make fuzz FUZZ_TARGETS=fuzz_jcs  one target
#   make fuzz-build                  build only

FUZZ_CXX     ?= clang++
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 30
FUZZ_BUILD   := build/fuzz
# Every finding stops the run except pointer-overflow, kept recoverable so tests/fuzz/ubsan.supp
# can silence RapidJSON 1.1's null-stack arithmetic; halt_on_error makes the rest fatal.
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all \
                -fsanitize-recover=pointer-overflow -fno-omit-frame-pointer
FUZZ_ENV     := UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:suppressions=tests/fuzz/ubsan.supp
# RapidJSON 1.1's iterator operator== trips clang's C++20 reversed-operator warning.
FUZZ_CXXFLAGS := -std=c++20 -O1 -g -Wall -Wextra -Werror -Wno-ambiguous-reversed-operator \
                 -pthread $(FUZZ_SAN) -fsanitize=fuzzer-no-link
FUZZ_CFLAGS  := -O1 -g $(FUZZ_SAN) -DBLAKE3_NO_SSE2 -DBLAKE3_NO_SSE41 -DBLAKE3_NO_AVX2 \
                -DBLAKE3_NO_AVX512
FUZZ_LIBS    := -lssl -lcrypto -lsodium -lunistring

# The parsing code under test and what it links against; nothing that needs a server.
FUZZ_COMMON_SRC := common/json/parse.cpp common/json/jcs.cpp common/json/schema.cpp \
                   common/json/schema_jwk.cpp common/json/utf8.cpp common/json/out.cpp \
                   common/json/label.cpp \
                   common/crypto/b64url.cpp common/crypto/es256.cpp common/crypto/hash.cpp \
                   common/crypto/key_cache.cpp \
                   common/jose/jws.cpp common/jose/dpop.cpp \
                   common/http/request.cpp common/http/router.cpp common/http/query.cpp \
                   common/http/response.cpp common/types/uuid.cpp
FUZZ_COMMON_OBJ := $(FUZZ_COMMON_SRC:%.cpp=$(FUZZ_BUILD)/obj/%.o) \
                   $(FUZZ_BUILD)/obj/blake3/blake3.o $(FUZZ_BUILD)/obj/blake3/blake3_dispatch.o \
                   $(FUZZ_BUILD)/obj/blake3/blake3_portable.o
FUZZ_ALL     := $(sort $(patsubst tests/fuzz/%.cpp,%,$(wildcard tests/fuzz/fuzz_*.cpp)))
FUZZ_TARGETS ?= $(FUZZ_ALL)
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/bin/%)

.PHONY: fuzz-build
fuzz-build: $(FUZZ_BINS)

$(FUZZ_COMMON_SRC:%.cpp=$(FUZZ_BUILD)/obj/%.o) $(FUZZ_ALL:%=$(FUZZ_BUILD)/obj/tests/fuzz/%.o): \
  $(FUZZ_BUILD)/obj/%.o: %.cpp mk/fuzz.mk | build/include/blake3.h
	@mkdir -p $(@D)
	$(FUZZ_CXX) $(CPPFLAGS) $(FUZZ_CXXFLAGS) -c $< -o $@

$(FUZZ_BUILD)/obj/blake3/%.o: $(BLAKE3_DIR)/%.c mk/fuzz.mk
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_BUILD)/bin/%: $(FUZZ_BUILD)/obj/tests/fuzz/%.o $(FUZZ_COMMON_OBJ)
	@mkdir -p $(@D)
	$(FUZZ_CXX) -fsanitize=fuzzer,address,undefined -pthread -o $@ $^ $(FUZZ_LIBS)

# Each run: fresh corpus dir seeded by the committed one; one summary line per target.
fuzz: $(FUZZ_BINS)
	@mkdir -p $(FUZZ_BUILD)/crashes $(FUZZ_BUILD)/logs
	@status=0; for t in $(FUZZ_TARGETS); do \
	    mkdir -p $(FUZZ_BUILD)/corpus/$$t; \
	    log=$(FUZZ_BUILD)/logs/$$t.log; \
	    $(FUZZ_ENV) $(FUZZ_BUILD)/bin/$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	        -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/crashes/$$t- \
	        $(FUZZ_BUILD)/corpus/$$t tests/fuzz/corpus/$$t > $$log 2>&1; rc=$$?; \
	    execs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $$log); \
	    cov=$$(grep -o 'cov: [0-9]*' $$log | tail -1); \
	    if [ $$rc -eq 0 ]; then r=ok; else r="FAILED (rc $$rc, see $$log)"; status=1; fi; \
	    printf 'fuzz %-18s %10s execs in %ss, %s: %s\n' $$t "$${execs:-?}" $(FUZZ_SECONDS) \
	        "$${cov:-cov: ?}" "$$r"; \
	done; exit $$status
