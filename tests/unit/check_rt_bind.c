/* check_rt_bind.c: gt__bind, the argument check and binding shared by every backend's
 * generated code (runtime.md section 3): binding by axis name (a KJI storage for an IJK
 * field), domain inference (first output; axes it lacks from other fields; 1 along axes no
 * field has), explicit domains, and every error code with its message: GT_EINVAL, GT_EDTYPE,
 * GT_EAXES, GT_ESHAPE, GT_EHALO (lower and upper side), GT_EALIAS (outputs with inputs read
 * at an offset, two outputs, views, wrapped buffers, shifted views). */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "rt.h"
#include "rt_check.h"

/* hdiff(u, coeff, out_u): u read at offsets with halo 2 in I and J */
static const gt_field_info hdiff_fields[3] = {
    {"u", "IJK", GT_FLOAT64, 0, {{2, 2}, {2, 2}, {0, 0}}},
    {"coeff", "IJK", GT_FLOAT64, 0, {{0, 0}, {0, 0}, {0, 0}}},
    {"out_u", "IJK", GT_FLOAT64, 1, {{0, 0}, {0, 0}, {0, 0}}},
};
static const gt_stencil_info hdiff = {"hdiff", 3, hdiff_fields};
static const unsigned char hdiff_offsets[3] = {1, 0, 0};

/* A storage with the given axes, interior (by axis name) and halo h (same along I and J). */
static gt_storage *field(gt_dtype t, const char *axes, const int64_t *interior, int64_t h,
                         const char *preset)
{
    gt_storage_opts o = {0};
    int64_t shape[3];
    for (int d = 0; d < (int)strlen(axes); d++) {
        int a = axes[d] - 'I';
        int64_t hh = a < 2 ? h : 0;
        o.halo[d][0] = o.halo[d][1] = hh;
        shape[d] = interior[a] + 2 * hh;
    }
    o.defaults = preset;
    gt_storage *s = gt_zeros(t, axes, shape, &o);
    ck_assert_msg(s != NULL, "%s", gt_last_error());
    return s;
}

static const int64_t N[3] = {10, 12, 5};

START_TEST(bind_ok)
{
    gt_storage *u = field(GT_FLOAT64, "IJK", N, 2, "C");
    gt_storage *coeff = field(GT_FLOAT64, "KJI", N, 0, "cpu"); /* other axis order */
    gt_storage *out = field(GT_FLOAT64, "IJK", N, 1, "F");
    gt_storage *args[3] = {u, coeff, out};
    int64_t size[3] = {-1, -1, -1};
    gt_bound b[3];
    ck_assert_msg(gt__bind(&hdiff, hdiff_offsets, args, NULL, size, b) == 0, "%s",
                  gt_last_error());
    ck_assert_int_eq(size[0], 10);
    ck_assert_int_eq(size[1], 12);
    ck_assert_int_eq(size[2], 5);
    /* u: C order, halo 2: origin at (2,2,0) */
    const int64_t *su = gt_strides(u);
    ck_assert_ptr_eq(b[0].origin, (double *)gt_host(u, GT_READ) + 2 * su[0] + 2 * su[1]);
    ck_assert_int_eq(b[0].stride[0], su[0]);
    ck_assert_int_eq(b[0].stride[2], 1);
    /* coeff: axes KJI; strides reported by name */
    const int64_t *sc = gt_strides(coeff);
    ck_assert_int_eq(b[1].stride[0], sc[2]);
    ck_assert_int_eq(b[1].stride[1], sc[1]);
    ck_assert_int_eq(b[1].stride[2], sc[0]);
    ck_assert_int_eq(b[1].stride[0], 1); /* cpu: I contiguous */
    ck_assert_ptr_eq(b[1].origin, gt_host(coeff, GT_READ));
    const int64_t *so = gt_strides(out);
    ck_assert_ptr_eq(b[2].origin, (double *)gt_host(out, GT_READ) + so[0] + so[1]);
    /* an explicit domain smaller than the interiors */
    gt_domain dom = {{4, 3, 2}};
    ck_assert_int_eq(gt__bind(&hdiff, hdiff_offsets, args, &dom, size, b), 0);
    ck_assert_int_eq(size[0], 4);
    ck_assert_int_eq(size[2], 2);
    gt_release(u);
    gt_release(coeff);
    gt_release(out);
}
END_TEST

