#!/bin/sh
# tests/golden/docs.sh: the user documentation's examples, run (part of the golden group,
# called by tests/golden/run.sh; runs alone too). Prints a line per failure, then
# "docs: N passed, N failed" as its last line.
#
# 1. Every fenced block without a language tag of README.md, docs/language.md,
#    docs/generated-api.md, docs/internals.md and docs/cuda.md whose first line that is
#    not a // comment starts a stencil or function (`stencil NAME(`), a const or an
#    import (and that holds no grammar `:=`) is a whole program: gtcc compiles it to C
#    with exit status 0 and says nothing (no error, no warning). A first line
#    `// NAME.stn` names its file.
# 2. A block shown as gtcc's --emit=ir output (a line with `@ i[<digit>` or starting
#    with `field NAME: in|out|inout`, or any block after a marker below) holds lines
#    that `gtcc --emit=ir` prints, each (leading blanks aside; `...` lines skipped), for
#    the program of the last such program block before it in the same page, or for the
#    file and options of a `<!-- doc-check: ir FILE OPTIONS -->` line (FILE relative to
#    the repository) just before the block's fence.
# 3. The messages of the table at the end: each quoted in its page (blanks and line
#    breaks counted as one blank) and printed by gtcc for the program given.
# 4. docs/generated-api.md's worked example: laplacian.stn and main.c built with each of
#    the openmp (the page's) and naive backends as C99 with -Wall -Wextra -Wpedantic
#    -Werror (the page says the generated C is clean so), the header's comment and
#    declarations as the page shows them, and the program prints what the page says;
#    the header's laplacian_mpi as "Under MPI" declares it.
# 5. Three run-time messages the pages quote (a run-time K level out of the storage, a
#    mirror on a narrow domain, a halo too small), from calls set up as the pages say.
# 6. docs/cuda.md names every kind of kernel the cuda backend writes (gt_kN_S, ...).
# 7. language.md 2's reserved words are grammar/stencil.l's keywords.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
GTCC=${GTCC:-$root/build/bin/gtcc}
BUILD=${BUILD:-$root/build}
CC=${CC:-cc}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
passed=0; failed=0
fail() { failed=$((failed + 1)); echo "FAIL: docs: $1"; }
pass() { passed=$((passed + 1)); }

# trim: leading and trailing blanks off every line
trim() { sed 's/^[[:space:]]*//; s/[[:space:]]*$//' "$@"; }

