# sandbx — build, test, install.
#
#   make                         build ./sandbx (in $(B)/, default build/)
#   make check                   install missing Debian packages, build, run every test
#   make install PREFIX=/usr/local DESTDIR=
#   make DEVELOPER=1             warnings are errors
#   make SANITIZE=address,undefined check
#   make fuzz                    libFuzzer targets (clang)
#   make fuzz-measure            what each reaches in 60 s (cov, ft)
#
# Several worktrees of one checkout may build side by side with B=build-NAME.

PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
MANDIR    ?= $(PREFIX)/share/man
DESTDIR   ?=
B         ?= build
CC        ?= cc
PKG_CONFIG ?= pkg-config

# No library but libc is linked at build time.  cJSON, libseccomp, libcurl,
# libcrypto, ncursesw and PCRE2 are opened at run time (src/util/dl.h) by the
# code that needs them: linking them would cost every exec of the sandbox
# helper their loader work (HACKING.md).  Their headers are still used.
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags libcjson libseccomp libpcre2-8 ncursesw libcurl libcrypto cmocka 2>/dev/null)
PKG_LIBS   :=

CFLAGS    ?= -O2 -g
WARN      := -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
             -Wpointer-arith -Wvla -Wwrite-strings -Wno-missing-field-initializers \
             -Wno-unused-parameter -Wimplicit-fallthrough
HARDEN    := -fstack-protector-strong -fPIE -Wa,--noexecstack
ifeq ($(findstring address,$(SANITIZE)),)
HARDEN    += -D_FORTIFY_SOURCE=3
endif
ifeq ($(DEVELOPER),1)
WARN      += -Werror -Werror=format-nonliteral -Werror=implicit-function-declaration
endif
ifneq ($(SANITIZE),)
SAN       := -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
endif
ALL_CFLAGS := -std=gnu11 -D_GNU_SOURCE $(WARN) $(HARDEN) $(SAN) -Isrc $(PKG_CFLAGS) $(CFLAGS)
LDFLAGS   ?=
ALL_LDFLAGS := -pie -Wl,-z,relro,-z,now -Wl,--as-needed $(SAN) $(LDFLAGS)
LIBS      := $(PKG_LIBS) -ldl -lpthread -lm

# V=1 shows every command; by default one short line per file.
ifeq ($(V),1)
Q :=
else
Q := @
endif

