#!/usr/bin/env python3
"""tools/sass_report.py: the per-kernel SASS figures of `make cuda-report` (tools/cuda_report.sh
runs it; see there and docs/cuda.md, "SASS report", for the definitions).

    sass_report.py LABEL CU SASS OCCUPANCY

CU is the cuda backend's output, SASS `cuobjdump -sass` of its cubin for one architecture,
OCCUPANCY the lines tests/cuda/occupancy.cc wrote for its kernels (registers, shared bytes,
occupancy). Prints one line per kernel:

    LABEL KERNEL ARCH REGS SPILL SHARED OCC% LDG/PT STG/PT RO/PT PLAIN DIV INSTR/PT RW LOOP LDS/PT STS/PT

The K loop is the kernel's steady-state outermost loop: among the SASS loops not inside another
(a loop is the span from a branch's target back to that backward branch), the one with the
largest unroll factor, then the longest. Its unroll factor u_K is the step of the induction
variable the back edge compares (k moves by 1 per source iteration; the generated level loop is
rolled, GT_ROLLED, so 1 for the group kernels). A kernel without a loop is counted whole, as one
point per thread. The loops directly inside the K loop are the generated source's point loop
nests over a range grown by a region (`GT_ROLLED for (gt_idx j = gt_j0 + threadIdx.y; ...; j +=
8)` around `for (gt_idx i = gt_i0 + threadIdx.x; ...; i += 32)`), in source order, each over a
tile of W x H points (from the source: the block grown by the range's extents), or a single
linear loop over such a tile's points row by row (`GT_ROLLED for (int gt_p = gt_t; gt_p < W x H;
gt_p += 256)`), or, where that box holds the block, the thread's own point (no loop) and then one
loop over the R points of the box around the block (`GT_ROLLED for (int gt_q = gt_t; gt_q < R;
gt_q += 256)`, counted R / 256 times); a kernel over the block's own range has no loop (one point
a thread). Per point,
in one K iteration of a full interior block (32 x 8 = 256 points, one thread each), a thread's
average:

    count = [ (the K loop's instructions outside the point loops: 1)
            + (each j loop's instructions outside its i loop: H / 8)
            + (each i loop's and each linear loop's instructions: W x H / 256) ] / u_K

Loads are LDG, stores STG, read-only loads LDG...CONSTANT, shared loads LDS, shared stores STS
(a warp's 64-bit LDS or STS takes two passes of the shared-memory pipe, a 32-bit one one); PLAIN is the number of static
plain (not CONSTANT) LDG in the K loop of a kernel that reads no field it writes; DIV the
static count of integer division or modulo sequences in the K loop (an I2F...RP that starts
the reciprocal sequence, or a CALL to a subroutine holding one). RW is 1 where the kernel
reads a field it also writes (its plain loads may be required), and for the gt_aN kernels,
which run the in-place calls (an output is the storage of a field read only at offset 0). LOOP says how the loops were
found: "k" (a K loop), "alt" (a K loop where one tile has two alternative point loops, the
boundary-block variant and the interior one, `if (...) for ... else for ...`: both are counted,
so the figures bound an interior block's, which runs one), "none" (no loop), or "?" (the inner
loops do not match the source's point loops: the per-point figures are then not to be trusted).
Instructions: every SASS instruction of the K loop is one (NOPs past the kernel's end and the
trailing `BRA` to itself are not in any loop); subroutines called from it (a double division's
slow path) are not counted. SASS_DEBUG=1 prints the loops found to standard error.
"""
import re
import os
import sys

DEBUG = os.environ.get('SASS_DEBUG')

INS = re.compile(r'/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;')


def demangle(m):
    s = m[2:] if m.startswith('_Z') else m
    n = int(re.match(r'\d+', s).group(0))
    s = s[len(str(n)):]
    name, rest = s[:n], s[n:]
    if rest.startswith('IiE'):
        name += '<int32_t>'
    elif rest.startswith('IlE'):
        name += '<int64_t>'
    return name