# --- 1 and 2: the pages' fenced blocks ---------------------------------------------
for page in README.md docs/language.md docs/generated-api.md docs/internals.md docs/cuda.md; do
    bdir=$tmp/blocks/$(echo "$page" | tr '/.' '__'); mkdir -p "$bdir"
    # each block into $bdir/LINE (the fence's line), its tag and marker into $bdir/index:
    # LINE|TAG|MARKER
    awk -v d="$bdir" '
        /^[[:space:]]*```/ {
            if (!inb) {
                inb = 1; line = NR; tag = $0; sub(/^[[:space:]]*```/, "", tag)
                fence = $0; sub(/```.*/, "", fence); indent = length(fence)
                printf "%d|%s|%s\n", NR, tag, (prev ~ /^<!-- doc-check:/ ? prev : "") > (d "/index")
                printf "" > (d "/" NR)
            } else inb = 0
            next
        }
        inb { s = $0; if (indent > 0 && substr(s, 1, indent) ~ /^[[:space:]]*$/) s = substr(s, indent + 1)
              print s > (d "/" line); next }
        { prev = $0 }' "$root/$page"
    last=""
    while IFS='|' read -r line tag marker; do
        b=$bdir/$line; where="$page:$line"
        [ -n "$tag" ] && continue
        first=$(grep -v '^[[:space:]]*$' "$b" | grep -v '^[[:space:]]*//' | head -n 1)
        if ! grep -q ':=' "$b" && echo "$first" | grep -Eq '^((stencil|function)[[:space:]]+[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\(|const[[:space:]]|import[[:space:]]+")'; then
            name=$(head -n 1 "$b" | sed -n 's|^// *\([A-Za-z0-9_]*\.stn\)$|\1|p')
            name=${name:-block.stn}
            mkdir -p "$b.d" && cp "$b" "$b.d/$name"
            if (cd "$b.d" && "$GTCC" -o out.c "$name") >"$b.out" 2>"$b.err"; then
                if [ -s "$b.err" ]; then
                    fail "$where: gtcc warns about the example"; sed 's/^/  | /' "$b.err" | head -n 10
                else
                    pass; last=$b.d/$name
                fi
            else
                fail "$where: the example does not compile"; sed 's/^/  | /' "$b.err" | head -n 10
            fi
            continue
        fi
        [ -n "$marker" ] ||
            grep -Eq ' @ i\[[-+0-9]|^[[:space:]]*field [A-Za-z_0-9]+: (in|out|inout) ' "$b" || continue
        if [ -n "$marker" ]; then
            set -- $(echo "$marker" | sed 's/^<!-- doc-check: *ir *//; s/ *-->.*//')
            src=$root/$1; shift
            (cd "$(dirname "$src")" && "$GTCC" --emit=ir "$@" "$(basename "$src")") >"$b.ir" 2>&1
        elif [ -n "$last" ]; then
            (cd "$(dirname "$last")" && "$GTCC" --emit=ir "$(basename "$last")") >"$b.ir" 2>&1
        else
            fail "$where: an --emit=ir output with no program before it and no doc-check marker"
            continue
        fi
        trim "$b.ir" > "$b.irt"
        missing=$(trim "$b" | grep -v '^\.\.\.$' | grep -v '^$' | while IFS= read -r l; do
            grep -Fxq -- "$l" "$b.irt" || echo "$l"; done)
        if [ -n "$missing" ]; then
            fail "$where: lines gtcc --emit=ir does not print:"; echo "$missing" | sed 's/^/  | /' | head -n 10
        else
            pass
        fi
    done < "$bdir/index"
done

# --- 3: messages quoted in the pages ------------------------------------------------
# Records: `@ PAGE|OPTIONS|MESSAGE` then the program's lines. OPTIONS are gtcc's (with
# -o for C, the default --emit=ir); the message must be in PAGE and in gtcc's output.
flat() { tr '\n' ' ' < "$1" | tr -s ' '; }
awk -v d="$tmp/msg" 'BEGIN { n = 0; system("mkdir -p " d) }
    /^@ / { n++; sub(/^@ /, ""); print > (d "/" n ".head"); printf "" > (d "/" n ".stn"); next }
    n { print > (d "/" n ".stn") }' <<'EOF'
@ docs/language.md|-o out.c|stencil name 'omp_get_thread_num' is reserved in the generated C code
stencil omp_get_thread_num(field<double> u, field<double> v) { v = u; }
@ docs/language.md||floating literal 1e+39 is out of range for float
stencil s(field<float> v) { float t = 1e39; v = t; }
@ docs/language.md||floating literal '1e-400' is too small for double: it is 0
stencil s(field<double> v) { v = 1e-400; }
@ docs/language.md||recursive functions: f -> g -> f
function f(x) { return g(x); }
function g(x) { return f(x); }
stencil s(field<double> v) { v = f(1.0); }
@ docs/language.md||stencil 's' writes no output
stencil s(field<double> v) { double t = v; }
@ docs/language.md||the condition of a while loop must be bool, not int
stencil s(field<double> v) { int n = 1; while (n) { n = n - 1; } v = 1.0 * n; }
@ docs/language.md||its statements never run
stencil s(field<double> v) { int n = 1; while (false) { n = n - 1; } v = 1.0 * n; }
@ docs/language.md||the loop never ends
stencil s(field<double> v) { int n = 1; while (true) { n = n - 1; } v = 1.0 * n; }
@ docs/language.md||put the while loop inside the region instead
stencil s(field<double> v) { int n = 1; while (n > 0) { region(i(0, 1)) { n = n - 1; } } v = 1.0 * n; }
@ docs/language.md||this while loop writes field 'v', on the compute domain, and temporary 't', which is read after it at offsets that need it over i[-1,0] j[0,1]
stencil s(field<double> w, field<double> v, field<double> u) {
    double t = u;
    while (v < 1.0) { v = v + 1.0; t = t + 1.0; }
    w = t[i-1] + t[j+1];
}
@ docs/language.md||stencil 's' is not fused: a while loop whose condition reduces a column
stencil s(field<double> v, field<double> u) { double t = u; while (t < sum(u, k)) { t = t + 1.0; } v = t; }
@ docs/language.md||the run-time K offset of 'q' must be an int expression, not double
stencil s(field<double> v, field<double> q, field<double> n) { v = q[k + (n)]; }
@ docs/language.md||cannot assign a value of shape IJK to 'top' of axes IJ
stencil s(field<double, IJ> top, field<double> u) { top = u; }
@ docs/language.md||declare it 'field<double, IJ> t = ...'
stencil s(field<double, IJ> top, field<double, IJ> ps) { double t = ps; top = t; }
@ docs/language.md||temporary 't' is read at k-1 in interval(0, end), but no earlier statement computes it at level -1
stencil s(field<double> v, field<double> u) { double t = u; computation(parallel) interval(0, end) { v = t[k-1]; } }
@ docs/language.md||temporary 'tmp' is never used by an output; its statements are removed
stencil s(field<double> v, field<double> u) { double tmp = u; v = u; }
@ docs/language.md||the value assigned to 't' here is never used by an output; the assignment is removed
stencil s(field<double> v, field<double> u) { double t = u; v = t; t = 2.0; }
@ docs/language.md||temporary 't' is never used; it is removed
stencil s(field<double> v, field<double> u) { field<double, IJK> t; v = u; }
@ docs/language.md||i(max(2, end - 6), min(5, end + 3))
stencil s(field<double> v, field<double> u) {
    double t = u;
    region(i(2, end + 3)) { region(i(end - 6, 5)) t = 2.0; }
    v = t[i-3] + t[i+3];
}
@ README.md||field u: in double IJK extent i[-2,+2] j[-2,+2] k[0,0] halo i[-2,+2] j[-2,+2] k[0,0] read_at_offset
function lap(f) { return 4.0 * f - (f[i-1] + f[i+1] + f[j-1] + f[j+1]); }
stencil hdiff(field<double> u, field<double> coeff, field<double> out_u) {
  double l   = lap(u);
  double flx = l[i+1] - l;
  if (flx * (u[i+1] - u) > 0.0) flx = 0.0;
  double fly = l[j+1] - l;
  if (fly * (u[j+1] - u) > 0.0) fly = 0.0;
  out_u = u - coeff * (flx - flx[i-1] + fly - fly[j-1]);
}
@ docs/cuda.md|--emit=ir -b cuda|temp a: global (a device array over the domain, from the pool)
stencil s(field<double> u, field<double> w, field<double> x, field<double> y, field<double> v) {
    double a = sqrt(u + 1.0) * sqrt(u + 2.0) + sqrt(u + 3.0) * sqrt(u + 4.0) + exp(u) * log(u + 5.0);
    double b = sqrt(w + 1.0) * sqrt(w + 2.0) + sqrt(w + 3.0) * sqrt(w + 4.0) + exp(w) * log(w + 5.0);
    double c = sqrt(x + 1.0) * sqrt(x + 2.0) + sqrt(x + 3.0) * sqrt(x + 4.0) + exp(x) * log(x + 5.0);
    double d = sqrt(y + 1.0) * sqrt(y + 2.0) + sqrt(y + 3.0) * sqrt(y + 4.0) + exp(y) * log(y + 5.0);
    v = a[i-8, j-12] + a[i+8, j+12] + b[i-8, j-12] + b[i+8, j+12]
      + c[i-8, j-12] + c[i+8, j+12] + d[i-8, j-12] + d[i+8, j+12];
}
@ docs/internals.md||temp t: double IJK extent i[0,0] j[0,0] k[0,0] block_local
stencil s(field<double> v, field<double> u) { region(i(0, 1)) { double t = u; v = t; } }
EOF
for h in "$tmp"/msg/*.head; do
    n=$(basename "$h" .head); d=$tmp/msg/$n.d; mkdir -p "$d"; cp "$tmp/msg/$n.stn" "$d/s.stn"
    IFS='|' read -r page opts msg < "$h"
    flat "$root/$page" > "$d/page"
    if ! grep -Fq -- "$msg" "$d/page"; then
        fail "$page no longer quotes: $msg"; continue
    fi
    # shellcheck disable=SC2086
    (cd "$d" && "$GTCC" ${opts:---emit=ir} s.stn) > "$d/out" 2>&1
    if grep -Fq -- "$msg" "$d/out"; then
        pass
    else
        fail "$page quotes '$msg', which gtcc does not say:"; sed 's/^/  | /' "$d/out" | head -n 10
    fi
done

# --- 4: docs/generated-api.md's worked example, built and run -------------------------
if command -v "$CC" >/dev/null 2>&1 && [ -e "$BUILD/lib/libgtrt.a" ]; then
    g=$tmp/blocks/docs_generated-api_md; d=$tmp/api; mkdir -p "$d"
    lap=$(awk -F'|' '$2 == "" { print $1; exit }' "$g/index")
    hdr=$(awk -F'|' '$2 == "c" { print $1; exit }' "$g/index")
    main=$(awk -F'|' '$2 == "c" { n++; if (n == 2) { print $1; exit } }' "$g/index")
    cp "$g/$lap" "$d/laplacian.stn"; cp "$g/$main" "$d/main.c"
    want=$(sed -n 's|.*printf("lap at the origin: %g\\n", l\[0\]); */\* \([0-9.e+-]*\) for .*|\1|p' "$d/main.c")
    for be in openmp naive; do
        if ! (cd "$d" && "$GTCC" -b $be laplacian.stn) > "$d/log" 2>&1; then
            fail "generated-api.md: gtcc -b $be laplacian.stn fails"; sed 's/^/  | /' "$d/log" | head -n 10
        elif ! grep -Fxf "$g/$hdr" "$d/laplacian.h" > "$d/hdr" || ! diff "$g/$hdr" "$d/hdr" > "$d/log"; then
            fail "generated-api.md:$hdr: laplacian.h (-b $be) does not hold these lines:"
            sed 's/^/  | /' "$d/log" | head -n 10
        # shellcheck disable=SC2086
        elif ! "$CC" -std=c99 -Wall -Wextra -Wpedantic -Werror -O1 ${SANFLAGS:-} \
                -I"$root/runtime/include" -o "$d/main" "$d/main.c" "$d/laplacian.c" \
                "$BUILD/lib/libgtrt.a" -fopenmp -lm > "$d/log" 2>&1; then
            fail "generated-api.md:$main: main.c with -b $be's laplacian.c does not build as C99 without warnings"
            sed 's/^/  | /' "$d/log" | head -n 10
        elif [ -z "$want" ] || [ "$("$d/main" 2>&1)" != "lap at the origin: $want" ]; then
            fail "generated-api.md:$main: the program (-b $be) printed '$("$d/main" 2>&1)', the page says '$want'"
        else
            pass
        fi
    done
    # "Under MPI": the distributed entry as the page declares it
    mpi=$(awk -F'|' '$2 == "c" { print $1 }' "$g/index" | while read -r x; do
        grep -q '^static inline int laplacian_mpi(' "$g/$x" && echo "$x"; done | head -n 1)
    if [ -z "$mpi" ]; then
        fail "generated-api.md: the block declaring laplacian_mpi was not found"
    else
        sed -n '/^static inline int laplacian_mpi(/,/)/p' "$g/$mpi" | tr '\n' ' ' | tr -s ' ' |
            sed 's/; *$//; s/ *$//' > "$d/mpi.doc"
        sed -n '/^static inline int laplacian_mpi(/,/)/p' "$d/laplacian.h" | tr '\n' ' ' |
            tr -s ' ' | sed 's/ *$//' > "$d/mpi.h"
        if [ -s "$d/mpi.doc" ] && cmp -s "$d/mpi.doc" "$d/mpi.h"; then
            pass
        else
            fail "generated-api.md:$mpi: laplacian.h declares laplacian_mpi otherwise:"
            sed 's/^/  | /' "$d/mpi.h"; echo
        fi
    fi
fi

# --- 5: run-time messages the pages quote, from calls set up as the pages say ---------
# language.md 5.7's kremap example (its block as the page shows it: pe and q with one level
# of K halo on each side, NK = 9, n = 2 at (2, 3, 8)), language.md 9's mirror (read 3
# points beyond a domain 2 wide) and generated-api.md's laplacian without halo.
if command -v "$CC" >/dev/null 2>&1 && [ -e "$BUILD/lib/libgtrt.a" ]; then
    d=$tmp/run; mkdir -p "$d"; l=$tmp/blocks/docs_language_md
    for x in $(awk -F'|' '$2 == "" { print $1 }' "$l/index"); do
        grep -q '^stencil kremap(' "$l/$x" && cp "$l/$x" "$d/kremap.stn"
    done
    cat > "$d/m.stn" <<'STN'
stencil m(field<double> u, field<double> v) {
    boundary u(i): mirror;
    v = u[i-3] + u[i+1];
}
STN
    cat > "$d/main.c" <<'C'
#include <stdio.h>
#include <gt/gt.h>
#include "kremap.h"
#include "m.h"
#include "laplacian.h"
static gt_storage *zeros(gt_dtype t, const char *axes, int64_t ni, int64_t nj, int64_t nk,
                         int64_t hi0, int64_t hi1, int64_t hk0, int64_t hk1)
{
    gt_storage_opts o = {.halo = {{hi0, hi1}, {0, 0}, {hk0, hk1}}};
    if (axes[2] == 0) o.halo[2][0] = o.halo[2][1] = 0;
    return gt_zeros(t, axes, (int64_t[]){ni + hi0 + hi1, nj, nk + hk0 + hk1}, &o);
}
int main(void)
{
    gt_storage *pe = zeros(GT_FLOAT64, "IJK", 4, 6, 9, 1, 1, 1, 1);
    gt_storage *q = zeros(GT_FLOAT64, "IJK", 4, 6, 9, 0, 1, 1, 1);
    gt_storage *n = zeros(GT_INT32, "IJK", 4, 6, 9, 1, 0, 0, 0);
    gt_storage *kbot = zeros(GT_INT32, "IJ", 4, 6, 1, 0, 0, 0, 0);
    gt_storage *a = zeros(GT_FLOAT64, "IJK", 4, 6, 9, 0, 0, 0, 0);
    gt_storage *b = zeros(GT_FLOAT64, "IJK", 4, 6, 9, 0, 0, 0, 0);
    int32_t *pn = gt_host(n, GT_WRITE);
    const int64_t *st = gt_strides(n);
    pn[(1 + 2) * st[0] + 3 * st[1] + 8 * st[2]] = 2;     /* n = 2 at (2, 3, 8) */
    if (kremap(pe, q, n, kbot, 0, 0, a, b, NULL) != 0) printf("%s\n", gt_last_error());
    gt_storage *u = zeros(GT_FLOAT64, "IJK", 2, 4, 1, 0, 1, 0, 0);
    gt_storage *v = zeros(GT_FLOAT64, "IJK", 2, 4, 1, 0, 0, 0, 0);
    if (m(u, v, NULL) != 0) printf("%s\n", gt_last_error());
    gt_storage *lu = zeros(GT_FLOAT64, "IJK", 8, 8, 2, 0, 0, 0, 0);
    gt_storage *lap = zeros(GT_FLOAT64, "IJK", 8, 8, 2, 0, 0, 0, 0);
    if (laplacian(lu, lap, NULL) != 0) printf("%s\n", gt_last_error());
    fflush(stdout);   /* (before LeakSanitizer's report at exit, under SANITIZE=1) */
    gt_storage *all[] = {pe, q, n, kbot, a, b, u, v, lu, lap};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        gt_release(all[k]);
    return 0;
}
C
    cp "$tmp/api/laplacian.stn" "$d/" 2>/dev/null
    ok=1
    for f in kremap m laplacian; do
        if [ ! -e "$d/$f.stn" ] || ! (cd "$d" && "$GTCC" -b naive "$f.stn") > "$d/log" 2>&1; then
            fail "run-time messages: $f.stn (from the pages) does not compile"; ok=0
        fi
    done
    # shellcheck disable=SC2086
    if [ $ok = 1 ] && ! "$CC" -std=c11 -O1 ${SANFLAGS:-} -I"$root/runtime/include" -o "$d/main" \
            "$d/main.c" "$d/kremap.c" "$d/m.c" "$d/laplacian.c" "$BUILD/lib/libgtrt.a" \
            -fopenmp -lm > "$d/log" 2>&1; then
        fail "run-time messages: the driver does not build"; sed 's/^/  | /' "$d/log" | head; ok=0
    fi
    if [ $ok = 1 ]; then
        "$d/main" > "$d/out" 2>&1
        for want in "docs/language.md|stencil 'kremap': 'pe' read at level 10 at (2, 3, 8), outside the levels -1 to 9 its storage holds (the run-time K offset at line 3, column 14)" \
                    "docs/language.md|stencil 'm': field 'u' has a mirror boundary condition along I and is read up to 3 point(s) beyond the domain there, which is 2 wide: " \
                    "docs/generated-api.md|stencil 'laplacian': field 'u': halo along I is [0,0] but the stencil needs [1,1]"; do
            page=${want%%|*}; msg=${want#*|}
            if ! flat "$root/$page" | grep -Fq -- "$msg"; then
                fail "$page no longer quotes: $msg"
            elif ! grep -Fq -- "$msg" "$d/out"; then
                fail "$page quotes '$msg', which the call does not say:"; sed 's/^/  | /' "$d/out"
            else
                pass
            fi
        done
    fi
fi

# --- 6: the cuda backend's kernels, as docs/cuda.md names them ----------------------------
# Every kind of kernel the cuda backend writes for README.md's hdiff (gt_k0_hdiff, ...) is
# in cuda.md's list of the names the generated code claims (`gt_kN_S`, ...).
hd=$(ls "$tmp"/blocks/README_md/*.d/block.stn 2>/dev/null | head -n 1)
if [ -n "$hd" ] && (cd "$(dirname "$hd")" && "$GTCC" -b cuda -o hd.cu block.stn) > "$tmp/cu.log" 2>&1; then
    kinds=$(sed -n 's/^static __global__ void gt_\([a-z]\)0_hdiff(.*/\1/p' "$(dirname "$hd")/hd.cu" | sort -u)
    if [ -z "$kinds" ]; then
        fail "cuda.md: no kernel gt_X0_hdiff found in the cuda backend's output for README's hdiff"
    fi
    for x in $kinds; do
        if flat "$root/docs/cuda.md" | grep -Fq "\`gt_${x}N_S\`"; then
            pass
        else
            fail "cuda.md does not name the kernels gt_${x}N_S that the cuda backend writes (gt_${x}0_hdiff)"
        fi
    done
else
    fail "cuda.md: gtcc -b cuda of README's hdiff fails"; sed 's/^/  | /' "$tmp/cu.log" | head -n 5
fi

# --- 7: language.md's reserved words are the scanner's keywords -------------------------
sed -n 's/^"\([a-z]*\)"[[:space:]]*{ KEYWORD(.*/\1/p' "$root/grammar/stencil.l" | sort > "$tmp/kw.lex"
flat "$root/docs/language.md" | sed -n 's/.*the keywords `\([a-z ]*\)` are reserved.*/\1/p' |
    tr ' ' '\n' | grep -v '^$' | sort > "$tmp/kw.doc"
if [ ! -s "$tmp/kw.lex" ] || [ ! -s "$tmp/kw.doc" ]; then
    fail "language.md 2: the keyword list (page or grammar/stencil.l) was not found"
elif ! diff "$tmp/kw.doc" "$tmp/kw.lex" > "$tmp/kw.diff"; then
    fail "language.md 2: the reserved words (<) are not grammar/stencil.l's keywords (>):"
    sed 's/^/  | /' "$tmp/kw.diff"
else
    pass
fi

echo "docs: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