START_TEST(bind_domain_inference)
{
    /* out is IJ: K comes from the first field that has K; a stencil over I only gets 1s */
    static const gt_field_info f[3] = {
        {"a", "K", GT_FLOAT32, 0, {{0, 0}, {0, 0}, {1, 1}}},
        {"b", "IJK", GT_FLOAT32, 0, {{0, 0}, {0, 0}, {0, 0}}},
        {"o", "JI", GT_FLOAT32, 1, {{0, 0}, {0, 0}, {0, 0}}},
    };
    static const gt_stencil_info info = {"colsum", 3, f};
    int64_t na[3] = {1, 1, 9}, nb[3] = {4, 6, 7}, no[3] = {4, 6, 1};
    gt_storage *a = field(GT_FLOAT32, "K", na, 0, NULL);
    gt_storage_opts ko = {0};
    ko.halo[0][0] = ko.halo[0][1] = 1;
    int64_t kshape[1] = {9};
    gt_storage *ak = gt_zeros(GT_FLOAT32, "K", kshape, &ko); /* interior 7, halo 1 */
    gt_storage *b = field(GT_FLOAT32, "IJK", nb, 0, NULL);
    gt_storage *o = field(GT_FLOAT32, "JI", no, 0, NULL);
    gt_storage *args[3] = {ak, b, o};
    int64_t size[3];
    gt_bound bd[3];
    ck_assert_msg(gt__bind(&info, NULL, args, NULL, size, bd) == 0, "%s", gt_last_error());
    ck_assert_int_eq(size[0], 4);
    ck_assert_int_eq(size[1], 6);
    ck_assert_int_eq(size[2], 7); /* from a, the first field with K */
    ck_assert_int_eq(bd[2].stride[2], 0); /* o lacks K */
    ck_assert_int_eq(bd[0].stride[0], 0);
    args[0] = a; /* a's interior 9 with no halo: K needs [1,1] */
    ck_assert_int_eq(gt__bind(&info, NULL, args, NULL, size, bd), GT_EHALO);
    ck_assert_error(GT_EHALO, "stencil 'colsum': field 'a': halo along K is [0,0] but the "
                              "stencil needs [1,1]");
    static const gt_field_info fi[1] = {{"x", "I", GT_INT32, 1, {{0, 0}, {0, 0}, {0, 0}}}};
    static const gt_stencil_info only_i = {"only_i", 1, fi};
    int64_t ni[3] = {8, 1, 1};
    gt_storage *x = field(GT_INT32, "I", ni, 0, NULL);
    gt_storage *xa[1] = {x};
    ck_assert_int_eq(gt__bind(&only_i, NULL, xa, NULL, size, bd), 0);
    ck_assert_int_eq(size[0], 8);
    ck_assert_int_eq(size[1], 1);
    ck_assert_int_eq(size[2], 1);
    gt_domain dom = {{3, 5, 0}}; /* along axes no field has: 1, or 0 for an empty domain */
    ck_assert_int_eq(gt__bind(&only_i, NULL, xa, &dom, size, bd), 0);
    ck_assert_int_eq(size[0], 3);
    ck_assert_int_eq(size[1], 1);
    ck_assert_int_eq(size[2], 0);
    /* no output at all: the first field gives the domain */
    static const gt_field_info fin[1] = {{"x", "I", GT_INT32, 0, {{0, 0}, {0, 0}, {0, 0}}}};
    static const gt_stencil_info in_only = {"in_only", 1, fin};
    ck_assert_int_eq(gt__bind(&in_only, NULL, xa, NULL, size, bd), 0);
    ck_assert_int_eq(size[0], 8);
    static const gt_stencil_info nothing = {"nothing", 0, NULL};
    ck_assert_int_eq(gt__bind(&nothing, NULL, NULL, NULL, size, NULL), 0);
    ck_assert_int_eq(size[0] * size[1] * size[2], 1);
    gt_release(x);
    gt_release(a);
    gt_release(ak);
    gt_release(b);
    gt_release(o);
}
END_TEST