SRCS      := $(sort $(wildcard src/*/*.c))
LIB_SRCS  := $(filter-out src/main.c,$(SRCS))
OBJS      := $(patsubst src/%.c,$(B)/obj/%.o,$(LIB_SRCS))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNITS     := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRCS))
PROBE_SRCS := $(sort $(wildcard tests/probes/*.c))
PROBES    := $(patsubst tests/probes/%.c,$(B)/probes/%,$(PROBE_SRCS))
TOOL_SRCS := $(sort $(wildcard tests/tools/*.c))
TOOLS     := $(patsubst tests/tools/%.c,$(B)/testtools/%,$(TOOL_SRCS))
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))

.PHONY: all check unit integration integration-user deps install clean fuzz fuzz-smoke fuzz-measure claims run demo \
	valgrind sanitize
all: $(B)/sandbx $(B)/probes/.stamp $(TOOLS)

$(B)/obj/%.o: src/%.c $(wildcard src/*/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(B)/libsandbx.a: $(OBJS)
	@rm -f $@
	$(Q)ar rcs $@ $^

$(B)/sandbx: $(B)/obj/main.o $(B)/libsandbx.a
	@echo "  LINK    $@"
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(B)/obj/main.o: src/main.c $(wildcard src/*/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

# test_seccomp evaluates libseccomp's own export: linked to it.
$(B)/tests/test_seccomp: LIBS += $(shell $(PKG_CONFIG) --libs libseccomp)
# test_dl loads copies of a probe object whose constructor records a
# variable (dl_load's load_env), one per case: a second load of one is no
# load (the fourth is loaded under a tight ulimit -v).
DLPROBES := $(B)/tests/libdlprobe1.so $(B)/tests/libdlprobe2.so $(B)/tests/libdlprobe3.so \
	    $(B)/tests/libdlprobe4.so
$(B)/tests/libdlprobe%.so: tests/unit/dlprobe_lib.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O1 -Wall -shared -fPIC -o $@ $<
$(B)/tests/test_dl: $(DLPROBES)
$(B)/tests/test_dl: ALL_CFLAGS += -DDLPROBE_DIR='"$(abspath $(B))/tests"'
$(B)/tests/%: tests/unit/%.c $(B)/libsandbx.a $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	@echo "  TEST    $@"
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/unit $(ALL_LDFLAGS) -o $@ $< $(B)/libsandbx.a $(LIBS) -lcmocka

# Probes run inside the sandbox, where only the granted paths exist: static.
$(B)/probes/%: tests/probes/%.c tests/probes/probe.h
	@mkdir -p $(dir $@)
	@echo "  PROBE   $@"
	$(Q)$(CC) -std=gnu11 -D_GNU_SOURCE -O1 -Wall -Isrc -static -o $@ $<
$(B)/probes/.stamp: $(PROBES)
	@mkdir -p $(dir $@); touch $@

# Test helpers that run outside the sandbox (mock provider, pty driver...).
$(B)/testtools/%: tests/tools/%.c $(B)/libsandbx.a
	@mkdir -p $(dir $@)
	@echo "  TOOL    $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(B)/libsandbx.a $(LIBS)

# resolve runs inside the sandbox (no /proc for a sanitizer's runtime) and
# must be dynamic (glibc's NSS): built plain, without the library.
$(B)/testtools/resolve: tests/tools/resolve.c src/util/util.c
	@mkdir -p $(dir $@)
	@echo "  TOOL    $@"
	$(Q)$(CC) -std=gnu11 -D_GNU_SOURCE -O1 -Wall -Isrc -o $@ $< src/util/util.c

# ncfloor (bench/tui.sh's floor) is a bare ncursesw program: linked to it.
$(B)/testtools/ncfloor: tests/tools/ncfloor.c $(B)/libsandbx.a
	@mkdir -p $(dir $@)
	@echo "  TOOL    $@"
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIBS) $(shell $(PKG_CONFIG) --libs ncursesw)

deps:
	@scripts/install-deps.sh

unit: $(UNITS)
	@tests/run-unit.sh $(UNITS)

integration: all
	@SANDBX=$(abspath $(B)/sandbx) PROBES=$(abspath $(B)/probes) TESTTOOLS=$(abspath $(B)/testtools) \
		tests/integration/run.sh

integration-user: all
	@B=$(B) scripts/ci-unprivileged.sh

claims:
	@tests/check-claims.sh

# The unit suite under valgrind: any error or definite/indirect leak fails.
valgrind: $(UNITS)
	@VALGRIND=1 tests/run-unit.sh $(UNITS)

# The unit and integration suites built with ASan+UBSan in $(B)-san.
sanitize:
	@SANDBX_SANITIZED=1 $(MAKE) --no-print-directory B=$(B)-san SANITIZE=address,undefined all unit integration

# Each fuzz target for a few seconds (make check): it must build and not crash.
# A target $$n starts from the checked-in seeds, tests/fuzz/corpus/$$n, given
# as a second corpus directory: libFuzzer writes what it finds to the first
# one only, $(B)/fuzz/corpus-$$n, so the tree is only read; and from its
# dictionary tests/fuzz/$$n.dict when there is one.  FUZZ_SEEDS expands in
# the loops below, where $$n is set.
FUZZ_SECS ?= 5
FUZZ_SEEDS = $$([ -f tests/fuzz/$$n.dict ] && echo -dict=tests/fuzz/$$n.dict) \
	     $$([ -d tests/fuzz/corpus/$$n ] && echo tests/fuzz/corpus/$$n)
fuzz-smoke: fuzz
	@for f in $(FUZZ_SRCS); do n=$$(basename $$f .c); \
	  $(B)/fuzz/$$n -max_total_time=$(FUZZ_SECS) -rss_limit_mb=2048 $(B)/fuzz/corpus-$$n $(FUZZ_SEEDS) \
	    >/dev/null 2>$(B)/fuzz/$$n.log \
	    || { echo "fuzz: $$n failed"; tail -30 $(B)/fuzz/$$n.log; exit 1; }; \
	  echo "fuzz: $$n ok ($$(grep -o 'Done [0-9]* runs' $(B)/fuzz/$$n.log | tail -1))"; done

# What each target reaches in FUZZ_MEASURE_SECS from an empty corpus, seeds
# and dictionary included (FUZZ_SEEDLESS=1: without them), one at a time:
# its last cov (edges) and ft (features).  FUZZ_ONLY=fuzz_x narrows it.
FUZZ_MEASURE_SECS ?= 60
FUZZ_ONLY ?= $(basename $(notdir $(FUZZ_SRCS)))
fuzz-measure: fuzz
	@for n in $(FUZZ_ONLY); do d=$(B)/fuzz/measure-$$n; rm -rf $$d; mkdir -p $$d; \
	  $(B)/fuzz/$$n -max_total_time=$(FUZZ_MEASURE_SECS) -rss_limit_mb=2048 $$d \
	    $(if $(filter 1,$(FUZZ_SEEDLESS)),,$(FUZZ_SEEDS)) >/dev/null 2>$$d.log \
	    || { echo "fuzz: $$n failed"; tail -30 $$d.log; exit 1; }; \
	  echo "$$n $$(grep -E '^#[0-9]+' $$d.log | tail -1 | grep -oE '(cov|ft): [0-9]+' | tr '\n' ' ')"; done

check: deps
	@$(MAKE) --no-print-directory all $(UNITS)
	@$(MAKE) --no-print-directory claims
	@$(MAKE) --no-print-directory unit
	@$(MAKE) --no-print-directory valgrind
	@$(MAKE) --no-print-directory fuzz-smoke
	@$(MAKE) --no-print-directory integration

# libFuzzer targets: the library is compiled once with clang's fuzzer
# instrumentation into $(B)/fuzzobj, then each target links against it.
FUZZ_CFLAGS := -std=gnu11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer-no-link,address,undefined -Isrc $(PKG_CFLAGS)
FUZZ_OBJS := $(patsubst src/%.c,$(B)/fuzzobj/%.o,$(LIB_SRCS))
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(FUZZ_SRCS))

$(B)/fuzzobj/%.o: src/%.c $(wildcard src/*/*.h)
	@mkdir -p $(dir $@)
	@clang $(FUZZ_CFLAGS) -c $< -o $@

$(B)/fuzzobj/libfuzz.a: $(FUZZ_OBJS)
	@rm -f $@
	@ar rcs $@ $^

$(B)/fuzz/%: tests/fuzz/%.c $(B)/fuzzobj/libfuzz.a
	@mkdir -p $(dir $@) $(B)/fuzz/corpus-$*
	@echo "clang $*"
	@clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(B)/fuzzobj/libfuzz.a $(PKG_LIBS) -ldl -lpthread

fuzz: $(FUZZ_BINS)

install: $(B)/sandbx
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(B)/sandbx $(DESTDIR)$(BINDIR)/sandbx
	if [ -f doc/sandbx.1 ]; then install -m 0644 doc/sandbx.1 $(DESTDIR)$(MANDIR)/man1/sandbx.1; fi

# From a copy outside the tree: sandbx refuses to grant write on a tree
# that holds its own program (the command could replace it), and this tree
# holds build/sandbx.
run: all
	@d=$$(mktemp -d "$${TMPDIR:-/tmp}/sandbx-run.XXXXXX") && cp $(B)/sandbx "$$d/sandbx" && \
	{ "$$d/sandbx" tui; rc=$$?; rm -rf "$$d"; exit $$rc; }

# The TUI against the bundled mock provider: a read, an approval question,
# a sandboxed bash call and a refusal, with no key and no network.
demo: all
	@scripts/tui-demo.sh $(B)

clean:
	rm -rf $(B) sandbx