def functions(path):
    code, fn = {}, None
    for line in open(path):
        m = re.search(r'Function : (\S+)', line)
        if m:
            fn = m.group(1)
            code[fn] = []
            continue
        m = INS.search(line)
        if m and fn:
            code[fn].append((int(m.group(1), 16), m.group(2)))
    return code


def branch_target(text):
    m = re.search(r'\bBRA(?:\.\S+)?\s+(?:`\(\.L_x_\d+\)\s*)?(0x[0-9a-f]+)', text)
    return int(m.group(1), 16) if m else None


def loops(code):
    """(head, tail address, index of head, index of tail) for each backward branch"""
    idx = {a: n for n, (a, _) in enumerate(code)}
    out = []
    for n, (a, t) in enumerate(code):
        tgt = branch_target(t)
        if tgt is not None and tgt < a and tgt in idx:
            out.append((idx[tgt], n))
    return out


def unroll(code, head, tail, nested=()):
    """the step of the induction variable that the back edge's predicate compares (at most 16:
    a larger constant is not an unroll factor); the compared register may be the sum of the induction variable and a loop invariant. The
    compare and the adds are looked for outside the loops nested in this one (their (head,
    tail) index spans): a point loop's `j += 8` is not the level loop's step"""
    bra = code[tail][1]
    m = re.match(r'@!?(U?P\d)\s', bra)
    if not m:
        # sm_80 may leave by a predicated CALL.REL.NOINC before an unconditional back edge
        m = re.match(r'@!?(U?P\d)\s', code[tail - 1][1])
    if not m:
        return None
    pred = m.group(1)
    reg = None
    def outside(n):
        return not any(lo <= n <= hi for lo, hi in nested)

    for n in range(tail - 1, head - 1, -1):
        if not outside(n):
            continue
        t = code[n][1]
        # the counter may be the second operand, against zero (`ISETP.NE.U32.AND P1, PT, RZ, UR5`)
        m2 = re.match(r'(?:@!?U?P\d\s+)?U?ISETP\S*\s+(U?P\d)\s*,\s*U?PT\s*,\s*(U?RZ|U?R\d+)'
                      r'(?:\s*,\s*(U?R\d+))?', t)
        # a 64-bit compare ends with the high words' ISETP...EX: the low words' one names the step
        if m2 and m2.group(1) == pred and '.EX' not in t.split()[0 if t[0] != '@' else 1]:
            reg = m2.group(3) if m2.group(2).endswith('RZ') else m2.group(2)
            if reg:
                break
    if reg is None:
        return None

    def adds(r):
        for n in range(head, tail):
            if not outside(n):
                continue
            t = code[n][1]
            m3 = re.match(r'(?:@!?U?P\d\s+)?(U?IADD3|VIADD|IADD|IMAD\.IADD)(?:\.\S+)?\s+(U?R\d+)\s*,\s*(.*)', t)
            if m3 and m3.group(2) == r:
                ops = [o.strip() for o in m3.group(3).split(',')]
                # IMAD.IADD d, a, 0x1, b is d = a * 1 + b
                yield [ops[0], ops[2]] if m3.group(1) == 'IMAD.IADD' and len(ops) == 3 else ops

    def step(r):
        for ops in adds(r):
            if r not in ops and ('-' + r) not in ops:
                continue
            for o in ops:
                if re.fullmatch(r'-?0x[0-9a-f]+', o):
                    v = int(o, 16)
                    if v >= 0x80000000:
                        v -= 0x100000000
                    if v != 0 and abs(v) <= 16:
                        return abs(v)
        return None

    s = step(reg)
    if s is None:
        for ops in adds(reg):
            for o in ops:
                if re.fullmatch(r'-?U?R\d+', o) and o.lstrip('-') != reg:
                    s = s or step(o.lstrip('-'))
    return s


def div_subroutines(code, last_exit):
    """addresses of CALL targets, subroutines after the kernel's last EXIT, whose body (up to its
    RET) starts an integer reciprocal"""
    idx = {a: n for n, (a, _) in enumerate(code)}
    out = set()
    for a, t in code:
        m = re.match(r'(?:@!?U?P\d\s+)?CALL\S*\s+(0x[0-9a-f]+)', t)
        if not m:
            continue
        tgt = int(m.group(1), 16)
        if idx.get(tgt, 0) <= last_exit:
            continue
        n = idx.get(tgt)
        while n is not None and n < len(code):
            if re.search(r'\bI2F\S*\.RP\b', code[n][1]):
                out.add(tgt)
                break
            if re.match(r'RET\b', code[n][1]):
                break
            n += 1
    return out


