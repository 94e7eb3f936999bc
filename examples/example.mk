# examples/example.mk: the build rules every example shares. An example's
# Makefile sets NAME (the program) and STENCILS (its .stn files), then
# includes this file.
#
# gtcc runs like any code generator: a pattern rule turns NAME.stn into
# NAME.gen.c and NAME.gen.h, and gtcc -MD writes NAME.gen.d with every .stn
# file it read (imports included), so make regenerates when one changes.
# The runtime comes from an installed gtcc, found through pkg-config:
#
#   make                    build $(O)/NAME (gtcc on PATH, gtrt.pc on PKG_CONFIG_PATH)
#   make run                build and run it
#   make GTCC=/opt/gtcc/bin/gtcc PKG_CONFIG_PATH=/opt/gtcc/lib/pkgconfig run
#   make BACKEND=naive      use the reference backend instead of openmp
#   make BACKEND=cuda       the CUDA backend: NAME.gen.cu built by nvcc, linked with
#                           pkg-config gtrt-cuda; main.c gets -DGT_EXAMPLE_CUDA (the
#                           examples that support it then make device storages)
#   make clean
# An example whose Makefile sets MPI = 1 is built with mpicc against pkg-config gtrt-mpi,
# and `make run` runs it with mpirun -np $(NP) (default 4, oversubscribed if need be).

GTCC       ?= gtcc
BACKEND    ?= openmp
PKG_CONFIG ?= pkg-config
CC         ?= cc
CFLAGS     ?= -O2 -g
O          ?= build

# $(shell) does not see variables given on make's command line (make 4.3):
# PKG_CONFIG_PATH is passed on explicitly
PKG_ENV   := $(if $(PKG_CONFIG_PATH),PKG_CONFIG_PATH='$(PKG_CONFIG_PATH)')
ifeq ($(BACKEND),cuda)
GEN       = cu
GT_PC     = gtrt-cuda
NVCC      ?= nvcc
NVCCFLAGS ?= -O2
LINK      = $(CC)
EXAMPLE_FLAGS = -DGT_EXAMPLE_CUDA
else
GEN       = c
GT_PC     = gtrt
LINK      = $(CC)
EXAMPLE_FLAGS =
endif
ifeq ($(MPI),1)
GT_PC     = gtrt-mpi
CC        = mpicc
LINK      = mpicc
NP       ?= 4
RUN       = mpirun --oversubscribe -np $(NP)
endif
GT_CFLAGS := $(shell $(PKG_ENV) $(PKG_CONFIG) --cflags $(GT_PC))
GT_LIBS   := $(shell $(PKG_ENV) $(PKG_CONFIG) --libs $(GT_PC))
ALL_CFLAGS = -std=c11 -Wall -Wextra $(CFLAGS) $(GT_CFLAGS) $(EXAMPLE_FLAGS) -I$(O)

PROGRAM   = $(O)/$(NAME)
GENERATED = $(STENCILS:%.stn=$(O)/%.gen.$(GEN))

.PHONY: all run clean
all: $(PROGRAM)

# one gtcc run writes the source, its header and the dependency file
$(O)/%.gen.$(GEN) $(O)/%.gen.h: %.stn
	@mkdir -p $(O)
	$(GTCC) -b $(BACKEND) -MD -o $(O)/$*.gen.$(GEN) $<

$(O)/%.gen.o: $(O)/%.gen.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(O)/%.gen.o: $(O)/%.gen.cu
	$(NVCC) $(NVCCFLAGS) $(GT_CFLAGS) -I$(O) -c -o $@ $<

$(O)/main.o: main.c $(GENERATED:.$(GEN)=.h)
	$(CC) $(ALL_CFLAGS) -c -o $@ main.c

$(PROGRAM): $(O)/main.o $(GENERATED:.$(GEN)=.o)
	$(LINK) $(CFLAGS) -o $@ $^ $(GT_LIBS)

run: $(PROGRAM)
	cd $(O) && $(RUN) ./$(NAME)

clean:
	rm -rf $(O)

-include $(GENERATED:.$(GEN)=.d)
