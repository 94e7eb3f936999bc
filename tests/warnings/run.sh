#!/bin/sh
# tests/warnings/run.sh: the generated C compiles cleanly with the strictest
# warnings, `make warnings`.
#
# Every tests/numeric/*.stn, examples/*/*.stn, bench/stencils/*.stn,
# tests/golden/emit/*.stn and tests/diff/programs/*.stn is compiled by gtcc with both backends (naive and
# openmp; gtcc options from a `// ARGS: ...` line), and each output is
# compiled (compile only: -c) with
#   -std=c11 -Wall -Wextra -Wpedantic -Werror -fopenmp -O2 -I runtime/include
# by gcc and by clang ($WARN_COMPILERS, default "gcc clang"). A compiler that
# is not installed is skipped with a line saying so and counts nothing. The
# examples' outputs are compiled with -std=c99 as well (generated code is C99).
# A stencil using isnan compiled with -ffast-math must stop at the generated #error.
# One case = one program, one backend, one compiler (a gtcc failure counts one
# failed case per backend). Compiles run two at a time.
#
# The hostile names (below) go through nvcc too, where it is found (on PATH or
# in /usr/local/cuda/bin): as fields, scalars and temporaries of stencils of
# the cuda backend, 240 names to a stencil in three stencils (each name once a
# field, once a scalar, once a temporary), with a group of three-dimensional
# kernels (temporaries, some read at offsets), a kernel over I and J, a
# columnar forward computation and a reduction, in two .cu files that nvcc
# preprocesses, parses and compiles for the device (--cuda, PTX for
# compute_80, -O0; the host compile of the cuda output is the cuda group's)
# with every warning an error. One case = one file.
#
# The public headers of a caller (<gt/gt.h> and the parts it includes) compile cleanly
# as C89, C99, C++98 and C++11 with -Wall -Wextra -Wpedantic -Werror, by each compiler.
#
# Prints "warnings: N passed, N failed" and writes "PASSED FAILED" to
# $RESULTS/warnings when RESULTS is set.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$root/build}
GTCC=${GTCC:-$BUILD/bin/gtcc}
FLAGS="-std=c11 -Wall -Wextra -Wpedantic -Werror -fopenmp -O2 ${WARN_EXTRA_FLAGS:-}"

NVCC=$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; } || true)
NVFLAGS="--cuda -std=c++17 -Xcicc -O0 -Werror all-warnings -gencode arch=compute_80,code=compute_80"

