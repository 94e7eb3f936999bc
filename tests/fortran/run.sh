#!/bin/sh
# tests/fortran/run.sh: `make fortran`, gtcc --emit=fortran and the runtime's module gtrt
# (docs/fortran.md) with gfortran, -std=f2008 -Wall -Wextra -Werror -fcheck=all (and
# -fsanitize=address,undefined when SANFLAGS is set: SANITIZE=1).
#
# * tests/fortran/ftest.f90 calls the stencils of ftest.stn through the generated module
#   and compares every result bit for bit with the same stencils called from C (ref.c) on
#   the same inputs: whole arrays with lower bounds 1 and 1-nb, strided sections, ranks 1
#   to 3, every dtype, scalars and out scalars, domains smaller than the interior, S_steps,
#   and the error paths with rc (each check of it counts as one here). The generated module
#   compiles with -std=f2003 too.
# * fthreads.f90: the wrappers called from 4 OpenMP threads at once, the module and gtrt
#   compiled without -fopenmp, -fcheck=all; each thread's message by gtrt_get_last_error
#   (a halo too small, a reversed section).
# * The same program made to fail without rc (halo too small, an output aliasing an
#   input, a reversed section), each in its own process: a non-zero exit status and
#   gtcc's message as the first line of standard error (a file, as in a batch job).
# * The command line: the default output FILE_gt.f90 with module FILE_gt, -P, -o with a
#   suffix that is not Fortran's refused, -b cuda refused, nothing written for a program
#   with errors (an existing output kept), stencil names Fortran cannot tell apart or the
#   module uses refused, and parameter names it cannot take (case, `halo`, `rc`, gt_...)
#   renamed into a module that compiles; the golden modules of tests/golden/fortran compile.
# * A stencil of 40 fields: its module within free form's 132 columns, called, a refusal.
# * Every program of examples/, bench/stencils/, tests/golden, tests/numeric, tests/diff/programs
#   and tests/mpi that gtcc --emit=ir accepts gets a
#   module (--emit=fortran, with the program's // ARGS, those with -b cuda left out) that
#   gfortran compiles (-Werror).
# Prints "fortran: N passed, N failed" and writes "PASSED FAILED" to $RESULTS/fortran.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$root/build}
GTCC=${GTCC:-$BUILD/bin/gtcc}
CC=${CC:-cc}
FC=${FC:-gfortran}
SANFLAGS=${SANFLAGS:-}
work=$BUILD/fortran
passed=0; failed=0
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $1"; }
finish() {
    echo "fortran: $passed passed, $failed failed"
    [ -n "${RESULTS:-}" ] && echo "$passed $failed" >"$RESULTS/fortran"
    [ "$failed" -eq 0 ]
    exit
}
if ! command -v "$FC" >/dev/null 2>&1; then
    fail "$FC not found (Debian: gfortran; tools/deps.sh installs it)"
    finish
fi
FSAN=
[ -n "$SANFLAGS" ] && FSAN="-fsanitize=address,undefined -fno-omit-frame-pointer"
FFLAGS="-std=f2008 -Wall -Wextra -Werror -fcheck=all -g -O1 $FSAN"
CFLAGS="-std=c11 -Wall -Wextra -Werror -O2 -g $SANFLAGS -I$root/runtime/include"
rm -rf "$work"; mkdir -p "$work"
T="timeout 120"

# --- the module, the test program and its reference ---------------------------------------
build() {
    (cd "$work" &&
     $T "$FC" $FFLAGS -c "$root/runtime/fortran/gtrt.f90" &&
     $T "$GTCC" --emit=fortran -o ftest_gt.f90 "$here/ftest.stn" &&
     $T "$GTCC" -b naive -o ftest.c "$here/ftest.stn" &&
     $T "$FC" $FFLAGS -c ftest_gt.f90 &&
     $T "$FC" $FFLAGS -c "$here/ftest.f90" -o ftest_f.o &&
     $T "$CC" $CFLAGS -I. -c ftest.c -o ftest_c.o &&
     $T "$CC" $CFLAGS -I. -c "$here/ref.c" -o ref.o &&
     $T "$FC" $FSAN -o ftest ftest_f.o ftest_gt.o gtrt.o ftest_c.o ref.o \
         "$BUILD/lib/libgtrt.a" -lm) >"$work/build.log" 2>&1
}
if build; then
    pass
