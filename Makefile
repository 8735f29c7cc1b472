# ckptnet: `make run` runs the default scenario, `make test` runs every test,
# `make bench` runs the benchmarks. Missing Debian packages are installed first.
CC      ?= cc
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L
WARN    := -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes -Werror=int-conversion -Werror=implicit-function-declaration -Werror=incompatible-pointer-types
OPT     ?= -O2 -g
# the plain build is optimised across files (the packet engine's per-packet
# path spans port.c, switch.c, mmu.c and nic.c); sanitizer builds are not
LTO     ?= -flto=auto
PKGS    := yaml-0.1 jansson yajl
B       := build
BA      := build/asan
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# clang only: unsigned wrap-around and float->int overflow are bugs here, except
# in the hashes and generators marked CKPT_WRAPS (src/core/rng.h)
BO      := build/ovf
OVFSAN  := -fsanitize=unsigned-integer-overflow,float-cast-overflow -fno-sanitize-recover=all
CLANG   := $(shell command -v clang 2>/dev/null)
# with OpenMPI's mpicc: build/ckptnet-mpi, the same program whose sweep
# spreads runs over MPI ranks (docs/sweep.md); the plain build needs no MPI
MPICC   := $(shell command -v mpicc 2>/dev/null)
BM      := build/mpi