# --- worker: run.sh --one DIR NAME CC WHAT ------------------------------------
# compiles DIR/NAME.c (NAME.h beside it) with CC, or DIR/NAME.cu with nvcc when
# CC is nvcc; prints PASS/FAIL WHAT [CC]
if [ "${1:-}" = "--one" ]; then
    dir=$2; name=$3; cc=$4; shift 4; what=$*
    # CC:STD (gcc:c99) compiles as that standard instead of C11
    std=; case $cc in *:*) std=${cc#*:}; cc=${cc%%:*} ;; esac
    tag=$cc$std; log=$dir/$name.$tag.log
    if [ "$cc" = nvcc ]; then
        set -- "$NVCC" $NVFLAGS -I"$root/runtime/include" -I"$dir" "$dir/$name.cu"
    else
        set -- $cc $FLAGS ${std:+-std=$std} -I"$root/runtime/include" -I"$dir" -c "$dir/$name.c"
    fi
    [ -n "$std" ] && cc="$cc -std=$std"
    if "$@" -o "$dir/$name.$tag.o" >"$log" 2>&1; then
        echo "PASS $what [$cc]"
    else
        # one write, so that the lines of two workers do not interleave
        { echo "FAIL $what [$cc]: does not compile cleanly"
          sed 's/^/  | /' "$log" | head -n 20 | cut -c1-300; } >"$log.msg"
        cat "$log.msg"
    fi
    exit 0
fi

work=$BUILD/warnings
rm -rf "$work"; mkdir -p "$work"
results=$work/results
: >"$results"

compilers=""
for cc in ${WARN_COMPILERS:-gcc clang}; do
    if command -v "$cc" >/dev/null 2>&1; then
        compilers="$compilers $cc"
    else
        echo "warnings: SKIP $cc: not installed, its compiles are not run (nor counted)"
    fi
done

# One more program, hostile names: every macro the headers of the generated
# code define and every function they declare (as the compilers installed
# preprocess them, <omp.h> included, as C11 and as GNU C: linux, unix), as the
# names of one-stencil programs that gtcc must either reject with an error or
# compile (the accepted ones join the program as stencils), and as field and
# scalar names (the program compiled as GNU C too). These names
# too are tried as fields and scalars (and through nvcc, below): every
# identifier of the cuda backend's output for the test programs (comments and
# strings left out: the names its kernels and host functions declare) and of
# the string literals of compiler/emit_cuda.c, the kernels' locals of once
# (ie, je, ...), and i, j, k (keywords: refused).
names=$work/names
mkdir -p "$names"
printf '#include <math.h>\n#include <stdbool.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <gt/gt.h>\n#include <gt/gt_generated.h>\n#include <omp.h>\n' >"$names/inc.c"
kw='stencil|function|const|import|return|if|else|computation|interval|parallel|forward|backward|end|boundary|periodic|dirichlet|neumann|mirror|field|out|double|float|int|bool|true|false|i|j|k|index|region|while|sum|min|max'
for cc in $compilers; do
    for std in c11 gnu11; do   # gnu11, the compilers' default: linux, unix, BIG_ENDIAN
        $cc -std=$std -fopenmp -I"$root/runtime/include" -dM -E "$names/inc.c" |
            awk '{print $2}' | sed 's/(.*//'
    done
    $cc -std=c11 -fopenmp -I"$root/runtime/include" -E -P "$names/inc.c" |
        grep -oE '[A-Za-z_][A-Za-z0-9_]* *\(' | sed 's/ *(//'
done | grep -E '^[A-Za-z_][A-Za-z0-9_]*$' | grep -v -x -E "$kw" | LC_ALL=C sort -u >"$names/headers"
# (a C++ preprocessor removes the comments of the cuda output)
mkdir -p "$names/cuda"
cxx=$(command -v g++ || command -v clang++ || true)
m=0
for stn in "$root"/tests/numeric/*.stn "$root"/examples/*/*.stn "$root"/bench/stencils/*.stn \
           "$root"/tests/golden/emit/*.stn "$root"/tests/diff/programs/*.stn; do
    m=$((m + 1))
    args=$(sed -n 's|^// ARGS: *||p' "$stn" | head -n 1 | sed 's/-b *[a-z]*//')
    (cd "$(dirname "$stn")" &&
     eval "\"$GTCC\" -b cuda $args -o \"$names/cuda/p$m.cu\" \"$(basename "$stn")\"") >/dev/null 2>&1
done
for f in "$names"/cuda/*.cu "$names"/cuda/*.h; do
    [ -e "$f" ] || continue
    if [ -n "$cxx" ]; then "$cxx" -x c++ -fpreprocessed -dD -E -P "$f" 2>/dev/null; else cat "$f"; fi
done | sed 's/"\([^"\\]\|\\.\)*"//g' | grep -oE '[A-Za-z_][A-Za-z0-9_]*' >"$names/cuda_ids"
grep -oE '"([^"\\]|\\.)*"' "$root/compiler/emit_cuda.c" | grep -oE '[A-Za-z_][A-Za-z0-9_]*' >>"$names/cuda_ids"
LC_ALL=C sort -u "$names/cuda_ids" | grep -v -x -E "$kw" >"$names/cuda_list"
{ cat "$names/headers" "$names/cuda_list"
  printf '%s\n' ie je ib jb t p w np i0 j0 j1 ilo ihi jlo jhi klo khi i j k; } |
    LC_ALL=C sort -u >"$names/list"
hostile=$work/hostile_names.stn
: >"$hostile"
: >"$names/params"
while read -r name; do
    echo "stencil $name(field<double> a, field<double> b) { b = a; }" >"$names/one.stn"
    "$GTCC" -b naive -o "$names/one.c" "$names/one.stn" >"$names/one.log" 2>&1
    st=$?
    if [ $st -eq 0 ]; then
        cat "$names/one.stn" >>"$hostile"
    elif [ $st -ne 1 ] || ! grep -q 'error:' "$names/one.log"; then
        echo "FAIL stencil named $name: gtcc exit status $st" >>"$results"
    fi
done <"$names/headers"
while read -r name; do
    # a name the language refuses for a parameter (a builtin's) is left out
    echo "stencil f(field<double> $name, field<double> b) { b = $name; }" >"$names/one.stn"
    "$GTCC" --emit=ir "$names/one.stn" >/dev/null 2>&1 && echo "$name" >>"$names/params"
done <"$names/list"
split -l 24 "$names/params" "$names/chunk."
for chunk in "$names"/chunk.*; do
    c=${chunk##*.}
    awk -v c="$c" '{ p = p sep ((NR % 2) ? "field<double> " : "double ") $0; e = e plus $0;
                     sep = ", "; plus = " + " }
        END { print "stencil fields_" c "(" p ", field<double> res_) { res_ = " e "; }" }' \
        "$chunk" >>"$hostile"
done
echo "warnings: $(wc -l <"$names/list") names: $(wc -l <"$names/headers") from the headers," \
    "$(wc -l <"$names/cuda_list") from the cuda output (build/warnings/hostile_names.stn)"

# the accepted names through nvcc (build/warnings/cuda_names_0.stn, _1.stn), first in the
# job list: its two compiles take longest
: >"$work/cuda_jobs"
rel=${work#"$root"/}
if [ -n "$NVCC" ]; then
    split -l 240 "$names/params" "$names/cuchunk."
    x=0
    for chunk in "$names"/cuchunk.*; do
        for rot in 0 1 2; do
            awk -v chunk="${chunk##*.}" -v rot=$rot -f "$here/cuda_names.awk" "$chunk" \
                >>"$work/cuda_names_$x.stn"
            x=$((1 - x))
        done
    done
    for x in 0 1; do
        dir=$work/cuda$x
        mkdir -p "$dir"
        if "$GTCC" -b cuda -o "$dir/cuda_names_$x.cu" "$work/cuda_names_$x.stn" \
                >"$dir/gtcc.log" 2>&1; then
            echo "$dir cuda_names_$x nvcc $rel/cuda_names_$x.stn -b cuda" >>"$work/cuda_jobs"
        else
            echo "FAIL $rel/cuda_names_$x.stn -b cuda: gtcc failed" >>"$results"
            sed 's/^/  | /' "$dir/gtcc.log" | head -n 20 >>"$results"
        fi
    done
else
    echo "warnings: SKIP nvcc: not found (PATH, /usr/local/cuda/bin), the names do not go through it"
fi

# generate every program with both backends; list the compile jobs
jobs=$work/jobs
: >"$jobs"
n=0
for stn in "$root"/tests/numeric/*.stn "$root"/examples/*/*.stn "$root"/bench/stencils/*.stn \
           "$root"/tests/golden/emit/*.stn "$root"/tests/diff/programs/*.stn "$hostile"; do
    [ -e "$stn" ] || continue
    n=$((n + 1))
    rel=${stn#"$root"/}
    args=$(sed -n 's|^// ARGS: *||p' "$stn" | head -n 1)
    for backend in naive openmp; do
        dir=$work/p$n-$backend
        mkdir -p "$dir"
        base=$(basename "$stn" .stn)
        if ! (cd "$(dirname "$stn")" &&
              eval "\"$GTCC\" -b $backend $args -o \"$dir/$base.c\" \"$base.stn\"") \
                >"$dir/gtcc.log" 2>&1; then
            echo "FAIL $rel -b $backend: gtcc failed" >>"$results"
            sed 's/^/  | /' "$dir/gtcc.log" | head -n 20 >>"$results"
            continue
        fi
        for cc in $compilers; do
            echo "$dir $base $cc $rel -b $backend" >>"$jobs"
            # the examples as C99 too: a caller's -std=c99 must not change the generated
            # code (its per-thread tiles came from C11's aligned_alloc, which C99 leaves
            # undeclared: the pointer was cut to an int, and examples/hdiff crashed)
            case $rel in examples/*) echo "$dir $base $cc:c99 $rel -b $backend" >>"$jobs" ;; esac
            # the hostile names as GNU C too, the compilers' default, whose macros (linux,
            # unix, <stdlib.h>'s BIG_ENDIAN) ISO C leaves out: naive only, the backends
            # name them alike (emit_user_name) and the openmp file takes minutes at -O2
            [ "$stn" = "$hostile" ] && [ $backend = naive ] &&
                echo "$dir $base $cc:gnu11 $rel -b $backend" >>"$jobs"
        done
    done
done

# The public headers a caller includes (<gt/gt.h> and its parts) compile cleanly as C89
# and C99 and, with the C++ compilers installed, as C++98 and C++11: a caller's code need
# not be C11 (one case per header, standard and compiler). The headers of the generated
# code (gt_generated.h, gt_cuda.h) are C11 and CUDA's, and <gt/gt_mpi.h> is <mpi.h>'s.
hdr=$work/headers
mkdir -p "$hdr"
for h in gt gt_error gt_storage gt_device gt_halo gt_stencil; do
    printf '#include <gt/%s.h>\nint main(void) { return 0; }\n' "$h" >"$hdr/$h.c"
    cp "$hdr/$h.c" "$hdr/$h.cc"
    for cc in $compilers; do
        case $cc in clang) cxx=clang++ ;; gcc) cxx=g++ ;; *) cxx= ;; esac
        for std in c89 c99 c++98 c++11; do
            case $std in
                c++*) [ -n "$cxx" ] && command -v "$cxx" >/dev/null 2>&1 || continue
                      set -- "$cxx" "$hdr/$h.cc" ;;
                *) set -- "$cc" "$hdr/$h.c" ;;
            esac
            if "$1" -std=$std -Wall -Wextra -Wpedantic -Werror -I"$root/runtime/include" \
                    -c "$2" -o "$hdr/$h.o" >"$hdr/$h.log" 2>&1; then
                echo "PASS <gt/$h.h> as $std [$1]" >>"$results"
            else
                { echo "FAIL <gt/$h.h> as $std [$1]: does not compile cleanly"
                  sed 's/^/  | /' "$hdr/$h.log" | head -n 20 | cut -c1-300; } >>"$results"
            fi
        done
    done
done

# A stencil that tests for NaN (isnan, isinf, isfinite) compiled with -ffast-math stops
# at an #error naming the fix; with -fno-finite-math-only after it, it compiles cleanly.
# Before, -ffast-math (its -ffinite-math-only) compiled the tests away, silently.
fm=$work/fastmath
mkdir -p "$fm"
printf 'stencil clean(field<double> a, field<double> b) {\n  b = isnan(a) || isinf(a) ? 0.0 : a;\n}\n' \
    >"$fm/nan.stn"
for backend in naive openmp; do
    if ! "$GTCC" -b $backend -o "$fm/nan_$backend.c" "$fm/nan.stn" >"$fm/gtcc.log" 2>&1; then
        echo "FAIL fast-math -b $backend: gtcc failed" >>"$results"
        continue
    fi
    for cc in $compilers; do
        set -- $cc $FLAGS -I"$root/runtime/include" -I"$fm" -c "$fm/nan_$backend.c" -o "$fm/nan.o"
        if ! "$@" -ffast-math >"$fm/fast.log" 2>&1 &&
           grep -q 'error.*this file tests for NaN or infinity (isnan, isinf, isfinite): compile it without -ffast-math, or add -fno-finite-math-only' "$fm/fast.log" &&
           "$@" -ffast-math -fno-finite-math-only >"$fm/nofinite.log" 2>&1; then
            echo "PASS isnan with -ffast-math refused, -fno-finite-math-only accepted -b $backend [$cc]" >>"$results"
        else
            { echo "FAIL isnan with -ffast-math -b $backend [$cc]: not refused, or refused with -fno-finite-math-only"
              cat "$fm/fast.log" "$fm/nofinite.log" | sed 's/^/  | /' | head -n 10; } >>"$results"
        fi
    done
done

cat "$work/cuda_jobs" "$jobs" | xargs -r -L 1 -P 2 "$here/run.sh" --one >>"$results" 2>&1
grep -v '^PASS ' "$results" | head -n 80
passed=$(grep -c '^PASS ' "$results")
failed=$(grep -c '^FAIL ' "$results")
echo "warnings: $passed passed, $failed failed ($n programs x 2 backends x compilers:$compilers;" \
    "$(wc -l <"$work/cuda_jobs") files of the names through nvcc)"
[ -n "${RESULTS:-}" ] && echo "$passed $failed" >"$RESULTS/warnings"
[ "$failed" -eq 0 ]