START_TEST(bind_einval)
{
    gt_storage *u = field(GT_FLOAT64, "IJK", N, 2, NULL);
    gt_storage *out = field(GT_FLOAT64, "IJK", N, 0, NULL);
    gt_storage *args[3] = {u, NULL, out};
    int64_t size[3] = {0, 0, 0};
    gt_bound b[3];
    memset(b, 0, sizeof b);
    ck_assert_int_eq(gt__bind(&hdiff, hdiff_offsets, args, NULL, size, b), GT_EINVAL);
    ck_assert_error(GT_EINVAL, "stencil 'hdiff': field 'coeff': storage is NULL");
    ck_assert_ptr_null(b[0].origin); /* nothing written on error */
    ck_assert_int_eq(size[0], 0);
    args[1] = u;
    gt_domain neg = {{4, -1, 2}};
    ck_assert_int_eq(gt__bind(&hdiff, hdiff_offsets, args, &neg, size, b), GT_EINVAL);
    ck_assert_error(GT_EINVAL, "stencil 'hdiff': domain size along J is -1");
    ck_assert_int_eq(gt__bind(NULL, NULL, args, NULL, size, b), GT_EINVAL);
    ck_assert_int_eq(gt__bind(&hdiff, hdiff_offsets, NULL, NULL, size, b), GT_EINVAL);
    ck_assert_error(GT_EINVAL, "stencil 'hdiff': invalid call");
    ck_assert_int_eq(gt__bind(&hdiff, hdiff_offsets, args, NULL, NULL, b), GT_EINVAL);
    ck_assert_int_eq(gt__bind(&hdiff, hdiff_offsets, args, NULL, size, NULL), GT_EINVAL);
    static const gt_field_info bad_axes[1] = {{"q", "IJX", GT_FLOAT64, 1, {{0}}}};
    static const gt_stencil_info bad = {"bad", 1, bad_axes};
    ck_assert_int_eq(gt__bind(&bad, NULL, args, NULL, size, b), GT_EINVAL);
    ck_assert_error(GT_EINVAL, "stencil 'bad': field 'q': invalid field axes \"IJX\"");
    static const gt_stencil_info negative = {"neg", -1, hdiff_fields};
    ck_assert_int_eq(gt__bind(&negative, NULL, args, NULL, size, b), GT_EINVAL);
    gt_release(u);
    gt_release(out);
}
END_TEST

START_TEST(bind_edtype_eaxes)
{
    gt_storage *u = field(GT_FLOAT64, "IJK", N, 2, NULL);
    gt_storage *f32 = field(GT_FLOAT32, "IJK", N, 0, NULL);
    gt_storage *ij = field(GT_FLOAT64, "IJ", N, 0, NULL);
    gt_storage *out = field(GT_FLOAT64, "IJK", N, 0, NULL);
    gt_storage *args[3] = {u, f32, out};
    int64_t size[3];
    gt_bound b[3];
    ck_assert_int_eq(gt__bind(&hdiff, hdiff_offsets, args, NULL, size, b), GT_EDTYPE);
    ck_assert_error(GT_EDTYPE, "stencil 'hdiff': field 'coeff' is float64 but the storage is "
                               "float32");
    args[1] = ij;
    ck_assert_int_eq(gt__bind(&hdiff, hdiff_offsets, args, NULL, size, b), GT_EAXES);
    ck_assert_error(GT_EAXES, "stencil 'hdiff': field 'coeff' has axes IJK but the storage has "
                              "axes IJ");
    static const gt_field_info f2[1] = {{"p", "IJ", GT_FLOAT64, 1, {{0}}}};
    static const gt_stencil_info s2 = {"plane", 1, f2};
    args[0] = out; /* an IJK storage for an IJ field */
    ck_assert_int_eq(gt__bind(&s2, NULL, args, NULL, size, b), GT_EAXES);
    args[0] = ij;
    ck_assert_int_eq(gt__bind(&s2, NULL, args, NULL, size, b), 0);
    gt_release(u);
    gt_release(f32);
    gt_release(ij);
    gt_release(out);
}
END_TEST