LIB_SRC := $(wildcard src/*/*.c)
CLI_SRC := $(wildcard cli/*.c)
TST_SRC := $(wildcard tests/*.c)
BEN_SRC := $(wildcard bench/*.c)

DEPS_STAMP := $(B)/.deps
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lyaml -ljansson -lyajl)
CFLAGS_ALL = $(CSTD) $(WARN) $(OPT) -pthread -Iinclude -MMD -MP $(PKG_CFLAGS) $(CFLAGS)
LDLIBS_ALL = $(PKG_LIBS) -lm -pthread $(LDLIBS)

.PHONY: all run test test-build test-main test-san test-variants bench clean deps asan check-report test-overflow golden test-sweep validate
all: $(B)/ckptnet $(if $(MPICC),$(B)/ckptnet-mpi)

deps: $(DEPS_STAMP)
$(DEPS_STAMP): scripts/deps.sh
	@mkdir -p $(B)
	@./scripts/deps.sh
	@touch $@

$(B)/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LTO) -c $< -o $@
$(BA)/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(SAN) -O1 -c $< -o $@

$(BO)/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	clang $(CFLAGS_ALL) $(OVFSAN) -O1 -c $< -o $@

# rm first: ar keeps members whose sources are gone (a split file's old object)
$(B)/libckptnet.a: $(LIB_SRC:%.c=$(B)/%.o)
	rm -f $@ && $(AR) rcs $@ $^
$(BA)/libckptnet.a: $(LIB_SRC:%.c=$(BA)/%.o)
	rm -f $@ && $(AR) rcs $@ $^

$(B)/ckptnet: $(CLI_SRC:%.c=$(B)/%.o) $(B)/libckptnet.a
	$(CC) $(OPT) $(LTO) -o $@ $^ $(LDLIBS_ALL)
# only cli/sweep_mpi.c and cli/size_mpi.c differ (-DCKPT_MPI); the simulation
# objects are the plain build's, so both binaries give the same figures
$(BM)/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS_ALL) $(LTO) -DCKPT_MPI -c $< -o $@
MPI_CLI := cli/sweep_mpi.c cli/size_mpi.c
$(B)/ckptnet-mpi: $(MPI_CLI:%.c=$(BM)/%.o) $(filter-out $(MPI_CLI:%.c=$(B)/%.o),$(CLI_SRC:%.c=$(B)/%.o)) $(B)/libckptnet.a
	$(MPICC) $(OPT) $(LTO) -o $@ $^ $(LDLIBS_ALL)
$(B)/test_unit: $(TST_SRC:%.c=$(B)/%.o) $(B)/libckptnet.a
	$(CC) $(OPT) $(LTO) -o $@ $^ $(LDLIBS_ALL)
$(BA)/test_unit: $(TST_SRC:%.c=$(BA)/%.o) $(BA)/libckptnet.a
	$(CC) $(SAN) -o $@ $^ $(LDLIBS_ALL)
$(BO)/test_unit: $(TST_SRC:%.c=$(BO)/%.o) $(LIB_SRC:%.c=$(BO)/%.o)
	clang $(OVFSAN) -o $@ $^ $(LDLIBS_ALL)
# a program that embeds the library through include/ckptnet.h alone: no
# src/ or package include path (tests/header.sh runs it)
PUB_CFLAGS = $(CSTD) $(WARN) -Werror -pedantic-errors -Iinclude
$(B)/test_public: tests/public/embed.c include/ckptnet.h $(B)/libckptnet.a
	$(CC) $(PUB_CFLAGS) $(OPT) $(LTO) -o $@ $< $(B)/libckptnet.a $(LDLIBS_ALL)
$(BA)/test_public: tests/public/embed.c include/ckptnet.h $(BA)/libckptnet.a
	$(CC) $(PUB_CFLAGS) $(SAN) -O1 -o $@ $< $(BA)/libckptnet.a $(LDLIBS_ALL)
$(B)/bench_%: $(B)/bench/%.o $(B)/libckptnet.a
	$(CC) $(OPT) $(LTO) -o $@ $^ $(LDLIBS_ALL)

run: $(B)/ckptnet
	./$(B)/ckptnet run

# the MPI sweep and the overflow-checked unit tests, or a note where their
# compiler is missing
ifneq ($(MPICC),)
SWEEP_MPI = ./tests/sweep.sh ./$(B)/ckptnet-mpi
else
SWEEP_MPI = @echo "test-sweep: MPI build SKIPPED, mpicc is not installed (apt-get install libopenmpi-dev)"
endif
ifneq ($(CLANG),)
OVF_RUN = ./$(BO)/test_unit
else
OVF_RUN = @echo "test-overflow: SKIPPED, clang is not installed (apt-get install clang)"
endif
# make test: the deps, then the builds and then the tests as independent jobs
# (-j2 on a machine with two cores or more) that make hands to its two lanes
# the longest first (TEST_JOB_LIST below): the sanitizer build's unit tests,
# the slowest, in three shards (`test_unit --shard K/N`), the plain and
# overflow builds' unit tests, the CLI tests and the rest. Sub-makes, so
# that CLANG and MPICC are read after scripts/deps.sh installed them; -Oline
# prints each line whole.
TEST_JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); [ "$$n" -gt 2 ] && n=2; echo $$n)
test: deps
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) test-build
	./tests/layers.sh
	./tests/header.sh ./$(B)/ckptnet ./$(B)/test_public ./$(BA)/test_public
	@$(MAKE) --no-print-directory test-variants
	@echo "make test: $(TEST_JOBS) lanes: the unit tests (plain, under ASan+UBSan in three shards, under clang's overflow checks), the CLI, output, golden, validation and sweep tests"
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) -Oline test-jobs
	@echo "make test: all passed"

test-build: $(B)/test_unit $(BA)/test_unit $(B)/ckptnet $(B)/test_public $(BA)/test_public \
            $(if $(MPICC),$(B)/ckptnet-mpi) $(if $(CLANG),$(BO)/test_unit)

# The measurement builds (hybrid's trace, the team's, prefetch hints as loads) are
# built by hand only: checked here so they still compile, warning-free.
test-variants:
	$(CC) $(CSTD) $(WARN) -Werror -Iinclude $(PKG_CFLAGS) -fsyntax-only -DCKPT_HYBRID_TRACE src/pkt/hybrid.c
	$(CC) $(CSTD) $(WARN) -Werror -Iinclude $(PKG_CFLAGS) -fsyntax-only -DCKPT_TEAM_TRACE src/pkt/sched.c
	$(CC) $(CSTD) $(WARN) -Werror -Iinclude $(PKG_CFLAGS) -fsyntax-only -DCKPT_PREFETCH_LOADS src/pkt/*.c src/core/*.c
	@echo "test-variants: the trace and prefetch-load builds compile"

# the same jobs one after another: the plain build's, then the sanitizers'
test-main: test-unit test-cli test-outputs test-golden test-validation test-validate test-sweep
test-san: test-asan1 test-asan2 test-asan3 test-shards test-ovf

# make test's jobs, the longest first (session 43 at load 7, minutes: ASan
# shard 3 16, the plain unit tests 15, shard 2 12.5, shard 1 9.5, the overflow
# build's ~8, the CLI tests 6, the rest 3); each is one of test-main's or
# test-san's lines
ASAN_ENV = ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
TEST_JOB_LIST = test-asan3 test-unit test-asan2 test-ovf test-asan1 test-cli test-sweep \
                test-outputs test-golden test-validate test-validation test-shards
.PHONY: test-jobs $(TEST_JOB_LIST)
test-jobs: $(TEST_JOB_LIST)
test-asan1 test-asan2 test-asan3: test-asan%: $(BA)/test_unit
	$(ASAN_ENV) ./$(BA)/test_unit --shard $*/3
test-unit: $(B)/test_unit
	./$(B)/test_unit
# the three shards run every test once: none lost, none twice
test-shards: $(BA)/test_unit
	./tests/shards.sh ./$(BA)/test_unit 3
test-ovf: $(if $(CLANG),$(BO)/test_unit)
	$(OVF_RUN)
test-cli: $(B)/ckptnet
	./tests/cli.sh ./$(B)/ckptnet
test-outputs: $(B)/ckptnet
	./tests/outputs.sh ./$(B)/ckptnet
test-golden: $(B)/ckptnet
	./tests/golden.sh ./$(B)/ckptnet
test-validation: $(B)/ckptnet
	./tests/validation.sh ./$(B)/ckptnet
test-validate: $(B)/ckptnet
	./validation/validate.sh ./$(B)/ckptnet

test-sweep: $(B)/ckptnet $(if $(MPICC),$(B)/ckptnet-mpi)
	./tests/sweep.sh ./$(B)/ckptnet
	$(SWEEP_MPI)

# the validation pack: predicted against published MLPerf Storage figures
# (validation/cases.txt, docs/storage.md); fails on a case outside its tolerance
validate: $(B)/ckptnet
	./validation/validate.sh ./$(B)/ckptnet

# rewrite the golden results (tests/golden/); the commit says why they changed
golden: $(B)/ckptnet
	./tests/golden.sh ./$(B)/ckptnet --update

# the unit tests again under clang's unsigned-overflow and float-cast checks
test-overflow: $(if $(CLANG),$(BO)/test_unit)
	$(OVF_RUN)

# an HTML report rendered in headless Chromium (installed when missing)
check-report: $(B)/ckptnet
	./scripts/check-report.sh ./$(B)/ckptnet $(B)/report-check

bench: $(BEN_SRC:bench/%.c=$(B)/bench_%) $(B)/ckptnet
	./bench/run.sh

# libFuzzer on the scenario loader (fuzz/README.md) with ASan+UBSan for
# FUZZ_SECONDS; needs clang and libFuzzer (Debian: clang, libclang-rt-14-dev).
# New inputs go to build/fuzz/corpus, crashes to build/fuzz/.
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FZ           := $(B)/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
$(FZ)/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CSTD) $(WARN) -g -O1 -Iinclude $(PKG_CFLAGS) $(FUZZ_SAN) \
	    -fsanitize=fuzzer-no-link -c $< -o $@
