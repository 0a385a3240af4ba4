# SPDX-License-Identifier: Apache-2.0
# One plain, non-recursive Makefile.
#   make            libmero.a, libmero.so.0 + merod, meroctl, calimero-tee-verify (build/$(BUILD)/);
#                   Debian packages only, never npm (the test targets add the npm peers)
#   make install    PREFIX=/usr/local DESTDIR= (docs/install.md)
#   make test       everything in tests/, last line `N passed, N failed` (`, N skipped` when
#                   something was); with TESTS unset also `make lint`, a second lane of
#                   every unit test and fuzz replay under ASan + UBSan (build/asan) and a third
#                   of the threaded unit tests under ThreadSanitizer (build/tsan)
#   make asan       the same tests under ASan + UBSan (BUILD=asan)
#   make tsan       the same tests under ThreadSanitizer (BUILD=tsan); with TESTS=<substring>
#                   only the matching unit tests are built (make tsan TESTS=threads)
#   make fuzz       libFuzzer targets under clang (FUZZ_SECONDS=60, FUZZ_TARGET=name)
#   make bench      benchmarks (bench/run.sh), `bench ...` and `ratio ...` lines
#   make lint       clang-format check, banned-function grep, cppcheck, mandoc, and the house
#                   rules (scripts/lint-house.py: layers, private headers, named lengths)
#   make run        the fleet-admission demo on loopback
# Packages are installed on demand by scripts/deps.sh (idempotent).

BUILD ?= release
CC ?= gcc
ifeq ($(origin CC),default)
CC := gcc
endif
SHARED ?= $(abspath $(CURDIR)/../shared)
V ?= 0
Q := $(if $(filter 1,$(V)),,@)

B := build/$(BUILD)
PKGS := libsodium libuv libmicrohttpd jansson sqlite3 libcurl openssl

WARN := -std=gnu11 -Wall -Wextra -Wpedantic -Wshadow -Wformat=2 -Wstrict-prototypes \
        -Wmissing-prototypes -Wvla -Wimplicit-fallthrough -Wundef -Werror
ifeq ($(BUILD),asan)
OPT := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
       -DMERO_CHECKED
LDOPT := -fsanitize=address,undefined
else ifeq ($(BUILD),tsan)
OPT := -O1 -g -fsanitize=thread -fno-omit-frame-pointer -DMERO_CHECKED
LDOPT := -fsanitize=thread
else ifeq ($(BUILD),debug)
OPT := -O0 -g -DMERO_CHECKED
LDOPT :=
else ifeq ($(BUILD),fuzz)
OPT := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
LDOPT := -fsanitize=address,undefined
else
OPT := -O2 -g -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fPIE
LDOPT := -pie -Wl,-z,relro,-z,now -Wl,-z,noexecstack
endif

# Recursively expanded: pkg-config runs only after the deps stamp exists.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS = $(shell pkg-config --libs $(PKGS)) -lpthread -lm
CFLAGS_ALL = $(WARN) $(OPT) -MMD -MP -Iinclude -Isrc -Itests $(PKG_CFLAGS) \
             -DMERO_SHARED_DIR='"$(SHARED)"' -DMERO_SIGSTORE_PREFIX='"$(PREFIX)"' $(CFLAGS)
LDFLAGS_ALL = $(LDOPT) $(LDFLAGS)

LIB_SRCS := $(sort $(wildcard src/util/*.c src/crypto/*.c src/attest/*.c src/gov/*.c \
                              src/net/*.c src/node/*.c src/node/admission/*.c \
                              src/node/context/*.c src/api/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/obj/%.o)
# issue 19: the admin page (src/api/admin_ui/) embedded in the library as C arrays (xxd -i)
UI_ASSETS := $(sort $(wildcard src/api/admin_ui/*.html src/api/admin_ui/*.js src/api/admin_ui/*.css))
LIB_OBJS += $(B)/obj/gen/admin_ui_assets.o
LIB := $(B)/libmero.a

# Each binary is a folder under src/cli/ (src/cli/meroctl/*.c -> meroctl); tee_verify is
# installed as calimero-tee-verify.
cli_name = $(subst tee_verify,calimero-tee-verify,$(1))
CLI_DIRS := $(sort $(patsubst src/cli/%/,%,$(dir $(wildcard src/cli/*/*.c))))
BINS := $(foreach d,$(CLI_DIRS),$(B)/bin/$(call cli_name,$(d)))

