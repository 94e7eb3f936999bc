#!/bin/sh
# tools/demo.sh: `make demo`. Runs gtcc --emit=ir on every examples/*/*.stn
# and prints, per stencil, its fields with their intent and the halo each
# input needs (and its boundary conditions), its scalars and how many
# temporaries and computations it has, read from the IR dump (the format is
# described at the top of compiler/ir_dump.c). GTCC names the compiler
# (default build/bin/gtcc). Exits 1 if gtcc rejects an example. Then it
# installs into $BUILD/demo/prefix and builds and runs the hdiff, heat2d, heat2d_steps,
# regions and fortran (hdiff called from Fortran, docs/fortran.md) examples with their own
# Makefiles, printing what they computed and where the heat2d image is; last,
# examples/python/heat.py with the Python package installed into a venv (tools/pyvenv.sh)
# against the installed gtcc.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
GTCC=${GTCC:-$here/build/bin/gtcc}
status=0
for stn in "$here"/examples/*/*.stn; do
    [ -e "$stn" ] || continue
    echo "== ${stn#$here/}"
    if ! ir=$("$GTCC" --emit=ir "$stn" 2>&1); then
        printf '%s\n' "$ir" | sed 's/^/   | /'
        status=1
        continue
    fi
    printf '%s\n' "$ir" | awk '
        function flush() {
            if (name != "")
                printf "     %d temporar%s, %d computation%s\n", temps, temps == 1 ? "y" : "ies",
                       comps, comps == 1 ? "" : "s"
        }
        $1 == "stencil" { flush(); name = $2; temps = 0; comps = 0; inplan = 0; printf "   stencil %s\n", name }
        $1 == "field" {
            sub(":", "", $2)
            halo = ""; bc = ""
            for (f = 1; f <= NF; f++) {
                if ($f == "halo") halo = $(f + 1) " " $(f + 2) " " $(f + 3)
                if ($f == "bc") { for (g = f + 1; g <= NF && $g ~ /:/; g++) bc = bc " " $g }
            }
            if ($3 == "out") halo = "-"
            printf "     %-6s %-10s %-7s %-4s halo %s%s\n", $3, $2, $4, $5, halo, bc != "" ? "   bc" bc : ""
        }
        $1 == "scalar" { sub(":", "", $2); printf "     %-6s %-10s %s scalar\n", $3, $2, $4 }
        $1 == "plan" { inplan = 1 }   # the fusion plan repeats temps and computations
        $1 == "temp" && !inplan { temps++ }
        $1 == "computation" && !inplan { comps++ }
        END { flush() }'
done
[ $status = 0 ] || exit $status

# Then what a user does: install gtcc into a prefix, and build and run five
# examples through their own Makefiles (a gtcc pattern rule, pkg-config gtrt; the
# Fortran one pkg-config gtrt-fortran).
BUILD=${BUILD:-$here/build}
prefix=$BUILD/demo/prefix
echo "== make install PREFIX=$prefix"
make -s -C "$here" install PREFIX="$prefix" BUILD="$BUILD" >/dev/null || exit 1
for ex in hdiff heat2d heat2d_steps regions fortran; do
    out=$BUILD/demo/$ex
    echo "== examples/$ex: make run (gtcc -b openmp, built in $out)"
    log=$(PATH="$prefix/bin:$PATH" PKG_CONFIG_PATH="$prefix/lib/pkgconfig" \
          make -s -C "$here/examples/$ex" O="$out" run 2>&1)
    rc=$?
    printf '%s\n' "$log" | sed 's/^/   /'
    [ $rc = 0 ] || exit 1
done
echo "== the heat2d image: $BUILD/demo/heat2d/heat2d.pgm"

# From Python: the package of python/ installed into a venv (tools/pyvenv.sh), gtcc and
# libgtrt found the way a user's are: gtcc on PATH, libgtrt and the headers beside it.
echo "== examples/python/heat.py (pip install ./python into $BUILD/demo/python/venv)"
"$here/tools/pyvenv.sh" "$BUILD/demo/python" || exit 1
mkdir -p "$BUILD/demo/python/out"
env -u GTCC -u GTCC_LIBDIR -u GTCC_INCLUDEDIR PATH="$prefix/bin:$PATH" \
    GTCC_CACHE_DIR="$BUILD/demo/python/cache" OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} \
    "$BUILD/demo/python/venv/bin/python" "$here/examples/python/heat.py" \
    "$BUILD/demo/python/out" > "$BUILD/demo/python/heat.log" 2>&1
rc=$?
sed 's/^/   /' "$BUILD/demo/python/heat.log"
exit $rc
