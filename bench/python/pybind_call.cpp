// bench/python/pybind_call.cpp: the floor of a GT4Py-style call for bench/python/bench.py. GT4Py's
// C++ backends (gt:cpu_ifirst, gt:cpu_kfirst, gt:gpu) bind each stencil with pybind11; its
// entry takes every field as a py::buffer, requests the buffer's description (pointer,
// shape, strides) and makes a strided view of it, then runs the computation. This module
// does exactly that for three fields and runs nothing: what a pybind11 call of a 3-field
// stencil costs before any work (GT4Py's Python-side argument checks, which its
// `validate_args` option turns off, come on top). Built only by `make bench`, with pybind11
// from PyPI in the bench's venv.
#include <cstdint>
#include <pybind11/pybind11.h>

namespace py = pybind11;

namespace {
struct View {
    void *data;
    std::int64_t shape[3], strides[3];
};

View view_of(py::buffer b)
{
    py::buffer_info info = b.request(true);
    View v{info.ptr, {1, 1, 1}, {0, 0, 0}};
    for (py::ssize_t d = 0; d < info.ndim && d < 3; d++) {
        v.shape[d] = info.shape[d];
        v.strides[d] = info.strides[d] / info.itemsize;
    }
    return v;
}
}  // namespace

PYBIND11_MODULE(pybind_call, m)
{
    m.def("run_computation", [](py::buffer a, py::buffer b, py::buffer c) {
        View va = view_of(a), vb = view_of(b), vc = view_of(c);
        return va.shape[0] + vb.shape[1] + vc.shape[2];   // used, so nothing is optimised away
    });
}
