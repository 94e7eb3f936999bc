# gtcc: one non-recursive Makefile for the compiler, the runtime, the tests,
# the examples and the benchmarks. Everything is built out of tree, in
# $(BUILD) (build/, or build/san with SANITIZE=1).
#
#   make                      build/bin/gtcc, build/lib/libgtrt.{a,so}, and where nvcc
#                             is found build/lib/libgtrt-cuda.{a,so} (CUDA device layer)
#   make check [SANITIZE=1]   unit tests (Check), golden tests, robustness test
#   make golden-update        rewrite golden expectations for review (git diff)
#   make fuzz [FUZZ_SECONDS=N] fuzz the emitters with generated programs (tests/fuzz/emit.sh)
#   make vec-report [VEC_MARCH=isa] which point loops of the openmp output gcc and clang
#                             vectorise (tools/vec_report.sh; the `vec` group checks it)
#   make demo                 run gtcc on examples/*.stn
#   make bench                benchmarks (never part of check; the Python package's call
#                             overhead and large-call ratio last: bench/python/run.sh)
#   make bench-steps          the time-tiled S_steps table alone (bench/bench_steps.c)
#   make bench-peers          gtcc against Devito and GT4Py (a bench-only venv)
#   make cuda-report          the SASS of the cuda backend's kernels: registers, occupancy,
#                             loads, divisions and instructions per point (tools/cuda_report.sh;
#                             cuobjdump from PyPI into build/sass-venv; the `cuda` group checks it)
#   make install PREFIX=DIR   DIR/bin, DIR/include/gt, DIR/lib, DIR/lib/pkgconfig,
#                             DIR/share/gtcc/fortran (the Fortran modules gtrt and gtrt_mpi, as source),
#                             DIR/share/man/man1/gtcc.1
#   make clean
#
# Sources are found by wildcard: a new compiler/*.c, runtime/src/*.c,
# tests/unit/check_*.c or bench/bench_*.c is picked up without editing this
# file. A tests/unit/check_NAME.c file must define `Suite *suite_NAME(void)`.

SANITIZE ?=
ifeq ($(SANITIZE),1)
BUILD ?= build/san
# float-cast-overflow: a floating value out of an integer type's range converted to it (undefined
# behaviour that -fsanitize=undefined leaves out; int(e) of the language must never do it)
SANFLAGS = -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer
else
BUILD ?= build
SANFLAGS =
endif

PREFIX  ?= /usr/local
CC      ?= cc
ifeq ($(origin CC),default)
CC = cc
endif
OPT     ?= -O2 -g
WARN    = -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
          -Wwrite-strings -Wno-unused-parameter
CFLAGS  ?=
ALL_CFLAGS = $(WARN) $(OPT) $(SANFLAGS) -D_POSIX_C_SOURCE=200809L $(CFLAGS)
LDFLAGS ?=
ALL_LDFLAGS = $(SANFLAGS) $(LDFLAGS)
FLEX    ?= flex
BISON   ?= bison

VERSION = 0.1.0

# --- build dependencies --------------------------------------------------------
DEPS_OK = $(BUILD)/.deps-ok
$(DEPS_OK): tools/deps.sh
	@tools/deps.sh
	@mkdir -p $(@D) && touch $@

CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   = $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt -lpthread)