else
    fail "building the module gtrt, ftest_gt (gtcc --emit=fortran) and the test (warnings are errors)"
    sed 's/^/  | /' "$work/build.log" | head -n 40
    finish
fi

# the generated module is Fortran 2003 (gtrt uses 2008's error stop: its .mod is enough)
if (cd "$work" && $T "$FC" -std=f2003 -Wall -Wextra -Werror -c ftest_gt.f90 -o f2003.o) \
        >"$work/f2003.log" 2>&1; then
    pass
else
    fail "the generated module does not compile with -std=f2003"; sed 's/^/  | /' "$work/f2003.log" | head
fi

# --- the test program: bitwise against C, errors with rc ------------------------------------
$T "$work/ftest" >"$work/ftest.out" 2>&1
status=$?
line=$(sed -n 's/^fortran-checks: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$work/ftest.out")
if [ -z "$line" ]; then
    fail "ftest did not finish (exit status $status)"; sed 's/^/  | /' "$work/ftest.out" | head -n 30
else
    set -- $line
    passed=$((passed + $1)); failed=$((failed + $2))
    grep '^FAIL' "$work/ftest.out"
    [ "$status" = 0 ] || [ "$2" != 0 ] || fail "ftest: exit status $status with no failed check"
fi

# --- the wrappers from several OpenMP threads at once (fthreads.f90): the module and gtrt were
# compiled above without -fopenmp, with -fcheck=all (so -fcheck=recursion) -------------------
if (cd "$work" &&
    $T "$FC" $FFLAGS -fopenmp -c "$here/fthreads.f90" -o fthreads.o &&
    $T "$FC" $FSAN -fopenmp -o fthreads fthreads.o ftest_gt.o gtrt.o ftest_c.o \
        "$BUILD/lib/libgtrt.a" -lm &&
    OMP_NUM_THREADS=4 $T ./fthreads) >"$work/fthreads.log" 2>&1; then
    pass
else
    fail "the wrappers called from 4 OpenMP threads at once (fthreads.f90)"
    sed 's/^/  | /' "$work/fthreads.log" | head -n 20
fi

# --- errors without rc: each in its own process ----------------------------------------------
die_case() { # CASE EXPECTED-MESSAGE
    $T "$work/ftest" "$1" >"$work/$1.out" 2>"$work/$1.err"
    st=$?
    if [ "$st" = 0 ] || [ "$st" = 3 ] || [ "$st" = 124 ] || [ "$st" -gt 128 ]; then
        fail "$1: exit status $st, expected an error stop"; sed 's/^/  | /' "$work/$1.err" | head
    elif ! head -n 1 "$work/$1.err" | grep -qF "$2"; then
        # the first line: before error stop's "ERROR STOP" and backtrace, which libgfortran
        # writes unbuffered while the unit's buffer waited for the exit (stderr not a terminal)
        fail "$1: standard error does not start with \"$2\""; sed 's/^/  | /' "$work/$1.err" | head
    else
        pass
    fi
}
die_case die-halo "stencil 'lap': argument u, taken as u(1:9, 1:7, 1:4) (no halo= or u_halo=: the domain starts at its first element), has a halo of 0 below and 2 above the domain 1:7 along dimension 1 (I); the stencil reads 1 below and 1 above: declare u(0:8, 0:6, 1:4) and pass u_halo=reshape([1, 1, 1, 1, 0, 0], [2, 3])"
die_case die-alias "stencil 'lap': output 'lap_u' shares memory with field 'u'"
die_case die-stride "stencil 'lap': argument u is a section with a negative stride along dimension 1 (I), such as u(n:1:-1, :, :); pass it with positive strides (u(1:n, :, :)) or a copy"

# --- S_mpi from Fortran (fmpi.f90): the module gtrt_mpi, mpifort, mpirun -np 1 to 4 --------------
MPIFC=${MPIFC:-mpifort}
if ! command -v "$MPIFC" >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1 ||
   [ ! -e "$BUILD/lib/libgtrt-mpi.a" ]; then
    fail "S_mpi from Fortran: $MPIFC, mpirun or libgtrt-mpi.a missing (Debian: libopenmpi-dev, openmpi-bin; tools/deps.sh installs them)"
elif ! (cd "$work" &&
        $T "$GTCC" --emit=fortran -o fmpi_gt.f90 "$here/fmpi.stn" &&
        $T "$GTCC" -b naive -o fmpi.c "$here/fmpi.stn" &&
        $T "$MPIFC" $FFLAGS -c "$root/runtime/fortran/gtrt_mpi.f90" &&
        $T "$MPIFC" $FFLAGS -c fmpi_gt.f90 &&
        $T "$MPIFC" $FFLAGS -c "$here/fmpi.f90" -o fmpi_f.o &&
        $T "$CC" $CFLAGS -I. -c fmpi.c -o fmpi_c.o &&
        $T "$MPIFC" $FSAN -o fmpi fmpi_f.o fmpi_gt.o gtrt_mpi.o gtrt.o fmpi_c.o \
            "$BUILD/lib/libgtrt-mpi.a" "$BUILD/lib/libgtrt.a" -lm) >"$work/fmpi.log" 2>&1; then
    fail "building the module gtrt_mpi and fmpi (mpifort, warnings are errors)"
    sed 's/^/  | /' "$work/fmpi.log" | head -n 40
else
    pass
    for np in 1 2 3 4; do
        # (Open MPI keeps memory until exit that LeakSanitizer would report, as tests/mpi)
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader \
        ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" $T mpirun -np $np --oversubscribe "$work/fmpi" >"$work/fmpi$np.out" 2>&1
        st=$?
        line=$(sed -n 's/^fortran-mpi-checks: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' \
               "$work/fmpi$np.out")
        if [ -z "$line" ] || [ "$st" != 0 ]; then
            fail "fmpi on $np processes did not finish (exit status $st)"
            sed 's/^/  | /' "$work/fmpi$np.out" | head -n 30
        else
            set -- $line
            passed=$((passed + $1)); failed=$((failed + $2))
            grep '^ *FAIL' "$work/fmpi$np.out"
        fi
    done
fi

# --- the golden modules (tests/golden/fortran) are Fortran that compiles ---------------------
for g in "$root"/tests/golden/fortran/*.f90; do
    [ -e "$g" ] || continue
    if (cd "$work" && $T "$FC" $FFLAGS -c "$g" -o golden.o) >"$work/golden.log" 2>&1; then
        pass
    else
        fail "tests/golden/fortran/$(basename "$g") does not compile"; sed 's/^/  | /' "$work/golden.log" | head -n 20
    fi
done

# --- every program of the examples and tests that gtcc accepts: a module that compiles --------
every=$work/every; mkdir -p "$every"; cp "$work/gtrt.mod" "$every/"
for stn in "$root"/examples/*/*.stn "$root"/bench/stencils/*.stn "$root"/tests/golden/*/*.stn \
           "$root"/tests/numeric/*.stn "$root"/tests/diff/programs/*.stn "$root"/tests/mpi/*.stn; do
    [ -e "$stn" ] || continue
    d=$(dirname "$stn"); b=$(basename "$stn" .stn)
    args=$(sed -n 's|^// ARGS: *||p' "$stn" | head -n 1)
    case " $args " in *" -b cuda "*|*" -bcuda "*) continue ;; esac   # refused (above)
    (cd "$d" && eval "$T \"$GTCC\" --emit=ir $args \"$b.stn\"") >/dev/null 2>&1 || continue
    if (cd "$d" && eval "$T \"$GTCC\" --emit=fortran $args -o \"$every/x.f90\" \"$b.stn\"" &&
        cd "$every" && $T "$FC" $FFLAGS -c x.f90 -o x.o) >"$every/log" 2>&1; then
        pass
    else
        fail "${stn#$root/}: gtcc --emit=fortran or gfortran failed"; sed 's/^/  | /' "$every/log" | head -n 10
    fi
done

# --- the command line -----------------------------------------------------------------------
cli=$work/cli; mkdir -p "$cli"
# refused STATUS FILE MESSAGE WHAT GTCC-ARGS...: gtcc run in $cli exits with STATUS, FILE is
# not there, its log says MESSAGE (WHAT names the case)
refused() {
    want=$1 file=$2 msg=$3 what=$4; shift 4
    (cd "$cli" && $T "$GTCC" "$@") >"$cli/log" 2>&1
    st=$?
    if [ "$st" = "$want" ] && [ ! -e "$cli/$file" ] && grep -q "$msg" "$cli/log"; then
        pass
    else
        fail "$what: exit status $st, expected $want, no $file and a message"; cat "$cli/log"
    fi
}
cp "$here/ftest.stn" "$cli/"
(cd "$cli" && $T "$GTCC" --emit=fortran ftest.stn) >"$cli/log" 2>&1
if [ -f "$cli/ftest_gt.f90" ] && grep -q '^module ftest_gt$' "$cli/ftest_gt.f90" &&
   [ "$(ls "$cli")" = "$(printf 'ftest.stn\nftest_gt.f90\nlog')" ]; then
    pass
else
    fail "--emit=fortran: FILE_gt.f90 with module FILE_gt and nothing else"; cat "$cli/log"
fi
(cd "$cli" && $T "$GTCC" --emit=fortran -P p2_ ftest.stn) >"$cli/log" 2>&1
if grep -q '^module p2_ftest_gt$' "$cli/p2_ftest_gt.f90" 2>/dev/null &&
   grep -q 'subroutine p2_lap(' "$cli/p2_ftest_gt.f90" &&
   grep -q 'subroutine p2_heat_steps(' "$cli/p2_ftest_gt.f90" &&
   grep -q 'bind(C, name="p2_heat_steps")' "$cli/p2_ftest_gt.f90"; then
    pass
else
    fail "--emit=fortran -P p2_: p2_ftest_gt.f90, module p2_ftest_gt, p2_lap, p2_heat_steps"
    cat "$cli/log"
fi
# ... and the MPI wrappers' messages name them as the caller spelled them, p2_lap_mpi (they said
# lap_mpi: the runtime had the .stn name only), with tblock 0 and no gtrt_mpi linked
cat >"$cli/p2test.f90" <<'EOF'
program p2test
    use, intrinsic :: iso_c_binding, only: c_double, c_int, c_null_ptr
    use gtrt, only: gtrt_last_error
    use p2_ftest_gt, only: p2_lap_mpi, p2_heat_steps_mpi_halo
    implicit none
    real(c_double) :: u(0:8, 0:6, 4), o(7, 5, 4)
    integer :: h(2, 3)
    integer(c_int) :: rc
    u = 1
    o = 9
    call p2_lap_mpi(c_null_ptr, u, o, halo=reshape([1, 1, 1, 1, 0, 0], [2, 3]), rc=rc)
    print '(a)', gtrt_last_error()
    call p2_heat_steps_mpi_halo(tblock=0, u_halo=h, rc=rc)
    print '(a)', gtrt_last_error()
end program p2test
EOF
if (cd "$cli" && $T "$GTCC" -b naive -P p2_ -o p2.c ftest.stn &&
    $T "$CC" $CFLAGS -I. -c p2.c -o p2_c.o &&
    $T "$FC" $FFLAGS -I"$work" -c p2_ftest_gt.f90 &&
    $T "$FC" $FFLAGS -I"$work" -c p2test.f90 &&
    $T "$FC" $FSAN -o p2test p2test.o p2_ftest_gt.o "$work/gtrt.o" p2_c.o \
        "$BUILD/lib/libgtrt.a" -lm && $T ./p2test) >"$cli/p2.log" 2>&1 &&
   [ "$(tail -n 2 "$cli/p2.log")" = "p2_lap_mpi: no decomposition made by gtrt_decompose (use the module gtrt_mpi, link pkg-config gtrt-mpi)
p2_heat_steps_mpi_halo: no decomposition made by gtrt_decompose (use the module gtrt_mpi, link pkg-config gtrt-mpi)" ]; then
    pass
else
    fail "-P p2_: the MPI wrappers' messages name p2_lap_mpi and p2_heat_steps_mpi_halo"
    sed 's/^/  | /' "$cli/p2.log" | tail -n 20
fi
refused 2 out.c "needs a suffix .f90" "--emit=fortran -o out.c" --emit=fortran -o out.c ftest.stn
refused 2 ftest_gt.f90.new "wrap host arrays" "--emit=fortran -b cuda" \
    --emit=fortran -b cuda ftest.stn
echo 'stencil broken(field<double> u) { u = v; }' >"$cli/broken.stn"
echo 'keep' >"$cli/broken_gt.f90"
(cd "$cli" && $T "$GTCC" --emit=fortran broken.stn) >"$cli/log" 2>&1
st=$?
if [ "$st" = 1 ] && [ "$(cat "$cli/broken_gt.f90")" = keep ] &&
   [ -z "$(find "$cli" -name '*.tmp*')" ]; then
    pass
else
    fail "a program with errors: exit status $st (expected 1), the existing output kept"
    cat "$cli/log"
fi
printf 'stencil Copy(field<double> a, field<double> b) { b = a; }\nstencil copy(field<double> a, field<double> b) { b = a; }\n' >"$cli/case.stn"
refused 1 case_gt.f90 "case-insensitive" "stencils Copy and copy (one Fortran name)" \
    --emit=fortran case.stn
# ... and no warnings about the wrappers a module that is not written would lack
if grep -q "warning" "$cli/log"; then
    fail "stencils Copy and copy: warnings after the error"; cat "$cli/log"
else
    pass
fi
# the error names what has the name: a stencil (and its line), a steps wrapper, the module
# (it said "another stencil or of the module" for a's a_steps)
printf 'stencil a(field<double> u, field<double> v) iterate(v -> u) { v = u[i+1]; }\nstencil A_steps(field<double> u, field<double> v) { v = u; }\n' >"$cli/steps.stn"
refused 1 steps_gt.f90 "steps.stn:2:9: error: --emit=fortran: 'A_steps' is the Fortran name of the steps wrapper of stencil 'a' (line 1) (Fortran names are case-insensitive); rename one of them" \
    "a stencil A_steps beside a's steps wrapper" --emit=fortran steps.stn
printf 'stencil A_steps(field<double> u, field<double> v) { v = u; }\nstencil a(field<double> u, field<double> v) iterate(v -> u) { v = u[i+1]; }\n' >"$cli/steps2.stn"
refused 1 steps2_gt.f90 "steps2.stn:2:9: error: --emit=fortran: 'a_steps' (its steps wrapper) is the Fortran name of stencil 'A_steps' (line 1) (Fortran names are case-insensitive); rename one of them" \
    "a's steps wrapper after a stencil A_steps" --emit=fortran steps2.stn
printf 'stencil Mod_GT(field<double> u, field<double> v) { v = u; }\n' >"$cli/mod.stn"
refused 1 mod_gt.f90 "'Mod_GT' is the Fortran name of the module (named after the input file)" \
    "a stencil named like the module" --emit=fortran mod.stn
printf 'stencil c_loc(field<double> a, field<double> b) { b = a; }\n' >"$cli/cname.stn"
refused 1 cname_gt.f90 "cannot name a Fortran subroutine" \
    "a stencil named c_loc (imported from iso_c_binding)" --emit=fortran cname.stn
# a stencil named reshape would hide the intrinsic S_mpi_halo calls (gfortran: "Unexpected
# use of subroutine name 'reshape'"); a dummy may have the name
printf 'stencil Reshape(field<double> a, field<double> b) { b = a; }\n' >"$cli/rname.stn"
refused 1 rname_gt.f90 "'Reshape' cannot name a Fortran subroutine" \
    "a stencil named Reshape (S_mpi_halo calls the intrinsic)" --emit=fortran rname.stn
# ... reported once, not again for each wrapper named after it (gtrt_x_steps, gtrt_x_mpi, ...)
printf 'stencil gtrt_x(field<double> a, field<double> b) iterate(b -> a) { b = a[i+1]; }\n' \
    >"$cli/gname.stn"
refused 1 gname_gt.f90 "'gtrt_x' cannot name a Fortran subroutine" \
    "a stencil named gtrt_x (the module's prefix)" --emit=fortran gname.stn
if [ "$(grep -c 'error:' "$cli/log")" = 1 ]; then
    pass
else
    fail "a stencil named gtrt_x: one error, not one per wrapper"; cat "$cli/log"
fi
# a stencil named shape would hide the intrinsic every wrapper calls (gt_e = shape(u, ...));
# a field named shape hid it too (shape(shape, c_int64_t): gfortran's "REAL array index"),
# so the dummy is shape_
printf 'stencil Shape(field<double> a, field<double> b) { b = a; }\n' >"$cli/sname.stn"
refused 1 sname_gt.f90 "'Shape' cannot name a Fortran subroutine" \
    "a stencil named Shape (every wrapper calls the intrinsic)" --emit=fortran sname.stn
printf 'stencil sd(field<double> shape, field<double> b) { b = shape[i+1]; }\n' >"$cli/sdummy.stn"
if (cd "$cli" && $T "$GTCC" --emit=fortran sdummy.stn &&
    $T "$FC" $FFLAGS -I"$work" -c sdummy_gt.f90) >"$cli/log" 2>&1 &&
   grep -q 'subroutine sd(shape_, b, halo, shape__halo,' "$cli/sdummy_gt.f90"; then
    pass
else
    fail "a field named shape: renamed shape_, a module that compiles"; cat "$cli/log"
fi
printf 'stencil r(field<double> reshape, field<double> b) { b = reshape; }\n' >"$cli/rdummy.stn"
if (cd "$cli" && $T "$GTCC" --emit=fortran rdummy.stn &&
    $T "$FC" $FFLAGS -I"$work" -c rdummy_gt.f90) >"$cli/log" 2>&1 &&
   grep -q 'subroutine r(reshape, b, halo, reshape_halo,' "$cli/rdummy_gt.f90"; then
    pass
else
    fail "a field named reshape: a module that compiles"; cat "$cli/log"
fi
cat >"$cli/names.stn" <<'EOF'
stencil names(field<double> u, field<double> U, field<double> halo, field<double> gt_s,
              double rc, double c_loc, double c_w, out double present, field<double> u_halo) {
    halo = u + U * rc + c_loc * c_w;
    u_halo = gt_s;
    present = sum(u);
}
EOF
(cd "$cli" && $T "$GTCC" --emit=fortran names.stn && $T "$FC" $FFLAGS -I"$work" -c names_gt.f90) \
    >"$cli/log" 2>&1
if [ $? = 0 ] && grep -q 'subroutine names(u, u_2, halo, gt_s_, rc, c_loc_, c_w, present_, u_halo, halo_2,' \
       "$cli/names_gt.f90"; then
    pass
else
    fail "names Fortran cannot take (U beside u, halo, rc, gt_s, c_loc, present) renamed, c_w kept, compiling"
    cat "$cli/log"; grep -n 'subroutine names' "$cli/names_gt.f90"
fi
# the optional wrappers (S_mpi_halo, S_steps_mpi, ...) yield to a stencil of their name and to
# Fortran's 63 characters: left out with a warning, the module compiles
long=s234567890123456789012345678901234567890123456789012345
cat >"$cli/optional.stn" <<EOF
stencil a(field<double> u, field<double> v) iterate(v -> u) { v = u[i+1]; }
stencil a_mpi_halo(field<double> u, field<double> v) { v = u; }
stencil $long(field<double> u, field<double> v) iterate(v -> u) { v = u[i+1]; }
EOF
(cd "$cli" && $T "$GTCC" --emit=fortran optional.stn && $T "$FC" $FFLAGS -I"$work" -c optional_gt.f90) \
    >"$cli/log" 2>&1
if [ $? = 0 ] &&
   grep -q "warning: --emit=fortran: the module has no 'a_mpi_halo' (a stencil or another wrapper has that Fortran name)" "$cli/log" &&
   [ "$(grep -c "warning: --emit=fortran: the module has no 's2345.*(longer than the 63 characters" "$cli/log")" = 3 ] &&
   grep -q "^    public :: a, a_steps, a_mpi, a_steps_mpi, a_steps_mpi_halo$" "$cli/optional_gt.f90" &&
   grep -q "^    public :: a_mpi_halo, a_mpi_halo_mpi, a_mpi_halo_mpi_halo$" "$cli/optional_gt.f90" &&
   grep -q "^    recursive subroutine ${long}_mpi(" "$cli/optional_gt.f90" &&
   ! grep -q "${long}_mpi_halo\|${long}_steps_mpi" "$cli/optional_gt.f90"; then
    pass
else
    fail "optional wrappers left out with a warning where a stencil or the length forbids them"
    cat "$cli/log"; grep -n 'public ::' "$cli/optional_gt.f90"
fi
# names at Fortran's limits: a stencil of 63 characters, scalars of 63 and fields of 58 (with
# NAME_halo 63), a module of 63, a stencil with every wrapper (48 characters: its
# S_steps_mpi_halo has 63), a stencil with halos of 1000000 around a field of 58: lines
# continued before the 132 columns of free form (the subroutine line, S_mpi_halo's and
# S_steps_mpi_halo's statements passed them)
x10=xxxxxxxxxx; x50=$x10$x10$x10$x10$x10
lf=f${x50}xxxxxxx lg=g${x50}xxxxxxx lp=p${x50}xxxxxxx lc=c${x50}${x10}xx ld=d${x50}${x10}xx
lm=m${x50}xxxxxxxxx x47=$x10$x10$x10${x10}xxxxxxx
cat >"$cli/$lm.stn" <<EOF
stencil s${x50}${x10}xx(field<double> $lf, field<double, IJ> $lg, field<int, K> o,
        field<double> $lp, double $lc, out double r${x50}${x10}xx) {
    $lp = $lf[i+1] + $lg + o * $lc;
    r${x50}${x10}xx = sum($lf);
}
stencil t${x47}(field<double> $lf, field<double> $lg, bool $lc, int $ld) iterate($lg -> $lf) {
    $lg = $lf[i+1] * $ld;
}
stencil u(field<double> $lf, field<double> $lg) {
    $lg = $lf[i+1000000, j-1000000, k+1000000] + $lf[i-1000000, j+1000000, k-1000000];
}
EOF
(cd "$cli" && $T "$GTCC" --emit=fortran -w "$lm.stn" &&
 $T "$FC" $FFLAGS -I"$work" -c "${lm}_gt.f90") >"$cli/log" 2>&1
if [ $? = 0 ] && grep -q "^    recursive subroutine t${x47}_steps_mpi_halo(" "$cli/${lm}_gt.f90"; then
    pass
else
    fail "names of 63 characters: lines within the 132 columns of free form"; head -n 20 "$cli/log"
fi
# a module of 64 characters (the file's name makes it): refused, saying how to shorten it
cp "$cli/$lm.stn" "$cli/${lm}x.stn"
refused 1 "${lm}x_gt.f90" "is longer than the 63 characters of a Fortran name; the module is named after the input file (FILE_gt): shorten the file's name$" \
    "a module name of 64 characters" --emit=fortran -w "${lm}x.stn"
# an argument of 64 characters (a field's NAME_halo of 59 + 5): refused at the field's
# declaration (it was the stencil's), saying to what length to shorten the field
printf 'stencil s(field<double> u,\n          field<double> %s) {\n  %s = u[i+1];\n}\n' \
    "${x50}xxxxxxxxx" "${x50}xxxxxxxxx" >"$cli/longarg.stn"
refused 1 "longarg_gt.f90" "^longarg.stn:2:25: error: --emit=fortran: argument '${x50}xxxxxxxxx_halo' is longer than the 63 characters of a Fortran name; shorten field '${x50}xxxxxxxxx' to at most 58 characters$" \
    "an argument of 64 characters" --emit=fortran -w longarg.stn
# every line of those modules within the 132 columns, comments too (the comments naming the
# wrappers and the file passed them: 191 columns; u's halos in its comment, 164), and u's
# S_mpi_halo statement (153); Fortran 2003; a -P prefix of 59 characters in mixed case (the
# file and the module are its name in lower case)
lq=Q${x50}xxxxxxx_
echo "stencil s(field<double> $lf, field<double> $lg) { $lg = $lf[i+1]; }" >"$cli/w.stn"
lw=$(echo "$lq" | tr Q q)w_gt
(cd "$cli" && $T "$GTCC" --emit=fortran -w -P "$lq" w.stn &&
 for m in "${lm}_gt" "$lw"; do
     $T "$FC" -std=f2003 -Wall -Wextra -Werror -I"$work" -c "$m.f90" -o "$m.o" || exit 1
 done) >"$cli/log" 2>&1
if [ $? = 0 ] && [ -z "$(awk 'length > 132' "$cli/${lm}_gt.f90" "$cli/$lw.f90")" ] &&
   grep -q "^! $lw: generated by gtcc .* from w.stn" "$cli/$lw.f90" &&
   grep -q "^! $lq); do not edit\.$" "$cli/$lw.f90"; then
    pass
else
    fail "names of 63 characters: every line, comments too, within 132 columns; -std=f2003"
    head -n 20 "$cli/log"; awk 'length > 132 { print FILENAME ":" FNR ": " length " columns" }' \
        "$cli/${lm}_gt.f90" "$cli/$lw.f90"
fi
# a stencil of 40 fields: gtrt_check_fit's axes ('IJK IJK ...', 4 characters a field) and
# roles ('ii...o') are continued literals, where one literal passed the 132 columns from 30
# fields on (gfortran: "Line truncated"); called: f39 = f0 + 2 * f1 + ... + 39 * f38, and
# f37 without its halo refused by name
{
    printf 'stencil many('
    k=0; while [ $k -lt 39 ]; do printf 'field<double> f%d, ' $k; k=$((k + 1)); done
    printf 'field<double> f39) {\n    f39 = f0'
    k=1; while [ $k -lt 39 ]; do
        if [ $k = 37 ]; then printf ' + 38.0 * f37[i+1]'; else printf ' + %d.0 * f%d' $((k + 1)) $k; fi
        k=$((k + 1))
    done
    printf ';\n}\n'
} >"$cli/many.stn"
cat >"$cli/many.f90" <<'EOF'
program many
    use, intrinsic :: iso_c_binding, only: c_double
    use gtrt, only: GT_EHALO, gtrt_last_error
    use many_gt, only: m => many
    implicit none
    real(c_double) :: a(3, 2, 1, 0:38), w(4, 2, 1), o(3, 2, 1)
    integer :: rc
    a = 1
    w = 1
    call m(a(:, :, :, 0), a(:, :, :, 1), a(:, :, :, 2), a(:, :, :, 3), a(:, :, :, 4), &
           a(:, :, :, 5), a(:, :, :, 6), a(:, :, :, 7), a(:, :, :, 8), a(:, :, :, 9), &
           a(:, :, :, 10), a(:, :, :, 11), a(:, :, :, 12), a(:, :, :, 13), a(:, :, :, 14), &
           a(:, :, :, 15), a(:, :, :, 16), a(:, :, :, 17), a(:, :, :, 18), a(:, :, :, 19), &
           a(:, :, :, 20), a(:, :, :, 21), a(:, :, :, 22), a(:, :, :, 23), a(:, :, :, 24), &
           a(:, :, :, 25), a(:, :, :, 26), a(:, :, :, 27), a(:, :, :, 28), a(:, :, :, 29), &
           a(:, :, :, 30), a(:, :, :, 31), a(:, :, :, 32), a(:, :, :, 33), a(:, :, :, 34), &
           a(:, :, :, 35), a(:, :, :, 36), w, a(:, :, :, 38), o, &
           f37_halo=reshape([0, 1, 0, 0, 0, 0], [2, 3]), rc=rc)
    if (rc /= 0 .or. any(abs(o - 780) > 0.5_c_double)) then   ! 1 + 2 + ... + 39
        print '(a, i0, 2a)', 'FAIL: rc ', rc, ' ', gtrt_last_error()
        stop 1
    end if
    call m(a(:, :, :, 0), a(:, :, :, 1), a(:, :, :, 2), a(:, :, :, 3), a(:, :, :, 4), &
           a(:, :, :, 5), a(:, :, :, 6), a(:, :, :, 7), a(:, :, :, 8), a(:, :, :, 9), &
           a(:, :, :, 10), a(:, :, :, 11), a(:, :, :, 12), a(:, :, :, 13), a(:, :, :, 14), &
           a(:, :, :, 15), a(:, :, :, 16), a(:, :, :, 17), a(:, :, :, 18), a(:, :, :, 19), &
           a(:, :, :, 20), a(:, :, :, 21), a(:, :, :, 22), a(:, :, :, 23), a(:, :, :, 24), &
           a(:, :, :, 25), a(:, :, :, 26), a(:, :, :, 27), a(:, :, :, 28), a(:, :, :, 29), &
           a(:, :, :, 30), a(:, :, :, 31), a(:, :, :, 32), a(:, :, :, 33), a(:, :, :, 34), &
           a(:, :, :, 35), a(:, :, :, 36), a(:, :, :, 37), a(:, :, :, 38), o, rc=rc)
    print '(i0, 1x, a)', rc - GT_EHALO, gtrt_last_error()
end program many
EOF
(cd "$cli" && $T "$GTCC" --emit=fortran many.stn && $T "$GTCC" -b naive -o many.c many.stn &&
 $T "$FC" $FFLAGS -I"$work" -c many_gt.f90 && $T "$FC" $FFLAGS -I"$work" -c many.f90 &&
 $T "$CC" $CFLAGS -I. -c many.c -o many_c.o &&
 $T "$FC" $FSAN -o many many.o many_gt.o "$work/gtrt.o" many_c.o "$BUILD/lib/libgtrt.a" -lm &&
 $T ./many) >"$cli/log" 2>&1
if [ $? = 0 ] && [ -z "$(awk 'length > 132' "$cli/many_gt.f90")" ] &&
   [ "$(tail -n 1 "$cli/log")" = "0 stencil 'many': argument f37, taken as f37(1:3, 1:2, 1:1) (no halo= or f37_halo=: the domain starts at its first element), has a halo of 0 below and 0 above the domain 1:3 along dimension 1 (I); the stencil reads 0 below and 1 above: declare f37(1:4, 1:2, 1:1) and pass f37_halo=reshape([0, 1, 0, 0, 0, 0], [2, 3])" ]; then
    pass
else
    fail "a stencil of 40 fields: a module within 132 columns, its call and its refusal"
    head -n 20 "$cli/log"
fi
finish
