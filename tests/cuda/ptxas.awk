# tests/cuda/ptxas.awk: nvcc -Xptxas -v output to lines "KERNEL ARCH REGISTERS SHARED SPILL"
# (KERNEL demangled as gt_s0_X or gt_kN_X<int32_t>/<int64_t>, SPILL the spill store and
# load bytes); used by tests/cuda/resources.sh and tools/cuda_report.sh.
/Compiling entry function/ {
    s = $0; sub(/.*function .\_Z/, "", s); sub(/^L/, "", s)
    n = s + 0; sub(/^[0-9]+/, "", s); kernel = substr(s, 1, n)
    # the index type of a kernel template: gt_kN<int32_t> or <int64_t>
    rest = substr(s, n + 1)
    if (rest ~ /^IiE/) kernel = kernel "<int32_t>"
    if (rest ~ /^IlE/) kernel = kernel "<int64_t>"
    arch = $0; sub(/.*for ./, "", arch); sub(/.$/, "", arch)
}
/bytes spill stores/ { spill = $5 + $9 }
/Used [0-9]+ registers/ {
    regs = $0; sub(/.*Used /, "", regs); regs += 0
    smem = 0
    if ($0 ~ /bytes smem/) { smem = $0; sub(/ bytes smem.*/, "", smem); sub(/.*, /, "", smem) }
    print kernel, arch, regs, smem + 0, spill
}