# --- runtime: libgtrt --------------------------------------------------------------
RT_SRC  = $(sort $(wildcard runtime/src/*.c))
RT_OBJ  = $(RT_SRC:%.c=$(BUILD)/obj/%.o)
RT_HDR  = $(wildcard runtime/include/gt/*.h)
RT_A    = $(BUILD)/lib/libgtrt.a
RT_SO   = $(BUILD)/lib/libgtrt.so
RT_CFLAGS = -Iruntime/include -Iruntime/src -fPIC -fvisibility=default
RT_LIBS = -lm

$(BUILD)/obj/runtime/%.o: runtime/%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(RT_CFLAGS) -MMD -MP -c $< -o $@

$(RT_A): $(RT_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# the soname libgtrt.so: a process that loaded libgtrt.so by its path (the Python package
# does) then satisfies libgtrt-mpi.so's and libgtrt-cuda.so's NEEDED libgtrt.so with it,
# wherever the library directory is (not on the loader's path)
$(RT_SO): $(RT_OBJ)
	@mkdir -p $(@D)
	$(CC) -shared $(ALL_LDFLAGS) -Wl,-soname,libgtrt.so -o $@ $^ $(RT_LIBS)

# --- runtime: libgtrt-cuda, the CUDA device layer, where nvcc is found -----------------
# (on PATH or in /usr/local/cuda/bin; NVCC= on the command line turns it off)
NVCC ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
CUDA_HOME = $(patsubst %/bin/nvcc,%,$(NVCC))
RT_CUDA_SRC = $(sort $(wildcard runtime/src/cuda/*.c))
RT_CUDA_CU = $(sort $(wildcard runtime/src/cuda/*.cu))
RT_CUDA_OBJ = $(RT_CUDA_SRC:%.c=$(BUILD)/obj/%.o) $(RT_CUDA_CU:%.cu=$(BUILD)/obj/%.cu.o)
# the kernels of the device layer (pack.cu: the MPI exchange's halo strips), for the GPUs
# the cuda group builds for, with PTX for later ones
RT_NVCCFLAGS = -O2 -std=c++17 -Werror all-warnings \
    -Xcompiler -fPIC,-fno-exceptions,-fno-threadsafe-statics \
    -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90]
RT_CUDA_A  = $(BUILD)/lib/libgtrt-cuda.a
RT_CUDA_SO = $(BUILD)/lib/libgtrt-cuda.so
RT_CUDA_LIBS = -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart
ifneq ($(NVCC),)
RT_CUDA = $(RT_CUDA_A) $(RT_CUDA_SO)
else
RT_CUDA =
endif

$(BUILD)/obj/runtime/src/cuda/%.o: runtime/src/cuda/%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(RT_CFLAGS) -I$(CUDA_HOME)/include -MMD -MP -c $< -o $@

$(BUILD)/obj/runtime/src/cuda/%.cu.o: runtime/src/cuda/%.cu | $(DEPS_OK)
	@mkdir -p $(@D)
	$(NVCC) $(RT_NVCCFLAGS) -Iruntime/src -Iruntime/include -c $< -o $@

$(RT_CUDA_A): $(RT_CUDA_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(RT_CUDA_SO): $(RT_CUDA_OBJ) $(RT_SO)
	@mkdir -p $(@D)
	$(CC) -shared $(ALL_LDFLAGS) -o $@ $(RT_CUDA_OBJ) -L$(BUILD)/lib -lgtrt $(RT_CUDA_LIBS)

# --- runtime: libgtrt-mpi, distributed runs, where mpicc is found -----------------------
# (MPICC= on the command line turns it off; docs/mpi.md)
MPICC ?= $(shell command -v mpicc 2>/dev/null)
MPI_CFLAGS = $(shell $(MPICC) --showme:compile 2>/dev/null)
MPI_LIBS   = $(shell $(MPICC) --showme:link 2>/dev/null)
RT_MPI_SRC = $(sort $(wildcard runtime/src/mpi/*.c))
RT_MPI_OBJ = $(RT_MPI_SRC:%.c=$(BUILD)/obj/%.o)
RT_MPI_A  = $(BUILD)/lib/libgtrt-mpi.a
RT_MPI_SO = $(BUILD)/lib/libgtrt-mpi.so
ifneq ($(MPICC),)
RT_MPI = $(RT_MPI_A) $(RT_MPI_SO)
else
RT_MPI =
endif

$(BUILD)/obj/runtime/src/mpi/%.o: runtime/src/mpi/%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(RT_CFLAGS) $(MPI_CFLAGS) -MMD -MP -c $< -o $@

$(RT_MPI_A): $(RT_MPI_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(RT_MPI_SO): $(RT_MPI_OBJ) $(RT_SO)
	@mkdir -p $(@D)
	$(CC) -shared $(ALL_LDFLAGS) -o $@ $(RT_MPI_OBJ) -L$(BUILD)/lib -lgtrt $(MPI_LIBS)

# --- compiler: gtcc --------------------------------------------------------------
GEN     = $(BUILD)/gen
CC_SRC  = $(sort $(filter-out compiler/main.c,$(wildcard compiler/*.c)))
CC_OBJ  = $(CC_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/gen/parser.o $(BUILD)/obj/gen/lexer.o
CC_LIB  = $(BUILD)/lib/libgtcc.a
GTCC    = $(BUILD)/bin/gtcc
CC_CFLAGS = -Icompiler -I$(GEN) -DGTCC_VERSION='"$(VERSION)"'

# bison and flex each write a .c and its .h in one run. The .c's rule runs them and then
# touches the .h, which depends on the .c: its own rule only touches it (an .h older than
# its .c, from an older Makefile) or, if it went missing, runs the tool again. (One rule
# with both targets runs bison twice at once under make -j; a grouped target `&:` keeps
# GNU make 4.3's `make -n` from showing what a grammar edit rebuilds.)
BISON_RUN = $(BISON) -Wall -Werror --defines=$(GEN)/parser.h -o $(GEN)/parser.c grammar/stencil.y
FLEX_RUN  = $(FLEX) --header-file=$(GEN)/lexer.h -o $(GEN)/lexer.c grammar/stencil.l

$(GEN)/parser.c: grammar/stencil.y | $(DEPS_OK)
	@mkdir -p $(GEN)
	$(BISON_RUN)
	@touch $(GEN)/parser.h

$(GEN)/parser.h: $(GEN)/parser.c
	@if [ -f $@ ]; then touch $@; else $(BISON_RUN) && touch $@; fi

$(GEN)/lexer.c: grammar/stencil.l | $(DEPS_OK)
	@mkdir -p $(GEN)
	$(FLEX_RUN)
	@touch $(GEN)/lexer.h

$(GEN)/lexer.h: $(GEN)/lexer.c
	@if [ -f $@ ]; then touch $@; else $(FLEX_RUN) && touch $@; fi

# Generated files compile without the strictest warnings (flex's output is not ours).
$(BUILD)/obj/gen/%.o: $(GEN)/%.c | $(GEN)/parser.h $(GEN)/lexer.h
	@mkdir -p $(@D)
	$(CC) $(filter-out -Wmissing-prototypes -Wshadow,$(ALL_CFLAGS)) -Wno-unused-function \
	    -Wno-sign-compare $(CC_CFLAGS) -MMD -MP -c $< -o $@

# The generated headers are order-only: they exist before any compiler object
# is built, and the -MMD dependency files make only the objects that include
# them (parse.c, check_lexer.c) rebuild after a grammar edit.
$(BUILD)/obj/compiler/%.o: compiler/%.c | $(GEN)/parser.h $(GEN)/lexer.h $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(CC_CFLAGS) -MMD -MP -c $< -o $@

$(CC_LIB): $(CC_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(GTCC): $(BUILD)/obj/compiler/main.o $(CC_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -lm

# --- pkg-config file: written at install time, for the PREFIX installed to ------------
PC_LIBS = $(shell d=$$(ls -d /usr/lib/llvm-*/lib 2>/dev/null | while read x; do [ -e $$x/libomp.so ] && echo $$x; done | tail -n 1); if [ -n "$$d" ]; then echo "-L$$d -Wl,-rpath,$$d -lomp -lm"; else echo "-fopenmp -lm"; fi)
PC_CFLAGS = -fopenmp
define write_pc
sed -e 's|@PREFIX@|$(1)|g' -e 's|@VERSION@|$(VERSION)|g' -e 's|@LIBS@|$(PC_LIBS)|g' \
    -e 's|@CFLAGS@|$(PC_CFLAGS)|g' runtime/gtrt.pc.in > $(2)