def source_kernels(cu):
    """per body function gt_bN_X: its point loop nests' tiles (W, H), block shape, whether it
    reads a field it writes, whether a tile has alternative point code"""
    text = open(cu).read()
    out = {}
    for m in re.finditer(r'void (gt_b\d+_\w+)\(', text):
        end = text.find('\n}\n', m.end())
        body = text[m.end():end]
        bm = re.search(r'blockIdx\.x \* (\d+).*?blockIdx\.y \* (\d+)', body)
        bi, bj = (int(bm.group(1)), int(bm.group(2))) if bm else (32, 8)
        # each kernel's points follow the header of its range; a header followed by two point
        # codes has a boundary-block variant and an interior one (`if (...) ... else ...`); a
        # range grown by a region is a loop nest over j, then i (a tile of W x H points), the
        # block's own range one point a thread, no loop
        tiles, alt, tile, codes = [], False, (bi, bj), 0
        for t in re.finditer(r'gt_i0 = gt_ib(?: - (\d+))?, gt_i1 = gt_ie(?: \+ (\d+))?, '
                             r'gt_j0 = gt_jb(?: - (\d+))?, gt_j1 = gt_je(?: \+ (\d+))?;|'
                             r'GT_ROLLED for \(gt_idx j = gt_j0|GT_ROLLED for \(int gt_p = gt_t;|'
                             r'GT_ROLLED for \(int gt_q = gt_t; gt_q < (\d+);|'
                             r'const gt_idx i = gt_i0 \+ \(gt_idx\)threadIdx\.x', body):
            if not t.group(0).startswith('gt_i0'):
                if 'gt_q' in t.group(0):
                    # the ring of a box whose own points came first, outside any loop: its
                    # R points, one loop pass over them (R / 256 per point)
                    tiles.append((int(t.group(5)), 1, True))
                elif t.group(0).startswith('GT_ROLLED'):
                    # a nest over j and i, or one loop over the points row by row (linear)
                    tiles.append(tile + ('gt_p' in t.group(0),))
                codes += 1
                alt = alt or codes > 1
                continue
            a, b, c, d = (int(x) if x else 0 for x in t.groups()[:4])
            tile, codes = (bi + a + b, bj + c + d), 0
        reads = set(re.findall(r'GT_LD\((\w+)_p_b\b', body))
        writes = set(re.findall(r'GT_ST\((\w+)_p_b\b', body))
        out[m.group(1)] = (tiles, (bi, bj), bool(reads & writes), alt)
    return out