START_TEST(bind_eshape_ehalo)
{
    int64_t small[3] = {10, 11, 5};
    gt_storage *u = field(GT_FLOAT64, "IJK", N, 2, NULL);
    gt_storage *u1 = field(GT_FLOAT64, "IJK", N, 1, NULL);
    gt_storage *cs = field(GT_FLOAT64, "IJK", small, 0, NULL);
    gt_storage *coeff = field(GT_FLOAT64, "IJK", N, 0, NULL);
    gt_storage *out = field(GT_FLOAT64, "IJK", N, 0, NULL);
    gt_storage *args[3] = {u, cs, out};
    int64_t size[3];
    gt_bound b[3];
    ck_assert_int_eq(gt__bind(&hdiff, hdiff_offsets, args, NULL, size, b), GT_ESHAPE);
    ck_assert_error(GT_ESHAPE, "stencil 'hdiff': field 'coeff': the domain is 12 along J but the "
                               "storage's interior is 11 (shape 11, halo [0,0])");
    args[1] = coeff;
    gt_domain big = {{10, 12, 6}};
    ck_assert_int_eq(gt__bind(&hdiff, hdiff_offsets, args, &big, size, b), GT_ESHAPE);
    ck_assert_error(GT_ESHAPE, "field 'u': the domain is 6 along K");
    args[0] = u1;
    ck_assert_int_eq(gt__bind(&hdiff, hdiff_offsets, args, NULL, size, b), GT_EHALO);
    ck_assert_error(GT_EHALO, "stencil 'hdiff': field 'u': halo along I is [1,1] but the stencil "
                              "needs [2,2]");
    /* the upper side counts the room beyond the domain: a smaller domain leaves more */
    static const gt_field_info up[2] = {
        {"v", "IJK", GT_FLOAT64, 0, {{0, 0}, {0, 3}, {0, 0}}},
        {"w", "IJK", GT_FLOAT64, 1, {{0, 0}, {0, 0}, {0, 0}}},
    };
    static const gt_stencil_info upper = {"upper", 2, up};
    gt_storage *ua[2] = {coeff, out};
    ck_assert_int_eq(gt__bind(&upper, NULL, ua, NULL, size, b), GT_EHALO);
    ck_assert_error(GT_EHALO, "stencil 'upper': field 'v': halo along J is [0,0] but the stencil "
                              "needs [0,3]");
    gt_domain less = {{10, 9, 5}};
    ck_assert_int_eq(gt__bind(&upper, NULL, ua, &less, size, b), 0);
    gt_domain almost = {{10, 10, 5}};
    ck_assert_int_eq(gt__bind(&upper, NULL, ua, &almost, size, b), GT_EHALO);
    ck_assert_error(GT_EHALO, "halo along J is [0,2] but the stencil needs [0,3]");
    gt_release(u);
    gt_release(u1);
    gt_release(cs);
    gt_release(coeff);
    gt_release(out);
}
END_TEST