SUPPORT_SRCS := $(sort $(wildcard tests/support/*.c))
SUPPORT_OBJS := $(SUPPORT_SRCS:%.c=$(B)/obj/%.o)
TEST_SRCS := $(sort $(wildcard tests/unit/test_*.c))
TEST_BINS := $(TEST_SRCS:tests/unit/%.c=$(B)/tests/%)
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
REPLAYS := $(FUZZ_SRCS:tests/fuzz/fuzz_%.c=$(B)/fuzz/replay_%)
DIFF_SRCS := $(sort $(wildcard tests/diff/*.c))
DIFF_BINS := $(DIFF_SRCS:tests/diff/%.c=$(B)/diff/%)
# Intel's QVL as a test oracle (tests/diff/intel_qvl.sh), built once from ../shared with
# Debian packages only; later runs reuse it (build.sh is incremental).
QVL_ORACLE := build/qvl/bin/qvl_oracle
BENCH_SRCS := $(sort $(wildcard bench/bench_*.c))
BENCHES := $(BENCH_SRCS:bench/%.c=$(B)/bench/%)

STAMP := build/.deps-ok

# The shipped Sigstore trusted root (share/sigstore/README.md): next to the binaries in the
# build tree, under $(PREFIX)/share/mero/sigstore when installed.
PREFIX ?= /usr/local
SHIPPED_ROOT := $(B)/share/mero/sigstore/trusted_root.json

.SECONDARY:
# issue 20: fleet (the fleet harness at 50 nodes, docs/fleet-harness.md)
.PHONY: fleet
.PHONY: all deps test asan-lane-build tsan-lane-build asan tsan tsan-build fuzz bench bench-build lint run clean check-build install
all: $(LIB) $(BINS) $(SHIPPED_ROOT)

$(SHIPPED_ROOT): share/sigstore/trusted_root.json
	$(Q)mkdir -p $(dir $@)
	$(Q)cp $< $@

# `make` and `make run` need only the Debian packages that build and run (scripts/deps.sh bare);
# the test tools and the npm test peers (tests/js) come with $(NPM_STAMP) (deps.sh --test),
# which only the test, lint, fuzz and bench targets depend on (issue 35 item 7; the install
# block below).
$(STAMP): scripts/deps.sh
	$(Q)mkdir -p build
	$(Q)scripts/deps.sh
	$(Q)touch $@

deps: $(STAMP)

$(B)/obj/%.o: %.c | $(STAMP)
	$(Q)mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) -c $< -o $@

$(LIB): $(LIB_OBJS)
	$(Q)mkdir -p $(dir $@)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/gen/admin_ui_assets.c: $(UI_ASSETS) scripts/embed-assets.sh | $(STAMP)
	$(Q)mkdir -p $(dir $@)
	@$(if $(Q),echo "  GEN     $@")
	$(Q)scripts/embed-assets.sh $@ $(UI_ASSETS)

$(B)/obj/gen/%.o: $(B)/gen/%.c
	$(Q)mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) -c $< -o $@

define cli_rule
$(B)/bin/$(call cli_name,$(1)): $(patsubst %.c,$(B)/obj/%.o,$(wildcard src/cli/$(1)/*.c)) $(LIB)
	$$(Q)mkdir -p $$(dir $$@)
	@$$(if $$(Q),echo "  LD      $$@")
	$$(Q)$$(CC) $$(LDFLAGS_ALL) -o $$@ $$^ $$(PKG_LIBS)
endef
$(foreach d,$(CLI_DIRS),$(eval $(call cli_rule,$(d))))

$(B)/tests/%: $(B)/obj/tests/unit/%.o $(SUPPORT_OBJS) $(LIB)
	$(Q)mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS)

$(B)/fuzz/replay_%: $(B)/obj/tests/fuzz/fuzz_%.o $(B)/obj/tests/fuzz/replay_main.o $(LIB)
	$(Q)mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS)

$(B)/diff/%: $(B)/obj/tests/diff/%.o $(SUPPORT_OBJS) $(LIB)
	$(Q)mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS)

$(QVL_ORACLE): | $(STAMP)
	@echo "  QVL     $@ (Intel QVL oracle, once)"
	$(Q)$(SHARED)/oracles/intel-qvl/build.sh $(CURDIR)/build/qvl >build/qvl-build.log 2>&1 || \
	    { tail -n 20 build/qvl-build.log; exit 1; }

$(B)/bench/%: $(B)/obj/bench/%.o $(SUPPORT_OBJS) $(LIB)
	$(Q)mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS)

check-build: $(LIB) $(BINS) $(TEST_BINS) $(REPLAYS) $(SHIPPED_ROOT) $(DIFF_BINS) $(QVL_ORACLE)

# The full run (TESTS unset, the release build: what README and .ci/run promise) adds three
# lanes to tests/run.sh's one count: `make lint` first, then the unit tests and fuzz replays
# again under ASan + UBSan (issue 20), then the unit tests that run threads (TSAN_LANE_TESTS:
# the 8-thread cache stress test, the PCS flood, the release single flight, the off-loop
# admission, the memory of verified signatures) under ThreadSanitizer (issue 23;
# docs/build-and-tests.md). A focused run
# (TESTS=...) and the sanitizer targets' own runs (make asan / tsan) do not.
FULL_RUN := $(if $(TESTS),,$(filter release,$(BUILD)))
TSAN_LANE_TESTS := test_threads test_pcs_backoff test_release test_admission_attest test_verify_memo \
                   test_fleet_admission
test: $(STAMP)
	$(Q)$(MAKE) --no-print-directory check-build BUILD=$(BUILD)
	$(Q)$(if $(FULL_RUN),$(MAKE) --no-print-directory asan-lane-build BUILD=asan)
	$(Q)$(if $(FULL_RUN),$(MAKE) --no-print-directory tsan-lane-build BUILD=tsan)
	$(Q)MERO_SHARED=$(SHARED) $(if $(FULL_RUN),MERO_LINT=1 MERO_ASAN_LANE=build/asan \
	    MERO_TSAN_LANE=build/tsan MERO_TSAN_LANE_TESTS="$(TSAN_LANE_TESTS)") \
	    tests/run.sh $(B)

asan-lane-build: $(LIB) $(TEST_BINS) $(REPLAYS) $(SHIPPED_ROOT)
tsan-lane-build: $(LIB) $(TSAN_LANE_TESTS:%=$(B)/tests/%) $(SHIPPED_ROOT)

# The fleet harness's scenarios at FLEET_N nodes (default 50; `make test` runs them at 12).
fleet: $(STAMP)
	$(Q)$(MAKE) --no-print-directory check-build BUILD=$(BUILD)
	$(Q)FLEET_N=$${FLEET_N:-50} TESTS=$${TESTS:-fleet/} MERO_SHARED=$(SHARED) tests/run.sh $(B)

asan:
	$(Q)ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    $(MAKE) --no-print-directory test BUILD=asan

# ThreadSanitizer: any report fails the run (exit code 66 with no `not ok` line counts as a
# failure in tests/run.sh). With TESTS set, only the unit tests whose name contains it.
TSAN_BINS = $(if $(TESTS),$(foreach t,$(TEST_BINS),$(if $(findstring $(patsubst unit/%,%,$(TESTS)),$(t)),$(t))),\
                $(TEST_BINS) $(BINS) $(REPLAYS) $(SHIPPED_ROOT))
tsan: $(STAMP)
	$(Q)$(MAKE) --no-print-directory BUILD=tsan tsan-build
	@# e2e/readme and e2e/demo_run run build/release/bin as the README writes it (issue 32)
	$(Q)$(if $(TESTS),true,$(MAKE) --no-print-directory all)
	$(Q)TSAN_OPTIONS=halt_on_error=1:exitcode=66:second_deadlock_stack=1 \
	    MERO_SHARED=$(SHARED) tests/run.sh build/tsan

tsan-build: $(LIB) $(TSAN_BINS) $(SHIPPED_ROOT)

# libFuzzer: the library and each target built with clang; corpora grow in build/fuzz-corpus.
FUZZ_SECONDS ?= 60
FUZZ_TARGET ?=
fuzz: $(STAMP)
	$(Q)$(MAKE) --no-print-directory BUILD=fuzz CC=clang-14 build/fuzz/libmero.a
	$(Q)set -e; for src in $(FUZZ_SRCS); do \
	    t=$$(basename $$src .c); t=$${t#fuzz_}; \
	    if [ -n "$(FUZZ_TARGET)" ] && [ "$(FUZZ_TARGET)" != "$$t" ]; then continue; fi; \
	    mkdir -p build/fuzz/bin build/fuzz-corpus/$$t tests/fuzz/corpus/$$t; \
	    clang-14 $(WARN) -O1 -g -fsanitize=fuzzer,address,undefined -Iinclude -Isrc -Itests \
	        $$(pkg-config --cflags $(PKGS)) $$src build/fuzz/libmero.a \
	        -o build/fuzz/bin/$$t $$(pkg-config --libs $(PKGS)) -lpthread -lm; \
	    scripts/fuzz-seeds.sh $$t $(SHARED) build/fuzz-corpus/$$t; \
	    echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
	    build/fuzz/bin/$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	        -artifact_prefix=build/fuzz/$$t- build/fuzz-corpus/$$t tests/fuzz/corpus/$$t; \
	done

bench: $(STAMP)
	$(Q)$(MAKE) --no-print-directory BUILD=release bench-build
	$(Q)MERO_SHARED=$(SHARED) bench/run.sh build/release

bench-build: $(LIB) $(BINS) $(BENCHES)

BANNED := strcpy|strcat|sprintf|vsprintf|gets|strtok|atoi|atol|rand|strncpy
lint: $(STAMP)
	$(Q)clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h')
	$(Q)! git grep -nE '\b($(BANNED))\s*\(' -- '*.c' '*.h' ':!tests/harness.h' \
	    | grep -vE '(snprintf|vsnprintf|_rand|rand_)' || { echo "lint: banned function"; exit 1; }
	$(Q)cppcheck --quiet --enable=warning,portability --error-exitcode=1 --inline-suppr \
	    -Iinclude -Isrc src
	$(Q)if ls man/*.[0-9] >/dev/null 2>&1; then mandoc -T lint -W warning man/*.[0-9]; fi
	$(Q)python3 scripts/lint-house.py src include/mero
	@echo "lint: ok"

run: $(STAMP)
	$(Q)$(MAKE) --no-print-directory all
	$(Q)scripts/demo.sh $(B)

clean:
	rm -rf build

# ---- libmero.so, make install, npm only for tests (issue 18; docs/install.md) ----
# The library objects are built position-independent (-fPIC, one object set for libmero.a and
# libmero.so; the binaries stay PIE). -fno-semantic-interposition keeps calls inside the
# library direct, as in a PIE.
SO_MAJOR := 0
VERSION := 0.1.0

# mero_build_info (issue 35): the version and the commit built, in a generated header that is
# rewritten only when they change, so only routes_metrics.o is rebuilt after a commit.
MERO_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
$(B)/gen/mero_build_info.h: FORCE
	$(Q)mkdir -p $(@D)
	$(Q)printf '#define MERO_BUILD_VERSION "%s"\n#define MERO_BUILD_COMMIT "%s"\n' \
	    '$(VERSION)' '$(MERO_COMMIT)' >$@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(B)/obj/src/api/routes_metrics.o: $(B)/gen/mero_build_info.h
$(B)/obj/src/api/routes_metrics.o: CFLAGS_ALL += -I $(B)/gen
.PHONY: FORCE
FORCE:
SONAME := libmero.so.$(SO_MAJOR)
SOLIB := $(B)/libmero.so.$(VERSION)
SOLINKS := $(B)/$(SONAME) $(B)/libmero.so
NPM_STAMP := build/.npm-ok
$(LIB_OBJS): CFLAGS_ALL += -fPIC -fno-semantic-interposition

$(SOLIB): $(LIB_OBJS)
	$(Q)mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--no-undefined $(filter-out -pie,$(LDFLAGS_ALL)) \
	    -o $@ $^ $(PKG_LIBS)
$(SOLINKS): $(SOLIB)
	$(Q)ln -sf $(notdir $<) $@

all check-build bench-build: $(SOLIB) $(SOLINKS)
test bench tsan lint fuzz: $(NPM_STAMP)

$(NPM_STAMP): $(STAMP) scripts/deps.sh tests/js/package.json
	$(Q)scripts/deps.sh --test
	$(Q)touch $@

# Where `make install` puts things; each overridable (BASHCOMPDIR as wireguard-tools does).
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/mero
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/vendor-completions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
# The Python module goes where the system's python3 looks under PREFIX (issue 35 item 7): the
# first dist-/site-packages directory on its sys.path below PREFIX (/usr: lib/python3/dist-packages,
# Debian's /usr/local: lib/python3.X/dist-packages); a PREFIX it does not search gets
# lib/python3/dist-packages, to be put on PYTHONPATH (docs/install.md).
PYTHONDIR ?= $(shell python3 -c 'import sys; p = sys.argv[1].rstrip("/") + "/"; \
    c = [d for d in sys.path if d.startswith(p) and d.endswith(("dist-packages", "site-packages"))]; \
    print(c[0] if c else p + "lib/python3/dist-packages")' '$(PREFIX)' 2>/dev/null || \
    echo '$(PREFIX)/lib/python3/dist-packages')
# mero.pc names libdir and includedir relative to ${prefix} when they lie under PREFIX (issue 35
# item 7), so `pkg-config --define-prefix` and a relocated tree work; others stay absolute.
PC_LIBDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))
PC_INCLUDEDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))
# The product: no test binaries (mero_p2p_test is an interop test peer).
PRODUCT_BINS = $(filter-out $(B)/bin/mero_p2p_test,$(BINS))

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/mero \
	    $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man8 \
	    $(DESTDIR)$(DATADIR)/sigstore $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(PYTHONDIR)
	install -m 0755 $(PRODUCT_BINS) $(DESTDIR)$(BINDIR)/
	install -m 0644 $(LIB) $(DESTDIR)$(LIBDIR)/
	install -m 0755 $(SOLIB) $(DESTDIR)$(LIBDIR)/
	ln -sf libmero.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libmero.so
	install -m 0644 include/mero/*.h $(DESTDIR)$(INCLUDEDIR)/mero/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(PC_LIBDIR)|' -e 's|@INCLUDEDIR@|$(PC_INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' -e 's|@REQUIRES@|$(PKGS)|' packaging/mero.pc.in \
	    >$(DESTDIR)$(PKGCONFIGDIR)/mero.pc
	install -m 0644 man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 man/*.8 $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 share/sigstore/trusted_root.json $(DESTDIR)$(DATADIR)/sigstore/
	install -d $(DESTDIR)$(DATADIR)/prometheus
	install -m 0644 share/prometheus/mero-alerts.yml $(DESTDIR)$(DATADIR)/prometheus/
	sed -e 's|@BINDIR@|$(BINDIR)|g' packaging/merod.service.in \
	    >$(DESTDIR)$(SYSTEMDUNITDIR)/merod.service
	@# the module finds libmero.so.0 in this install's LIBDIR (issue 35 item 7)
	sed -e 's|^_INSTALLED_LIBDIR = None$$|_INSTALLED_LIBDIR = "$(LIBDIR)"|' python/mero_verify.py \
	    >$(DESTDIR)$(PYTHONDIR)/mero_verify.py
	chmod 0644 $(DESTDIR)$(PYTHONDIR)/mero_verify.py
	@# meroctl's completion for bash, zsh and fish (share/bash-completion/meroctl,
	@# share/zsh/_meroctl, share/fish/meroctl.fish, kept equal to `meroctl completion SHELL`
	@# by tests/e2e/meroctl_cli.sh)
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0644 share/bash-completion/meroctl $(DESTDIR)$(BASHCOMPDIR)/meroctl
	install -m 0644 share/zsh/_meroctl $(DESTDIR)$(ZSHCOMPDIR)/_meroctl
	install -m 0644 share/fish/meroctl.fish $(DESTDIR)$(FISHCOMPDIR)/meroctl.fish
# ---- end of the libmero.so / install block ----

-include $(shell find build -name '*.d' 2>/dev/null)
