#!/bin/sh
# tools/demo.sh: `make demo`. Runs gtcc --emit=ir on every examples/*/*.stn
# and prints, per stencil, its fields with their intent and the halo each
# input needs (and its boundary conditions), its scalars and how many
# temporaries and computations it has, read from the IR dump (the format is
# described at the top of compiler/ir_dump.c). GTCC names the compiler
# (default build/bin/gtcc). Exits 1 if gtcc rejects an example.
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
        $1 == "stencil" { flush(); name = $2; temps = 0; comps = 0; printf "   stencil %s\n", name }
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
        $1 == "temp" { temps++ }
        $1 == "computation" { comps++ }
        END { flush() }'
done
exit $status