START_TEST(bind_ealias)
{
    gt_storage *u = field(GT_FLOAT64, "IJK", N, 2, NULL);
    gt_storage *coeff = field(GT_FLOAT64, "IJK", N, 0, NULL);
    gt_storage *args[3] = {u, coeff, u};
    int64_t size[3];
    gt_bound b[3];
    /* the output is the input read at offsets */
    ck_assert_int_eq(gt__bind(&hdiff, hdiff_offsets, args, NULL, size, b), GT_EALIAS);
    ck_assert_error(GT_EALIAS, "stencil 'hdiff': output 'out_u' shares memory with field 'u', "
                               "which the stencil reads at an offset");
    /* a view of it */
    gt_storage *v = gt_domain_view(u);
    args[2] = v;
    ck_assert_int_eq(gt__bind(&hdiff, hdiff_offsets, args, NULL, size, b), GT_EALIAS);
    /* the output is an input read at offset 0 only: in place is fine */
    gt_storage *c2 = field(GT_FLOAT64, "IJK", N, 2, NULL);
    args[0] = c2;
    args[1] = u;
    args[2] = u;
    ck_assert_int_eq(gt__bind(&hdiff, hdiff_offsets, args, NULL, size, b), 0);
    args[2] = v; /* the domain view binds the same points as u: fine too */
    ck_assert_int_eq(gt__bind(&hdiff, hdiff_offsets, args, NULL, size, b), 0);
    /* ... but a shifted view of the same memory is not */
    gt_storage_opts o = {0};
    o.halo[0][0] = 3, o.halo[0][1] = 1; /* shifts the first interior point by one along I */
    o.halo[1][0] = o.halo[1][1] = 2;
    static double buf[14 * 16 * 5 + 100];
    int64_t shape[3] = {14, 16, 5};
    gt_storage *w1 = gt_wrap(buf, GT_FLOAT64, "IJK", shape, NULL, &o);
    o.halo[0][0] = 2, o.halo[0][1] = 2;
    gt_storage *w2 = gt_wrap(buf, GT_FLOAT64, "IJK", shape, NULL, &o);
    args[1] = w1;
    args[2] = w2;
    ck_assert_int_eq(gt__bind(&hdiff, hdiff_offsets, args, NULL, size, b), GT_EALIAS);
    ck_assert_error(GT_EALIAS, "output 'out_u' shares memory with field 'coeff' at other "
                               "positions");
    /* overlapping byte ranges of two wrapped buffers */
    gt_storage *w3 = gt_wrap(buf + 100, GT_FLOAT64, "IJK", shape, NULL, &o);
    args[0] = w3;
    args[1] = coeff;
    ck_assert_int_eq(gt__bind(&hdiff, hdiff_offsets, args, NULL, size, b), GT_EALIAS);
    /* without read_at_offset every input counts as read at an offset */
    args[0] = c2;
    args[1] = u;
    args[2] = u;
    ck_assert_int_eq(gt__bind(&hdiff, NULL, args, NULL, size, b), GT_EALIAS);
    /* two outputs sharing memory */
    static const gt_field_info two[2] = {
        {"o1", "IJK", GT_FLOAT64, 1, {{0}}},
        {"o2", "IJK", GT_FLOAT64, 1, {{0}}},
    };
    static const gt_stencil_info twice = {"twice", 2, two};
    gt_storage *oo[2] = {u, v};
    ck_assert_int_eq(gt__bind(&twice, NULL, oo, NULL, size, b), GT_EALIAS);
    ck_assert_error(GT_EALIAS, "stencil 'twice': outputs 'o1' and 'o2' share memory");
    oo[1] = c2;
    ck_assert_int_eq(gt__bind(&twice, NULL, oo, NULL, size, b), 0);
    gt_release(w1);
    gt_release(w2);
    gt_release(w3);
    gt_release(v);
    gt_release(c2);
    gt_release(u);
    gt_release(coeff);
}
END_TEST

/* gt__index32: 32-bit kernel indices when every buffer and the domain hold fewer elements
   than the limit (2^29, or the test hook's). A gt_wrap of 2^29 doubles is never touched, so
   a small array stands in for it. */