$(FZ)/scenario_fuzz: $(LIB_SRC:%.c=$(FZ)/%.o) $(FZ)/fuzz/scenario_fuzz.o
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(LDLIBS_ALL)
.PHONY: fuzz
fuzz: $(FZ)/scenario_fuzz
	@mkdir -p $(FZ)/corpus
	cd $(FZ) && ASAN_OPTIONS=detect_leaks=1 ./scenario_fuzz -max_total_time=$(FUZZ_SECONDS) \
	    -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
	    -dict=../../fuzz/scenario.dict corpus ../../fuzz/corpus ../../scenarios

# libFuzzer on the topology importer (fabric.topology_file: JSON by yajl,
# YAML by libyaml); seeds fuzz/topology/, new inputs build/fuzz/topo-corpus
$(FZ)/topology_fuzz: $(LIB_SRC:%.c=$(FZ)/%.o) $(FZ)/fuzz/topology_fuzz.o
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(LDLIBS_ALL)
.PHONY: fuzz-topology
fuzz-topology: $(FZ)/topology_fuzz
	@mkdir -p $(FZ)/topo-corpus
	cd $(FZ) && ASAN_OPTIONS=detect_leaks=1 ./topology_fuzz -max_total_time=$(FUZZ_SECONDS) \
	    -timeout=10 -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
	    topo-corpus ../../fuzz/topology

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
