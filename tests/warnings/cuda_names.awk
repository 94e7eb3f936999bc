# tests/warnings/cuda_names.awk -v chunk=C -v rot=R: one stencil of the cuda backend
# whose fields, scalars and temporaries are named by the names on stdin, one a line:
# name x is a field, a scalar or a temporary by (x + R) % 3 (0, 1, 2), so that the
# three stencils of R = 0, 1, 2 give each name each role. The body has a group of
# three-dimensional kernels (every temporary, the first three read at offsets: tiles),
# a kernel over I and J, a columnar forward computation and a reduction, each reading
# every scalar (a kernel takes them all as parameters).
{ name[n++] = $0 }
END {
    nf = ns = nt = 0
    for (x = 0; x < n; x++) {
        role = (x + rot) % 3
        if (role == 0) f[nf++] = name[x]
        else if (role == 1) s[ns++] = name[x]
        else t[nt++] = name[x]
    }
    scalars = ""
    for (x = 0; x < ns; x++) scalars = scalars " + " s[x]
    printf "stencil cuda_names_%s_%d(", chunk, rot
    for (x = 0; x < nf; x++) printf "field<double> %s, ", f[x]
    for (x = 0; x < ns; x++) printf "double %s, ", s[x]
    printf "field<double> res_, field<double> col_, field<double, IJ> flat_, out double total_) {\n"
    printf "  computation(parallel) interval(0, end) {\n"
    for (x = 0; x < nt; x++)
        printf "    double %s = %s + %s;\n", t[x], nf ? f[x % nf] : "1.0", ns ? s[x % ns] : "1.0"
    printf "    res_ = 0.0"
    for (x = 0; x < nt; x++)
        printf " + %s%s", t[x], x == 0 ? "[i+1]" : x == 1 ? "[j-1]" : x == 2 ? "[i-1, j+1]" : ""
    printf ";\n  }\n"
    printf "  computation(parallel) interval(0, 1) { flat_ = 0.0%s; }\n", scalars
    printf "  computation(forward) {\n    interval(0, 1) { col_ = res_; }\n"
    printf "    interval(1, end) { col_ = col_[k-1] * 0.5%s; }\n  }\n", scalars
    printf "  computation(parallel) interval(0, end) { total_ = sum(col_%s); }\n}\n", scalars
}