START_TEST(index32_limits)
{
    gt_storage_opts o = {0};
    int64_t shape[3] = {10, 10, 1};
    gt_storage *a = gt_empty(GT_FLOAT64, "IJK", shape, &o); /* 100 elements */
    shape[1] = 9;
    gt_storage *b = gt_empty(GT_FLOAT32, "IJK", shape, &o); /* 90 elements */
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    gt_storage *both[3] = {a, NULL, b};
    const int64_t small[3] = {10, 10, 1}, big[3] = {1, (int64_t)1 << 29, 1};
    const int64_t almost[3] = {1, ((int64_t)1 << 29) - 1, 1};
    ck_assert_int_eq(gt__index32(both, 3, small), 1);
    ck_assert_int_eq(gt__index32(both, 0, almost), 1);
    ck_assert_int_eq(gt__index32(both, 0, big), 0);
    const int64_t negative[3] = {-1, 1, 1};
    ck_assert_int_eq(gt__index32(both, 0, negative), 0);
    /* the limit counts elements, not bytes: a holds 100, b 90 (and 360 bytes) */
    gt__set_index32_limit(100);
    ck_assert_int_eq(gt__index32(both + 1, 2, small), 1); /* b only: 90 < 100 */
    ck_assert_int_eq(gt__index32(both, 3, small), 0);                          /* a: 100 */
    gt__set_index32_limit(101);
    ck_assert_int_eq(gt__index32(both, 3, small), 1);
    gt__set_index32_limit(0);
    ck_assert_int_eq(gt__index32(NULL, 0, small), 0);
    gt__set_index32_limit(-1); /* the default again */
    ck_assert_int_eq(gt__index32(both, 3, small), 1);
    ck_assert_int_eq(gt__index32(both, 0, big), 0);
    gt_release(a);
    gt_release(b);
}
END_TEST

/* GT_EHALO of a field with a boundary condition says what a distributed run needs of its
   storage along I and J (its reach there, which one process does not need); the message of
   a field without one, whose need is the same under MPI, is as it was. */
START_TEST(bind_ehalo_distributed)
{
    /* u: neumann along I (reach 2, halo 0), read at j-1 and j+1 (halo 1); v: none; w: IK,
       mirror along I (reach [1,3]), read 2 levels below along K */
    static const gt_field_info f[4] = {
        {"u", "IJK", GT_FLOAT64, 0, {{0, 0}, {1, 1}, {0, 0}}, {{2, 2}, {1, 1}, {0, 0}},
         {1 + GT_BC_NEUMANN, 0, 0}},
        {"v", "IJK", GT_FLOAT64, 0, {{0, 0}, {0, 1}, {0, 0}}, {{0, 0}, {0, 1}, {0, 0}},
         {0, 0, 0}},
        {"w", "IK", GT_FLOAT64, 0, {{0, 0}, {0, 0}, {2, 0}}, {{1, 3}, {0, 0}, {2, 0}},
         {1 + GT_BC_MIRROR, 0, 0}},
        {"o", "IJK", GT_FLOAT64, 1, {{0, 0}, {0, 0}, {0, 0}}, {{0, 0}, {0, 0}, {0, 0}},
         {0, 0, 0}},
    };
    static const gt_stencil_info info = {"bcs", 4, f};
    gt_storage *u0 = field(GT_FLOAT64, "IJK", N, 0, NULL);
    gt_storage *u1 = field(GT_FLOAT64, "IJK", N, 1, NULL);
    gt_storage *w0 = field(GT_FLOAT64, "IK", N, 0, NULL);
    gt_storage_opts ko = {0};
    ko.halo[1][0] = 2;
    gt_storage *w2 = gt_zeros(GT_FLOAT64, "IK", (const int64_t[2]){N[0], N[2] + 2}, &ko);
    gt_storage *out = field(GT_FLOAT64, "IJK", N, 0, NULL);
    gt_storage *args[4] = {u0, u1, w2, out};
    int64_t size[3];
    gt_bound b[4];
    ck_assert_int_eq(gt__bind(&info, NULL, args, NULL, size, b), GT_EHALO);
    ck_assert_error(GT_EHALO, "stencil 'bcs': field 'u': halo along J is [0,0] but the stencil "
                              "needs [1,1]; a distributed run needs [2,2] along I and [1,1] "
                              "along J (gt_mpi_halo)");
    args[0] = u1;
    args[1] = u0;
    ck_assert_int_eq(gt__bind(&info, NULL, args, NULL, size, b), GT_EHALO);
    ck_assert_error(GT_EHALO, "stencil 'bcs': field 'v': halo along J is [0,0] but the stencil "
                              "needs [0,1]");
    ck_assert_ptr_null(strstr(gt_last_error(), "distributed"));
    args[1] = u1;
    args[2] = w0;
    ck_assert_int_eq(gt__bind(&info, NULL, args, NULL, size, b), GT_EHALO);
    ck_assert_error(GT_EHALO, "stencil 'bcs': field 'w': halo along K is [0,0] but the stencil "
                              "needs [2,0]; a distributed run needs [1,3] along I (gt_mpi_halo)");
    args[2] = w2;
    ck_assert_msg(gt__bind(&info, NULL, args, NULL, size, b) == 0, "%s", gt_last_error());
    gt_release(u0);
    gt_release(u1);
    gt_release(w0);
    gt_release(w2);
    gt_release(out);
}
END_TEST