def analyse(code, tiles, block):
    """per-point loads, stores, read-only loads; plain loads, divisions, instructions; loop kind"""
    bi, bj = block
    points = bi * bj
    body = [(a, t) for a, t in code]
    # the final `BRA self` and the padding are not code
    while body and (re.match(r'NOP\b', body[-1][1]) or branch_target(body[-1][1]) == body[-1][0]):
        body.pop()
    ls = [l for l in loops(body) if l[0] != l[1]]
    # the kernel's own code ends at its last EXIT (subroutines follow it)
    last_exit = max((n for n, (a, t) in enumerate(body) if re.match(r'(@!?P\d\s+)?EXIT\b', t)),
                    default=len(body) - 1)
    divsubs = div_subroutines(body, last_exit)

    def within(l, o):
        return o != l and o[0] <= l[0] and l[1] <= o[1]

    outer = [l for l in ls if l[1] <= last_exit and not any(within(l, o) for o in ls)]
    kind = 'k'
    if not outer:
        klo, khi, uk, kind = 0, last_exit, 1, 'none'
    else:
        cand = []
        for l in outer:
            u = unroll(body, l[0], l[1], [o for o in ls if within(o, l)]) or 1
            cand.append((u, l[1] - l[0], l))
        cand.sort(reverse=True)
        uk, _, (klo, khi) = cand[0]
        if DEBUG:
            print('K loop candidates', [(u, n, hex(body[l[0]][0]), hex(body[l[1]][0])) for u, n, l in cand],
                  file=sys.stderr)
    kl = (klo, khi)
    inside = [l for l in ls if l != kl and klo <= l[0] and l[1] <= khi]
    # the j loops: directly in the K loop; each holds one i loop (the rolled point loop nest)
    jloops = sorted(l for l in inside if not any(within(l, o) and o != kl for o in inside))
    if DEBUG:
        print('j loops', [(hex(body[a][0]), hex(body[b][0])) for a, b in jloops], 'tiles', tiles,
              file=sys.stderr)
    if len(jloops) != len(tiles):
        kind = '?'
    weight = [1.0] * len(body)
    for n, jl in enumerate(jloops):
        w, h, linear = tiles[n] if n < len(tiles) else (bi, bj, False)
        # per thread of a block, on average: h / bj passes of the j loop, w x h / points of
        # the i loop inside it; w x h / points passes of a linear loop
        for x in range(jl[0], jl[1] + 1):
            weight[x] = w * h / points if linear else h / bj
        for il in inside:
            if within(il, jl) and not linear:
                for x in range(il[0], il[1] + 1):
                    weight[x] = w * h / points
    ldg = stg = ro = instr = lds = sts = 0.0
    plain = div = 0
    for x in range(klo, khi + 1):
        a, t = body[x]
        w = weight[x] / uk
        instr += w
        op = re.sub(r'^@!?U?P\d\s+', '', t).split()[0]
        if op.startswith('LDG'):
            ldg += w
            if '.CONSTANT' in op:
                ro += w
            else:
                plain += 1
        elif op.startswith('STG'):
            stg += w
        elif op.startswith('LDS'):
            lds += w
        elif op.startswith('STS'):
            sts += w
        if re.match(r'I2F\S*\.RP\b', op):
            div += 1
        m = re.match(r'CALL\S*\s+(0x[0-9a-f]+)', re.sub(r'^@!?U?P\d\s+', '', t))
        if m and int(m.group(1), 16) in divsubs:
            div += 1
    return ldg, stg, ro, plain, div, instr, kind, lds, sts


def main():
    label, cu, sass, occfile = sys.argv[1:5]
    src = source_kernels(cu)
    occ = {}
    for line in open(occfile):
        f = line.split()
        # NAME sm_XX REGS registers SMEM B shared WARPS warps/SM occupancy PCT%
        if len(f) >= 11:
            occ[(f[0], f[1])] = (int(f[2]), int(f[4]), int(f[10].rstrip('%')))
    spill = {}
    for line in open(occfile + '.spill'):
        f = line.split()
        spill[(f[0], f[1])] = int(f[4])
    arch = re.search(r'sm_\d+', sass).group(0)
    code = functions(sass)
    for mangled in sorted(code, key=demangle):
        name = demangle(mangled)
        m = re.match(r'gt_([ska])(\d+)_(\w+?)(<|$)', name)
        body = 'gt_b%s_%s' % (m.group(2), m.group(3)) if m else None
        tiles, block, rw, alt = src.get(body, ([], (32, 8), False, False))
        # gt_aN runs the in-place calls: an output is the storage of a field it reads
        rw = rw or (m is not None and m.group(1) == 'a')
        ldg, stg, ro, plain, div, instr, kind, lds, sts = analyse(code[mangled], tiles, block)
        if alt and kind == 'k':
            kind = 'alt'
        regs, smem, pct = occ.get((name, arch), (-1, -1, -1))
        print('%-22s %-28s %s %3d %4d %6d %3d %6.2f %5.2f %5.2f %3d %2d %4d %d %s' % (
            label, name, arch, regs, spill.get((name, arch), -1), smem, pct, ldg, stg, ro,
            0 if rw else plain, div, round(instr), 1 if rw else 0, kind)
            + ' %6.2f %6.2f' % (lds, sts))


if __name__ == '__main__':
    main()