endef

.DEFAULT_GOAL := all
.PHONY: all check unit golden golden-update robust demo bench bench-steps bench-peers cuda-report check-gpu bench-gpu install clean
all: $(GTCC) $(RT_A) $(RT_SO) $(RT_CUDA) $(RT_MPI)

# --- unit tests (Check) ------------------------------------------------------------
UNIT_SRC = $(sort $(wildcard tests/unit/check_*.c))
UNIT_OBJ = $(UNIT_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_BIN = $(BUILD)/tests/unit
SUITES_H = $(GEN)/suites.h

# suites.h lists one X(NAME) per tests/unit/check_NAME.c, written again when one is added
# (tests/unit changes), removed or edited. Like the parser's headers it is order-only: the
# -MMD files make only main.o, which includes it, rebuild.
$(SUITES_H): $(UNIT_SRC) tests/unit Makefile
	@mkdir -p $(@D)
	@for f in $(UNIT_SRC); do n=$${f#tests/unit/check_}; echo "X($${n%.c})"; done > $@

$(BUILD)/obj/tests/unit/%.o: tests/unit/%.c | $(SUITES_H) $(GEN)/parser.h $(GEN)/lexer.h $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(CC_CFLAGS) -Iruntime/include -Iruntime/src -Itests/unit \
	    $(CHECK_CFLAGS) -DGTCC_BIN='"$(abspath $(GTCC))"' -MMD -MP -c $< -o $@

# The MPI layer's MPI-free part (runtime/src/mpi/call.c, the hooks of a distributed call's
# placement) is linked into the unit tests too: check_mpi_call.c tests it without MPI.
UNIT_MPI_OBJ = $(BUILD)/obj/runtime/src/mpi/call.o

$(UNIT_BIN): $(UNIT_OBJ) $(BUILD)/obj/tests/unit/main.o $(UNIT_MPI_OBJ) $(CC_LIB) $(RT_A)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(RT_LIBS)

# Each test group writes "PASSED FAILED" to $(RESULTS)/NAME; `check` adds them up.
RESULTS = $(BUILD)/results
TEST_ENV = GTCC=$(abspath $(GTCC)) BUILD=$(abspath $(BUILD)) RESULTS=$(abspath $(RESULTS)) \
           CC="$(CC)" SANFLAGS="$(SANFLAGS)" ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
           UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

unit: all $(UNIT_BIN)
	@mkdir -p $(RESULTS)
	-@$(TEST_ENV) $(UNIT_BIN)

golden: all
	@mkdir -p $(RESULTS)
	-@$(TEST_ENV) tests/golden/run.sh

golden-update: all
	@$(TEST_ENV) tests/golden/run.sh --update

robust: all
	@mkdir -p $(RESULTS)
	-@$(TEST_ENV) tests/fuzz/run.sh

# Extra test groups (numeric, differential, ...) add themselves to CHECK_GROUPS.
CHECK_GROUPS = unit golden robust
-include tests/groups.mk

check: all
	@rm -rf $(RESULTS); mkdir -p $(RESULTS)
	@$(MAKE) --no-print-directory -k $(CHECK_GROUPS) || true
	@tools/summary.sh $(RESULTS) $(CHECK_GROUPS)

# --- demo, bench ---------------------------------------------------------------------
demo: all
	@$(TEST_ENV) tools/demo.sh

BENCH_SRC = $(sort $(wildcard bench/bench_*.c))
BENCH_BIN = $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
$(BUILD)/bench/%: bench/%.c $(CC_LIB) $(RT_A) | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -O3 -march=native $(CC_CFLAGS) -Iruntime/include -Iruntime/src -Ibench \
	    -DGTCC_BIN='"$(abspath $(GTCC))"' -o $@ $< $(CC_LIB) $(RT_A) $(RT_LIBS)

# bench_gtcc builds examples/ against an installed gtcc: installed here first
BENCH_PREFIX = $(abspath $(BUILD))/bench/prefix
bench: all $(BENCH_BIN)
	@$(MAKE) --no-print-directory -s install PREFIX=$(BENCH_PREFIX) >/dev/null
	@for b in $(BENCH_BIN); do echo "== $$b"; BENCH_PREFIX=$(BENCH_PREFIX) $(TEST_ENV) $$b || exit 1; done
	@echo "== bench/cuda_static.sh"; $(TEST_ENV) bench/cuda_static.sh
	@echo "== bench/mpi_bench.sh"; $(TEST_ENV) bench/mpi_bench.sh
	@echo "== bench/python/run.sh"; $(TEST_ENV) bench/python/run.sh

# the steps table alone (bench/bench_steps.c): time-tiled S_steps against single calls
bench-steps: all $(BUILD)/bench/bench_steps
	@BENCH_PREFIX=$(BENCH_PREFIX) $(TEST_ENV) $(BUILD)/bench/bench_steps

# --- on a machine with a GPU (docs/cuda.md): without one they say so and fail ----------
check-gpu: all
	@$(TEST_ENV) tests/gpu/run.sh

bench-gpu: all
	@$(TEST_ENV) bench/bench_gpu.sh

# gtcc against Devito and GT4Py (installed into a bench-only venv): never part of check
bench-peers: all
	@$(TEST_ENV) bench/peers/run.sh

# the SASS report of the cuda backend's kernels (docs/cuda.md); its integer columns are
# checked by the cuda group against tests/cuda/sass.expected
cuda-report: all
	@$(TEST_ENV) tools/cuda_report.sh

# --- install ---------------------------------------------------------------------------
# PREFIX is written into the pkg-config files (-I, -L, -rpath), so it must be an absolute
# directory without blanks: PREFIX=relx wrote prefix=relx, which pkg-config users outside
# that directory could not build against, and PREFIX= installed into /bin, /lib, /include.
install: all
	$(if $(and $(filter /%,$(PREFIX)),$(filter 1,$(words $(PREFIX)))),,$(error make install: \
	    PREFIX '$(PREFIX)' is not an absolute directory without blanks (it goes into the \
	    pkg-config files); give one such as PREFIX=$$HOME/gtcc))
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include/gt \
	    $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(GTCC) $(DESTDIR)$(PREFIX)/bin/gtcc
	install -m 644 $(RT_HDR) $(DESTDIR)$(PREFIX)/include/gt/
	install -m 644 $(RT_A) $(DESTDIR)$(PREFIX)/lib/libgtrt.a
	install -m 755 $(RT_SO) $(DESTDIR)$(PREFIX)/lib/libgtrt.so
	$(call write_pc,$(PREFIX),$(DESTDIR)$(PREFIX)/lib/pkgconfig/gtrt.pc)
ifneq ($(NVCC),)
	install -m 644 $(RT_CUDA_A) $(DESTDIR)$(PREFIX)/lib/libgtrt-cuda.a
	install -m 755 $(RT_CUDA_SO) $(DESTDIR)$(PREFIX)/lib/libgtrt-cuda.so
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    -e 's|@CUDA_HOME@|$(CUDA_HOME)|g' runtime/gtrt-cuda.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/gtrt-cuda.pc
endif
ifneq ($(MPICC),)
	install -m 644 $(RT_MPI_A) $(DESTDIR)$(PREFIX)/lib/libgtrt-mpi.a
	install -m 755 $(RT_MPI_SO) $(DESTDIR)$(PREFIX)/lib/libgtrt-mpi.so
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' runtime/gtrt-mpi.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/gtrt-mpi.pc
endif
	install -d $(DESTDIR)$(PREFIX)/share/gtcc/fortran
	install -m 644 runtime/fortran/gtrt.f90 $(DESTDIR)$(PREFIX)/share/gtcc/fortran/gtrt.f90
	install -m 644 runtime/fortran/gtrt_mpi.f90 $(DESTDIR)$(PREFIX)/share/gtcc/fortran/gtrt_mpi.f90
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' runtime/gtrt-fortran.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/gtrt-fortran.pc
	install -m 644 docs/gtcc.1 $(DESTDIR)$(PREFIX)/share/man/man1/gtcc.1

# Removes $(BUILD) (build/, build/san, or the BUILD given). Refuses an empty BUILD, one
# with blanks, and a directory that holds the source tree (/, ., .., ../.., ...).
clean:
	@b='$(BUILD)'; \
	case "$$b" in ""|*[[:space:]]*) echo "make clean: refusing to remove BUILD='$$b'" >&2; exit 2;; esac; \
	if [ -d "$$b" ]; then \
	    a=$$(cd "$$b" && pwd -P) && here=$$(pwd -P) || exit 2; \
	    case "$$here/" in "$${a%/}"/*) \
	        echo "make clean: refusing to remove BUILD='$$b': it holds the source tree" >&2; exit 2;; \
	    esac; \
	fi; \
	echo "rm -rf $$b"; rm -rf -- "$$b"

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