/* Wrapped views of one array whose byte ranges intersect but whose elements do not (a
   NumPy array's components q[..., 0] and q[..., 1], a C-ordered array's lower and upper
   levels) share no memory: an output may be one while an input read at offsets is the
   other. Views whose elements meet still do. */
START_TEST(bind_disjoint_views)
{
    static double q[10 * 12 * 5 * 3];
    static const gt_field_info lap_fields[2] = {
        {"u", "IJK", GT_FLOAT64, 0, {{1, 1}, {1, 1}, {0, 0}}},
        {"r", "IJK", GT_FLOAT64, 1, {{0, 0}, {0, 0}, {0, 0}}},
    };
    static const gt_stencil_info lap = {"lap", 2, lap_fields};
    static const unsigned char lap_offsets[2] = {1, 0};
    int64_t shape[3] = {10, 12, 5}, size[3];
    gt_bound b[2];
    gt_storage_opts o = {0};
    o.halo[0][0] = o.halo[0][1] = o.halo[1][0] = o.halo[1][1] = 1;
    /* q of shape (10, 12, 5, 3) in C order: component c at q + c, strides (180, 15, 3) */
    int64_t comp[3] = {12 * 5 * 3, 5 * 3, 3};
    gt_storage *c0 = gt_wrap(q, GT_FLOAT64, "IJK", shape, comp, &o);
    gt_storage *c1 = gt_wrap(q + 1, GT_FLOAT64, "IJK", shape, comp, &o);
    gt_storage *c2 = gt_wrap(q + 2, GT_FLOAT64, "IJK", shape, comp, &o);
    gt_storage *c3 = gt_wrap(q + 3, GT_FLOAT64, "IJK", shape, comp, &o); /* c0 one K on */
    ck_assert(c0 && c1 && c2 && c3);
    gt_storage *args[2] = {c0, c1};
    ck_assert_msg(gt__bind(&lap, lap_offsets, args, NULL, size, b) == 0, "%s", gt_last_error());
    args[0] = c2;
    ck_assert_msg(gt__bind(&lap, lap_offsets, args, NULL, size, b) == 0, "%s", gt_last_error());
    args[0] = c0;
    args[1] = c3;
    ck_assert_int_eq(gt__bind(&lap, lap_offsets, args, NULL, size, b), GT_EALIAS);
    ck_assert_error(GT_EALIAS, "stencil 'lap': output 'r' shares memory with field 'u', which "
                               "the stencil reads at an offset");
    /* the lower and upper halves along K of a C-ordered (10, 12, 10) array */
    int64_t dense[3] = {12 * 10, 10, 1};
    gt_storage *lo = gt_wrap(q, GT_FLOAT64, "IJK", shape, dense, &o);
    gt_storage *hi = gt_wrap(q + 5, GT_FLOAT64, "IJK", shape, dense, &o);
    gt_storage *mid = gt_wrap(q + 4, GT_FLOAT64, "IJK", shape, dense, &o); /* meets lo */
    args[0] = lo;
    args[1] = hi;
    ck_assert_msg(gt__bind(&lap, lap_offsets, args, NULL, size, b) == 0, "%s", gt_last_error());
    args[1] = mid;
    ck_assert_int_eq(gt__bind(&lap, lap_offsets, args, NULL, size, b), GT_EALIAS);
    /* against every pair of elements: small shapes, strides of other views and offsets */
    gt_storage_opts none = {0};
    int64_t sh[3][3] = {{3, 2, 2}, {2, 3, 1}, {4, 1, 3}};
    int64_t st[4][3] = {{6, 3, 1}, {1, 4, 12}, {12, 2, 1}, {7, 2, 1}};
    for (int sa = 0; sa < 3; sa++)
        for (int sb = 0; sb < 3; sb++)
            for (int ta = 0; ta < 4; ta++)
                for (int tb = 0; tb < 4; tb++)
                    for (int off = 0; off < 30; off++) {
                        gt_storage *x = gt_wrap(q, GT_FLOAT64, "IJK", sh[sa], st[ta], &none);
                        gt_storage *y = gt_wrap(q + off, GT_FLOAT64, "IJK", sh[sb], st[tb],
                                                &none);
                        if (!x || !y) { /* strides that overlap for that shape */
                            gt_release(x);
                            gt_release(y);
                            continue;
                        }
                        int meet = 0;
                        for (int64_t i = 0; i < sh[sa][0] * sh[sa][1] * sh[sa][2]; i++)
                            for (int64_t j = 0; j < sh[sb][0] * sh[sb][1] * sh[sb][2]; j++) {
                                int64_t ea = i % sh[sa][0] * st[ta][0] +
                                             i / sh[sa][0] % sh[sa][1] * st[ta][1] +
                                             i / sh[sa][0] / sh[sa][1] * st[ta][2];
                                int64_t eb = off + j % sh[sb][0] * st[tb][0] +
                                             j / sh[sb][0] % sh[sb][1] * st[tb][1] +
                                             j / sh[sb][0] / sh[sb][1] * st[tb][2];
                                meet |= ea == eb;
                            }
                        ck_assert_msg(gt__overlap(x, y, 0) == meet,
                                      "shapes %d %d strides %d %d offset %d: %d, not %d", sa, sb,
                                      ta, tb, off, gt__overlap(x, y, 0), meet);
                        gt_release(x);
                        gt_release(y);
                    }
    gt_release(c0);
    gt_release(c1);
    gt_release(c2);
    gt_release(c3);
    gt_release(lo);
    gt_release(hi);
    gt_release(mid);
}
END_TEST

Suite *suite_rt_bind(void); /* collected by tests/unit/main.c */

Suite *suite_rt_bind(void)
{
    Suite *s = suite_create("rt_bind");
    TCase *t = tcase_create("bind");
    tcase_add_test(t, bind_ok);
    tcase_add_test(t, bind_domain_inference);
    tcase_add_test(t, bind_einval);
    tcase_add_test(t, bind_edtype_eaxes);
    tcase_add_test(t, bind_eshape_ehalo);
    tcase_add_test(t, bind_ealias);
    tcase_add_test(t, bind_disjoint_views);
    tcase_add_test(t, bind_ehalo_distributed);
    tcase_add_test(t, index32_limits);
    suite_add_tcase(s, t);
    return s;
}
