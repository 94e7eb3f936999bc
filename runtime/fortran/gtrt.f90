! gtrt.f90: the Fortran module of libgtrt (docs/fortran.md), which the modules that
! `gtcc --emit=fortran` writes use: the error codes and dtypes as named constants, the
! last error's text, and gtrt_wrap, a storage over any Fortran array of kind c_float,
! c_double, c_int32_t or c_bool and rank 1 to 3 (sections and any lower bounds included;
! no copy): its strides come from element addresses, in bytes, its halo from the caller,
! and runtime/src/flat.c's gt_wrap_flat makes the storage. Portable Fortran 2003 with
! iso_c_binding (no compiler's array descriptor), but for Fortran 2008's error stop. Installed as source with the runtime
! (module files are compiler-specific): compile it with the program's compiler,
! `gfortran -c $(pkg-config --variable=gtrt_source gtrt-fortran)`, and link with
! `pkg-config --libs gtrt-fortran` (docs/fortran.md). The 12 gtrt_wrap_<kind>_<rank>
! functions differ only in type and rank. Every procedure is recursive, as the generated
! wrappers are: locals per call, so that several threads may call them at once whatever the
! flags this is compiled with (docs/fortran.md, "Threads").
module gtrt
    use, intrinsic :: iso_c_binding, only: c_associated, c_bool, c_char, c_double, c_float, &
            c_f_pointer, c_funptr, c_int, c_int32_t, c_int64_t, c_intptr_t, c_loc, c_null_char, &
            c_null_ptr, c_ptr, c_size_t
    use, intrinsic :: iso_fortran_env, only: error_unit
    implicit none
    private

    ! error codes (gt/gt_error.h)
    integer(c_int), parameter, public :: GT_OK = 0, GT_EINVAL = -1, GT_ENOMEM = -2, &
            GT_EDTYPE = -3, GT_EAXES = -4, GT_ESHAPE = -5, GT_EHALO = -6, GT_EALIAS = -7, &
            GT_EDEVICE = -8, GT_EMPI = -9
    ! dtypes (gt/gt_storage.h)
    integer(c_int), parameter, public :: GT_FLOAT32 = 0, GT_FLOAT64 = 1, GT_INT32 = 2, &
            GT_BOOL = 3

    public :: gtrt_wrap, gtrt_halo, gtrt_field_halo, gtrt_release, gtrt_finish, gtrt_mpi_call
    public :: gtrt_mpi_call_fn
    public :: gtrt_check_halo, gtrt_check_domain, gtrt_check_times, gtrt_check_size
    public :: gtrt_check_fit
    public :: gtrt_mpi_steps, gtrt_mpi_steps_fn, gtrt_mpi_steps_halo, gtrt_mpi_steps_halo_fn
    public :: gtrt_last_error, gtrt_get_last_error, gtrt_last_error_code, gtrt_strerror
    public :: gt_wrap_flat, gt_release

    interface
        ! int gt_wrap_flat(gt_storage **out, void *data, int dtype, const char *axes,
        !                  const int64_t *shape, const int64_t *byte_strides,
        !                  const int64_t *halo, const char *what)
        function gt_wrap_flat(s, data, dtype, axes, shape, byte_strides, halo, what) &
                result(rc) bind(C, name="gt_wrap_flat")
            import :: c_ptr, c_int, c_char, c_int64_t
            type(c_ptr), intent(out) :: s
            type(c_ptr), value :: data
            integer(c_int), value :: dtype
            character(kind=c_char), intent(in) :: axes(*)
            integer(c_int64_t), intent(in) :: shape(*), byte_strides(*), halo(*)
            character(kind=c_char), intent(in) :: what(*)
            integer(c_int) :: rc
        end function gt_wrap_flat
        ! void gt_release(gt_storage *)
        subroutine gt_release(s) bind(C, name="gt_release")
            import :: c_ptr
            type(c_ptr), value :: s
        end subroutine gt_release
        function c_last_error() result(p) bind(C, name="gt_last_error")
            import :: c_ptr
            type(c_ptr) :: p
        end function c_last_error
        function c_last_error_code() result(code) bind(C, name="gt_last_error_code")
            import :: c_int
            integer(c_int) :: code
        end function c_last_error_code
        function c_strerror(code) result(p) bind(C, name="gt_strerror")
            import :: c_ptr, c_int
            integer(c_int), value :: code
            type(c_ptr) :: p
        end function c_strerror
        function c_strlen(p) result(n) bind(C, name="strlen")
            import :: c_ptr, c_size_t
            type(c_ptr), value :: p
            integer(c_size_t) :: n
        end function c_strlen
    end interface

    ! The generated modules' distributed calls (S_mpi, S_steps_mpi, S_steps_mpi_halo) reach
    ! libgtrt-mpi's gt_mpi_call, gt_mpi_steps and gt_mpi_steps_halo through these pointers,
    ! which the module gtrt_mpi sets when it makes a decomposition (gtrt_decompose): a
    ! program without MPI links no MPI.
    abstract interface
        function gtrt_mpi_call_fn(d, storages, n, widths, call, ctx, overlap, times) &
                result(rc) bind(C)
            import :: c_ptr, c_funptr, c_int
            type(c_ptr), value :: d
            type(c_ptr), intent(in) :: storages(*)
            integer(c_int), value :: n
            type(c_ptr), value :: widths
            type(c_funptr), value :: call
            type(c_ptr), value :: ctx
            integer(c_int), value :: overlap
            type(c_ptr), value :: times
            integer(c_int) :: rc
        end function gtrt_mpi_call_fn
        function gtrt_mpi_steps_fn(d, info, storages, nsteps, tblock, step, ctx, times) &
                result(rc) bind(C)
            import :: c_ptr, c_funptr, c_int, c_int64_t
            type(c_ptr), value :: d, info
            type(c_ptr), intent(in) :: storages(*)
            integer(c_int64_t), value :: nsteps
            integer(c_int), value :: tblock
            type(c_funptr), value :: step
            type(c_ptr), value :: ctx, times
            integer(c_int) :: rc
        end function gtrt_mpi_steps_fn
        function gtrt_mpi_steps_halo_fn(info, field, axes, tblock, halo) result(rc) bind(C)
            import :: c_ptr, c_int, c_char, c_int64_t
            type(c_ptr), value :: info
            integer(c_int), value :: field
            character(kind=c_char), intent(in) :: axes(*)
            integer(c_int), value :: tblock
            integer(c_int64_t), intent(inout) :: halo(2, 3)
            integer(c_int) :: rc
        end function gtrt_mpi_steps_halo_fn
    end interface
    procedure(gtrt_mpi_call_fn), pointer, public :: gtrt_mpi_call_p => null()
    procedure(gtrt_mpi_steps_fn), pointer, public :: gtrt_mpi_steps_p => null()
    procedure(gtrt_mpi_steps_halo_fn), pointer, public :: gtrt_mpi_steps_halo_p => null()

    interface
        function gt_error_flat(code, msg) result(rc) bind(C, name="gt_error_flat")
            import :: c_int, c_char
            integer(c_int), value :: code
            character(kind=c_char), intent(in) :: msg(*)
            integer(c_int) :: rc
        end function gt_error_flat
    end interface

    ! gtrt_wrap(a, axes, halo, stencil, field, s): a storage over array a, whose axes are
    ! axes ('IJK', 'IJ', 'K', ...: a's dimensions in order, I first), halo(:, 1:3) the
    ! lower and upper halo along I, J and K (the columns of axes a lacks are not read);
    ! stencil and field name it in messages. Returns 0 with s the storage (release it with
    ! gtrt_release), or the error code with s null and the message for gtrt_last_error.
  interface gtrt_wrap
    module procedure gtrt_wrap_r4_1
    module procedure gtrt_wrap_r4_2
    module procedure gtrt_wrap_r4_3
    module procedure gtrt_wrap_r8_1
    module procedure gtrt_wrap_r8_2
    module procedure gtrt_wrap_r8_3
    module procedure gtrt_wrap_i4_1
    module procedure gtrt_wrap_i4_2
    module procedure gtrt_wrap_i4_3
    module procedure gtrt_wrap_l1_1
    module procedure gtrt_wrap_l1_2
    module procedure gtrt_wrap_l1_3
  end interface gtrt_wrap

contains

    ! the halo a wrapper passes for one field: its own (field_halo), else the one for every
    ! field (halo), else none; one not of shape (2, 3) is left out (gtrt_check_halo has
    ! refused it before)
    recursive function gtrt_halo(halo, field_halo) result(h)
        integer, intent(in), optional :: halo(:, :), field_halo(:, :)
        integer(c_int64_t) :: h(2, 3)
        h = 0
        if (present(halo)) call gtrt_field_halo(h, halo)
        if (present(field_halo)) call gtrt_field_halo(h, field_halo)
    end function gtrt_halo

    ! halo into h where its shape is (2, 3): the form the wrappers call, once for halo and
    ! once for NAME_halo, each only where present (an absent assumed-shape array passed on
    ! made gfortran -fsanitize=undefined stop: a member access within null, or an overflow
    ! of the garbage bounds of its descriptor)
    recursive subroutine gtrt_field_halo(h, halo, w, k)
        integer(c_int64_t), intent(inout) :: h(2, 3)
        integer, intent(in) :: halo(:, :)
        integer, intent(inout), optional :: w   ! k into w: which dummy gave the halo, for
        integer, intent(in), optional :: k      ! gtrt_check_fit's messages (1 halo, 2 NAME_halo)
        if (all(shape(halo) == [2, 3])) h = int(halo, c_int64_t)
        if (present(w) .and. present(k)) w = k
    end subroutine gtrt_field_halo

    ! A wrapper's check, before it wraps anything, that its arrays fit the call, in the
    ! caller's terms: its dummies' names, Fortran bounds (1-based, I the first dimension) and
    ! the halo dummy to pass, where the C call's own checks (gt__bind: the same conditions, in
    ! the same order) speak of storages and axes. Field f (1 to size(w)) is word f of names,
    ! its axes word f of axes ('IJK', 'IJ', 'K', ...: its dimensions in order), an output
    ! where outs(f:f) is 'o'; ext(d, f) its extent along dimension d; h(:, a, f) its halo
    ! along axis a (1 I, 2 J, 3 K), given by the dummy w(f) says (0 none, 1 word 1 of hnames,
    ! halo; 2 word 1 + f, its NAME_halo); need(:, a, f) the halo the stencil reads it with.
    ! The domain: dom where has_dom (from the dummy dname), else as gt__compute_domain takes
    ! it. With swap (S_steps with nsteps >= 2) the arrays are checked again in the roles
    ! they play from the second step on: field f's role taken by array perm(f).
    ! Where rc is 0 and an array does not fit: GT_EINVAL (a halo < 0 or larger than the
    ! array, a domain < 0), GT_ESHAPE (an interior smaller than the domain) or GT_EHALO.
    recursive subroutine gtrt_check_fit(rc, stencil, names, hnames, axes, outs, ext, h, w, &
                                        need, perm, swap, dname, has_dom, dom)
        integer(c_int), intent(inout) :: rc
        character(*), intent(in) :: stencil, names, hnames, axes, outs, dname
        integer(c_int64_t), intent(in) :: ext(:, :), h(:, :, :), dom(3)
        integer, intent(in) :: w(:), need(2, 3, *), perm(:)
        logical, intent(in) :: swap, has_dom
        integer(c_int64_t) :: n(3)
        integer :: nf, f, x, a, d, ref, pass
        integer :: src(3)   ! the field whose interior gives the domain along each axis (0: none)
        character(len=64) :: ax
        character(len=96) :: pre
        character(len=2048) :: m
        if (rc /= 0) return
        nf = size(w)
        pre = "stencil '" // stencil // "': "
        ! extents >= 0: a negative one is no array's, but the garbage of an allocatable not
        ! allocated or a pointer not associated, which -fcheck=all lets through to an
        ! assumed-shape dummy (it was "halo gives b a halo of 0 ... but size(b, 3) is -80...")
        do f = 1, nf
            do d = 1, len_trim(word(axes, f))
                if (ext(d, f) < 0) then
                    write (m, '(6a, i0, a, i0, 5a)') trim(pre) // ' ', 'argument ', &
                        trim(word(names, f)), ' has size(', trim(word(names, f)), ', ', d, &
                        ') = ', ext(d, f), ', which no array has: is it an allocatable not ', &
                        'allocated or a pointer not associated? allocate ', &
                        trim(word(names, f)), ' (or associate it) before the call'
                    rc = gt_error_flat(GT_EINVAL, trim(m) // c_null_char)
                    return
                end if
            end do
        end do
        ! halos: >= 0, and no more than the array along each dimension
        do f = 1, nf
            ax = word(axes, f)
            do d = 1, len_trim(ax)
                a = index('IJK', ax(d:d))
                if (h(1, a, f) < 0 .or. h(2, a, f) < 0) then
                    write (m, '(5a, i0, a, i0, 5a)') trim(pre) // ' ', trim(given(f)), ' gives ', &
                        trim(word(names, f)), &
                        ' a halo of ', h(1, a, f), ' below and ', h(2, a, f), &
                        ' above along dimension ', trim(dim_name(ax, d)), &
                        '; a halo is >= 0 (', trim(halo_arg(f)), ')'
                    rc = gt_error_flat(GT_EINVAL, trim(m) // c_null_char)
                    return
                end if
                if (h(1, a, f) + h(2, a, f) > ext(d, f)) then
                    write (m, '(5a, i0, a, i0, 3a, i0, 3a, i0, a)') trim(pre) // ' ', &
                        trim(given(f)), ' gives ', trim(word(names, f)), ' a halo of ', &
                        h(1, a, f), ' below and ', h(2, a, f), &
                        ' above along dimension ', trim(dim_name(ax, d)), ', ', &
                        h(1, a, f) + h(2, a, f), ' points, but size(', trim(word(names, f)), ', ', &
                        d, ')'
                    write (m, '(2a, i0)') trim(m), ' is ', ext(d, f)
                    rc = gt_error_flat(GT_EINVAL, trim(m) // c_null_char)
                    return
                end if
            end do
        end do
        ! the domain: dom, or the interior of the first output (the first field if none), along
        ! axes it lacks of the first field with the axis, 1 along axes no field has
        ref = 1
        do f = nf, 1, -1
            if (outs(f:f) == 'o') ref = f
        end do
        do a = 1, 3
            x = 0
            if (nf > 0) then
                if (index(word(axes, ref), 'IJK'(a:a)) > 0) x = ref
            end if
            do f = 1, nf
                if (x == 0 .and. index(word(axes, f), 'IJK'(a:a)) > 0) x = f
            end do
            src(a) = x
            if (has_dom) then
                if (dom(a) < 0) then
                    write (m, '(3a, i0, a, i0, 2a)') trim(pre) // ' ', dname, '(', a, ') is ', &
                        dom(a), &
                        '; it must be >= 0 (the size of the domain along ', 'IJK'(a:a) // ')'
                    rc = gt_error_flat(GT_EINVAL, trim(m) // c_null_char)
                    return
                end if
                n(a) = dom(a)
                if (x == 0 .and. dom(a) /= 0) n(a) = 1
            else if (x == 0) then
                n(a) = 1
            else
                d = index(word(axes, x), 'IJK'(a:a))
                n(a) = ext(d, x) - h(1, a, x) - h(2, a, x)
            end if
        end do
        do pass = 1, merge(2, 1, swap)
            do f = 1, nf   ! role f, played by array x
                x = f
                if (pass == 2) x = perm(f)
                ax = word(axes, x)
                do d = 1, len_trim(ax)
                    a = index('IJK', ax(d:d))
                    if (n(a) > ext(d, x) - h(1, a, x) - h(2, a, x)) then
                        write (m, '(9a, i0, a, i0, 3a)') trim(pre) // ' ', 'argument ', &
                            trim(word(names, x)), &
                            ', taken as ', trim(bounds(x)), ' ', trim(taken(x)), &
                            ', has an interior of ', &
                            '1:', ext(d, x) - h(1, a, x) - h(2, a, x), &
                            ' along dimension ', d, ' (' // ax(d:d) // '), smaller than the ', &
                            'domain ', trim(domain_text(a))
                        rc = gt_error_flat(GT_ESHAPE, trim(m) // trim(fix(x, f)) // &
                                           trim(other(a, x)) // &
                                           c_null_char)
                        return
                    end if
                    if (h(1, a, x) < need(1, a, f) .or. &
                        ext(d, x) - h(1, a, x) - n(a) < need(2, a, f)) then
                        write (m, '(5a, i0, a, i0, a, i0, 4a, i0, a, i0, a)') trim(pre) // ' ', &
                            'argument ', trim(word(names, x)), ', taken as ', &
                            trim(bounds(x)) // ' ' // &
                            trim(taken(x)) // ', has a halo of ', h(1, a, x), ' below and ', &
                            ext(d, x) - h(1, a, x) - n(a), ' above the domain 1:', n(a), &
                            ' along dimension ', trim(dim_name(ax, d)), '; the stencil reads ', &
                            '', need(1, a, f), ' below and ', need(2, a, f), ' above'
                        rc = gt_error_flat(GT_EHALO, trim(m) // trim(role(x, f)) // &
                                           trim(fix(x, f)) // &
                                           c_null_char)
                        return
                    end if
                end do
            end do
        end do
    contains
        ! (every helper is recursive, and its result of a fixed length: gfortran keeps the
        ! length of a deferred-length result in a static variable of the caller, which threads
        ! share: "Threads" in docs/fortran.md)
        ! word k of the blank-separated list s
        recursive function word(s, k) result(t)
            character(*), intent(in) :: s
            integer, intent(in) :: k
            character(len=64) :: t
            integer :: i, j, c
            i = 1
            do c = 1, k - 1
                i = i + index(s(i:), ' ')
            end do
            j = index(s(i:), ' ')
            if (j == 0) then
                t = s(i:)
            else
                t = s(i:i + j - 2)
            end if
        end function word
        recursive function dim_name(ax, d) result(t)
            character(*), intent(in) :: ax
            integer, intent(in) :: d
            character(len=16) :: t
            write (t, '(i0, 3a)') d, ' (', ax(d:d), ')'
        end function dim_name
        ! the dummy that gave field f's halo
        recursive function given(f) result(t)
            integer, intent(in) :: f
            character(len=64) :: t
            t = word(hnames, 1 + merge(f, 0, w(f) == 2))
        end function given
        recursive function halo_text(hh) result(t)
            integer(c_int64_t), intent(in) :: hh(2, 3)
            character(len=160) :: t
            write (t, '(a, 5(i0, a), i0, a)') 'reshape([', hh(1, 1), ', ', hh(2, 1), ', ', &
                hh(1, 2), ', ', hh(2, 2), ', ', hh(1, 3), ', ', hh(2, 3), '], [2, 3])'
        end function halo_text
        recursive function halo_arg(f) result(t)
            integer, intent(in) :: f
            character(len=240) :: t
            t = trim(given(f)) // '=' // halo_text(h(:, :, f))
        end function halo_arg
        recursive function axis_of(x, d) result(c)
            integer, intent(in) :: x, d
            character(len=1) :: c
            character(len=64) :: s
            s = word(axes, x)
            c = s(d:d)
        end function axis_of
        ! t, which ends in '(' or a dimension's bounds, with dimension d's bounds b after it
        recursive function dim_joined(t, b, d) result(r)
            character(*), intent(in) :: t, b
            integer, intent(in) :: d
            character(len=512) :: r
            if (d > 1) then
                r = trim(t) // ', ' // trim(b)
            else
                r = trim(t) // trim(b)
            end if
        end function dim_joined
        ! array x as the wrapper takes it: NAME(1-lo:ext-lo, ...), the domain from 1
        recursive function bounds(x) result(t)
            integer, intent(in) :: x
            character(len=512) :: t
            character(len=48) :: b
            integer :: d, a
            t = trim(word(names, x)) // '('
            do d = 1, len_trim(word(axes, x))
                a = index('IJK', axis_of(x, d))
                write (b, '(i0, a, i0)') 1 - h(1, a, x), ':', ext(d, x) - h(1, a, x)
                t = dim_joined(t, b, d)
            end do
            t = trim(t) // ')'
        end function bounds
        recursive function taken(x) result(t)
            integer, intent(in) :: x
            character(len=256) :: t
            if (w(x) == 0) then
                t = '(no ' // trim(word(hnames, 1)) // '= or ' // trim(word(hnames, 1 + x)) // &
                    '=: the domain starts at its first element)'
            else
                t = '(its halo from ' // trim(given(x)) // '=)'
            end if
        end function taken
        recursive function domain_text(a) result(t)
            integer, intent(in) :: a
            character(len=128) :: t
            write (t, '(a, i0)') '1:', n(a)
            if (has_dom) then
                t = trim(t) // ' (from ' // dname // '=)'
            else
                t = trim(t) // ' (the interior of ' // trim(word(names, src(a))) // ')'
            end if
        end function domain_text
        ! the other fix of an interior smaller than the domain, where another array's
        ! interior gave it: a smaller domain
        recursive function other(a, x) result(t)
            integer, intent(in) :: a, x
            character(len=256) :: t
            t = ''
            if (has_dom) return
            if (src(a) /= x) t = ' (or, for a smaller domain, give ' // &
                trim(word(names, src(a))) // ' its halo with ' // &
                trim(word(hnames, 1 + src(a))) // '= or pass ' // dname // '=)'
        end function other
        ! from the second step on: which role array x plays
        recursive function role(x, f) result(t)
            integer, intent(in) :: x, f
            character(len=512) :: t
            t = ''
            if (x /= f) t = ' as ' // trim(word(names, f)) // ' (' // stencil // &
                '_steps swaps the arrays of each iterate pair after every step, so from the ' // &
                'second step on ' // trim(word(names, x)) // ' plays the role of ' // &
                trim(word(names, f)) // ')'
        end function role
        ! the fix for array x (role f): declare it with the halo both roles need, pass it
        recursive function fix(x, f) result(t)
            integer, intent(in) :: x, f
            character(len=512) :: t
            character(len=48) :: b
            integer(c_int64_t) :: hh(2, 3)
            integer :: d, a
            hh = 0
            t = ': declare ' // trim(word(names, x)) // '('
            do d = 1, len_trim(word(axes, x))
                a = index('IJK', axis_of(x, d))
                hh(1, a) = max(need(1, a, x), need(1, a, f))
                hh(2, a) = max(need(2, a, x), need(2, a, f))
                write (b, '(i0, a, i0)') 1 - hh(1, a), ':', n(a) + hh(2, a)
                t = dim_joined(t, b, d)
            end do
            t = trim(t) // ') and pass ' // trim(word(hnames, 1 + x)) // '=' // halo_text(hh)
        end function fix
    end subroutine gtrt_check_fit

    ! a wrapper's check of its dummy name (a halo: halo or NAME_halo): where rc is 0 and halo
    ! is present, GT_EINVAL into rc unless its shape is (2, 3) (assumed shape: an explicit
    ! halo(2, 3) would read past the end of a smaller actual)
    recursive subroutine gtrt_check_halo(rc, stencil, name, halo)
        integer(c_int), intent(inout) :: rc
        character(*), intent(in) :: stencil, name
        integer, intent(in), optional :: halo(:, :)
        character(len=24) :: shp
        if (rc /= 0 .or. .not. present(halo)) return
        if (all(shape(halo) == [2, 3])) return
        write (shp, '(a, i0, a, i0, a)') '(', size(halo, 1), ', ', size(halo, 2), ')'
        rc = gt_error_flat(GT_EINVAL, "stencil '" // stencil // "': " // name // " has shape " // &
                           trim(shp) // "; it takes (2, 3) (lower and upper halo along I, J " // &
                           "and K)" // c_null_char)
    end subroutine gtrt_check_halo

    ! the same for a wrapper's domain: GT_EINVAL unless it has 3 elements
    recursive subroutine gtrt_check_domain(rc, stencil, name, domain)
        integer(c_int), intent(inout) :: rc
        character(*), intent(in) :: stencil, name
        integer, intent(in), optional :: domain(:)
        if (present(domain)) call gtrt_check_size(rc, "stencil '" // stencil // "'", name, &
                                                  size(domain), 3, 'the sizes along I, J and K')
    end subroutine gtrt_check_domain

    ! the same for S_mpi's times: GT_EINVAL unless it has 2 elements (only its shape is
    ! looked at: the wrapper's times is intent(out))
    recursive subroutine gtrt_check_times(rc, stencil, name, times)
        integer(c_int), intent(inout) :: rc
        character(*), intent(in) :: stencil, name
        real(c_double), intent(in), optional :: times(:)
        if (present(times)) call gtrt_check_size(rc, "stencil '" // stencil // "'", name, &
                                                 size(times), 2, 'seconds exchanging and computing')
    end subroutine gtrt_check_times

    ! where rc is 0: GT_EINVAL into rc unless n, the size of dummy name of who (a stencil's
    ! wrapper, "stencil 'lap'", or a procedure, 'gtrt_box'), is want (meaning: what its
    ! elements are): gtrt_check_domain's, gtrt_check_times' and gtrt_mpi's test
    recursive subroutine gtrt_check_size(rc, who, name, n, want, meaning)
        integer(c_int), intent(inout) :: rc
        character(*), intent(in) :: who, name, meaning
        integer, intent(in) :: n, want
        character(len=12) :: have, takes
        if (rc /= 0 .or. n == want) return
        write (have, '(i0)') n
        write (takes, '(i0)') want
        rc = gt_error_flat(GT_EINVAL, who // ": " // name // " has " // &
                           trim(have) // trim(merge(" element ", " elements", n == 1)) // &
                           "; it takes " // trim(takes) // " (" // meaning // ")" // c_null_char)
    end subroutine gtrt_check_size

    ! releases every storage of s (null ones are skipped)
    recursive subroutine gtrt_release(s)
        type(c_ptr), intent(inout) :: s(:)
        integer :: i
        do i = 1, size(s)
            call gt_release(s(i))
            s(i) = c_null_ptr
        end do
    end subroutine gtrt_release

    ! a wrapper's ending: GT_EHALO's message gets a hint in Fortran terms; rc present: code
    ! into it; absent: a failure writes the message
    ! to the standard error unit and stops the program (error stop); the unit is flushed
    ! first, since libgfortran buffers it when it is not a terminal (a batch job's file) and
    ! writes error stop's own lines at once: without the flush the message came after them
    recursive subroutine gtrt_finish(code, rc)
        integer(c_int), intent(in) :: code
        integer, intent(out), optional :: rc
        integer(c_int) :: code_
        character(len=:), allocatable :: msg
        character(len=*), parameter :: hint = " (from Fortran: a wrapper cannot see an " // &
                "array's lower bounds; give each field's halo with halo= or NAME_halo=, " // &
                "docs/fortran.md, Halos)"
        ! a halo too small: the runtime's message says what the stencil needs, this how a
        ! Fortran caller gives it (an array declared u(0:n+1) has one the wrapper cannot see)
        if (code == GT_EHALO) then
            call c_string(c_last_error(), msg)
            ! (gtrt_check_fit's messages, in Fortran's terms, say it themselves)
            if (index(msg, hint) == 0 .and. index(msg, 'but the stencil needs') > 0) &
                code_ = gt_error_flat(GT_EHALO, msg // hint // c_null_char)
        end if
        if (present(rc)) then
            rc = code
        else if (code /= GT_OK) then
            call c_string(c_last_error(), msg)
            write (error_unit, '(a)') msg
            flush (error_unit)
            error stop
        end if
    end subroutine gtrt_finish

    ! S_mpi's call: gt_mpi_call(d, fields, size(fields), NULL, call, ctx, overlap, times);
    ! GT_EMPI where no decomposition was made through gtrt_mpi (the pointer is unset)
    ! (sub: the wrapper's Fortran name, pq_lap_mpi after -P pq_; absent, as from a module
    ! made before it was passed: the .stn name and _mpi)
    recursive function gtrt_mpi_call(d, fields, call, ctx, overlap, times, stencil, sub) &
            result(rc)
        type(c_ptr), intent(in) :: d, ctx, fields(:)
        type(c_funptr), intent(in) :: call
        logical, intent(in), optional :: overlap
        real(c_double), intent(inout), target :: times(2)
        character(*), intent(in) :: stencil
        character(*), intent(in), optional :: sub
        integer(c_int) :: rc
        integer(c_int) :: ov
        if (.not. associated(gtrt_mpi_call_p)) then
            rc = no_mpi(trim(wrapper_of(stencil, "_mpi", sub)))
            return
        end if
        if (.not. c_associated(d)) then
            rc = null_decomp(stencil, trim(wrapper_of(stencil, "_mpi", sub)))
            return
        end if
        ov = 0
        if (present(overlap)) then
            if (overlap) ov = 1
        end if
        rc = gtrt_mpi_call_p(d, fields, int(size(fields), c_int), c_null_ptr, call, ctx, ov, &
                             c_loc(times))
    end function gtrt_mpi_call

    ! S_steps_mpi's call: gt_mpi_steps(d, info, fields, nsteps, tblock (absent: 0, the
    ! default), step, ctx, times); GT_EMPI as gtrt_mpi_call
    recursive function gtrt_mpi_steps(d, info, fields, nsteps, tblock, step, ctx, times, stencil, &
            sub) result(rc)
        type(c_ptr), intent(in) :: d, info, ctx, fields(:)
        integer, intent(in) :: nsteps
        integer, intent(in), optional :: tblock
        type(c_funptr), intent(in) :: step
        real(c_double), intent(inout), target :: times(2)
        character(*), intent(in) :: stencil
        character(*), intent(in), optional :: sub
        integer(c_int) :: rc
        integer(c_int) :: tb
        if (.not. associated(gtrt_mpi_steps_p)) then
            rc = no_mpi(trim(wrapper_of(stencil, "_steps_mpi", sub)))
            return
        end if
        if (.not. c_associated(d)) then
            rc = null_decomp(stencil, trim(wrapper_of(stencil, "_steps_mpi", sub)))
            return
        end if
        tb = 0
        if (present(tblock)) tb = int(tblock, c_int)
        rc = gtrt_mpi_steps_p(d, info, fields, int(nsteps, c_int64_t), tb, step, ctx, &
                              c_loc(times))
    end function gtrt_mpi_steps

    ! S_steps_mpi_halo's, per field: where rc is 0, gt_mpi_steps_halo(info, field (0-based),
    ! axes (the field's), tblock) into rc, its rows (one per axis of axes) as halo's columns
    ! (1 I, 2 J, 3 K); halo 0 elsewhere and on failure
    recursive subroutine gtrt_mpi_steps_halo(rc, info, field, axes, tblock, halo, stencil, sub)
        integer(c_int), intent(inout) :: rc
        type(c_ptr), intent(in) :: info
        integer, intent(in) :: field, tblock
        character(*), intent(in) :: axes, stencil
        character(*), intent(in), optional :: sub
        integer, intent(out) :: halo(2, 3)
        integer(c_int64_t) :: h(2, 3)
        integer :: x
        character(len=12) :: tb
        halo = 0
        if (rc /= 0) return
        if (.not. associated(gtrt_mpi_steps_halo_p)) then
            rc = no_mpi(trim(wrapper_of(stencil, "_steps_mpi_halo", sub)))
            return
        end if
        if (tblock < 1) then   ! (gt_mpi_steps_halo's own message is C's: "field 0 of 2")
            write (tb, '(i0)') tblock
            rc = gt_error_flat(GT_EINVAL, "stencil '" // stencil // "': " // &
                               trim(wrapper_of(stencil, "_steps_mpi_halo", sub)) // &
                               ": tblock is " // trim(tb) // "; it must be >= 1 (the steps " // &
                               "of a block, between two halo exchanges)" // c_null_char)
            return
        end if
        h = 0
        rc = gtrt_mpi_steps_halo_p(info, int(field, c_int), axes // c_null_char, &
                                   int(tblock, c_int), h)
        if (rc /= 0) return
        do x = 1, len(axes)
            halo(:, index('IJK', axes(x:x))) = int(h(:, x))
        end do
    end subroutine gtrt_mpi_steps_halo

    ! The MPI wrapper's Fortran name for its messages: sub where the module passed it
    ! (pq_lap_mpi after -P pq_), else the .stn name and suffix; of a fixed length (trim it),
    ! since a deferred-length result is shared by threads under gfortran 12 ("Threads"), and
    ! long enough for any name the module may have (63 characters)
    recursive function wrapper_of(stencil, suffix, sub) result(w)
        character(*), intent(in) :: stencil, suffix
        character(*), intent(in), optional :: sub
        character(len=128) :: w
        w = stencil // suffix
        if (present(sub)) w = sub
    end function wrapper_of

    ! decomp null
    recursive function null_decomp(stencil, wrapper) result(rc)
        character(*), intent(in) :: stencil, wrapper
        integer(c_int) :: rc
        rc = gt_error_flat(GT_EINVAL, "stencil '" // stencil // "': " // wrapper // &
                           ": decomp is a null pointer (gtrt_decompose refused it, or " // &
                           "gtrt_decomp_release released it); pass a decomposition from " // &
                           "gtrt_decompose" // c_null_char)
    end function null_decomp

    recursive function no_mpi(what) result(rc)
        character(*), intent(in) :: what
        integer(c_int) :: rc
        rc = gt_error_flat(GT_EMPI, what // ": no decomposition made by gtrt_decompose (use " &
                           // "the module gtrt_mpi, link pkg-config gtrt-mpi)" // c_null_char)
    end function no_mpi

    ! the message of the calling thread's last failure ('' if none yet)
    recursive function gtrt_last_error() result(msg)
        character(len=:), allocatable :: msg
        call c_string(c_last_error(), msg)
    end function gtrt_last_error

    ! the same message into msg: the form to use where several threads may ask at once
    ! (gfortran 12 keeps the length of a deferred-length function result in a static
    ! variable of the caller, shared by every thread: docs/fortran.md, "Threads")
    recursive subroutine gtrt_get_last_error(msg)
        character(len=:), allocatable, intent(out) :: msg
        call c_string(c_last_error(), msg)
    end subroutine gtrt_get_last_error

    ! the code of the calling thread's last failure (0 if none yet)
    recursive function gtrt_last_error_code() result(code)
        integer(c_int) :: code
        code = c_last_error_code()
    end function gtrt_last_error_code

    ! the description of a code ('halo too small', ...)
    recursive function gtrt_strerror(code) result(msg)
        integer, intent(in) :: code
        character(len=:), allocatable :: msg
        call c_string(c_strerror(int(code, c_int)), msg)
    end function gtrt_strerror

    ! the C string at p into s; a subroutine, not a function, because gfortran 12 keeps the
    ! length of a deferred-length function result in a static variable of the caller, which
    ! threads calling at once overwrite
    recursive subroutine c_string(p, s)
        type(c_ptr), intent(in) :: p
        character(len=:), allocatable, intent(out) :: s
        character(kind=c_char), pointer :: chars(:)
        integer :: i, n
        n = int(c_strlen(p))
        call c_f_pointer(p, chars, [n])
        allocate (character(len=n) :: s)
        do i = 1, n
            s(i:i) = chars(i)
        end do
    end subroutine c_string

    recursive function address(p) result(a)
        type(c_ptr), intent(in) :: p
        integer(c_int64_t) :: a
        a = int(transfer(p, 0_c_intptr_t), c_int64_t)
    end function address

    ! the storage over the array of element p (null: an empty array), the byte distances to
    ! the next element along each dimension in next
    recursive function wrap(p, dtype, axes, shape, next, halo, stencil, field, s) result(rc)
        type(c_ptr), intent(in) :: p
        integer(c_int), intent(in) :: dtype
        character(*), intent(in) :: axes, stencil, field
        integer(c_int64_t), intent(in) :: shape(:), next(3), halo(:, :)
        type(c_ptr), intent(out) :: s
        integer(c_int) :: rc
        integer(c_int64_t) :: h(2, 3)
        integer :: d, a
        character(len=1) :: nd
        character(len=24) :: shp
        if (len(axes) /= size(shape)) then   ! gt_wrap_flat takes len(axes) extents from shape
            s = c_null_ptr
            write (nd, '(i1)') size(shape)
            rc = gt_error_flat(GT_EINVAL, "stencil '" // stencil // "': field '" // field // &
                               "': gtrt_wrap: axes '" // axes // "' for an array of rank " // &
                               nd // c_null_char)
            return
        end if
        if (size(halo, 1) /= 2 .or. size(halo, 2) /= 3) then   ! assumed shape, not (2, 3):
            s = c_null_ptr                                     ! a smaller one was read past
            write (shp, '(a, i0, a, i0, a)') '(', size(halo, 1), ', ', size(halo, 2), ')'
            rc = gt_error_flat(GT_EINVAL, "stencil '" // stencil // "': field '" // field // &
                               "': gtrt_wrap: halo has shape " // trim(shp) // &
                               "; it takes (2, 3)" // c_null_char)
            return
        end if
        h = 0
        do d = 1, min(len(axes), 3)
            a = index('IJK', axes(d:d))
            if (a > 0) h(:, d) = halo(:, a)
            if (next(d) < 0) then   ! a section such as a(n:1:-1, :): in Fortran's terms
                s = c_null_ptr
                rc = gt_error_flat(GT_EINVAL, "stencil '" // stencil // "': argument " // &
                                   field // " is a section with a negative stride along " // &
                                   "dimension " // achar(48 + d) // " (" // axes(d:d) // &
                                   "), such as " // field // trim(reversed(d)) // "; pass it " // &
                                   "with positive strides (" // field // trim(forward(d)) // &
                                   ") or a copy" // c_null_char)
                return
            end if
        end do
        rc = gt_wrap_flat(s, p, dtype, axes // c_null_char, shape, next, h, &
                "stencil '" // stencil // "': field '" // field // "'" // c_null_char)
    contains
        ! (n:1:-1, :, :) and (1:n, :, :) with n along dimension k of len(axes); recursive, and
        ! of a fixed length, as gtrt_check_fit's helpers: threads refused at once stopped the
        ! program ("Recursive call to nonrecursive procedure 'reversed'", -fcheck=all)
        recursive function reversed(k) result(t)
            integer, intent(in) :: k
            character(len=32) :: t
            t = section(k, 'n:1:-1')
        end function reversed
        recursive function forward(k) result(t)
            integer, intent(in) :: k
            character(len=32) :: t
            t = section(k, '1:n')
        end function forward
        recursive function section(k, at) result(t)
            integer, intent(in) :: k
            character(*), intent(in) :: at
            character(len=32) :: t
            character(len=8) :: piece
            integer :: e
            t = '('
            do e = 1, len(axes)
                piece = ':'
                if (e == k) piece = at
                if (e > 1) then
                    t = trim(t) // ', ' // trim(piece)
                else
                    t = trim(t) // trim(piece)
                end if
            end do
            t = trim(t) // ')'
        end function section
    end function wrap

  recursive function gtrt_wrap_r4_1(a, axes, halo, stencil, field, s) result(rc)
    real(c_float), intent(in), target :: a(:)
    character(*), intent(in) :: axes, stencil, field
    integer(c_int64_t), intent(in) :: halo(:, :)
    type(c_ptr), intent(out) :: s
    integer(c_int) :: rc
    integer(c_int64_t) :: next(3)
    type(c_ptr) :: p
    p = c_null_ptr
    next = 0
    if (size(a) > 0) then
      p = c_loc(a(1))
      if (size(a, 1) > 1) next(1) = address(c_loc(a(2))) - address(p)
    end if
    rc = wrap(p, GT_FLOAT32, axes, shape(a, c_int64_t), next, halo, stencil, field, s)
  end function gtrt_wrap_r4_1

  recursive function gtrt_wrap_r4_2(a, axes, halo, stencil, field, s) result(rc)
    real(c_float), intent(in), target :: a(:,:)
    character(*), intent(in) :: axes, stencil, field
    integer(c_int64_t), intent(in) :: halo(:, :)
    type(c_ptr), intent(out) :: s
    integer(c_int) :: rc
    integer(c_int64_t) :: next(3)
    type(c_ptr) :: p
    p = c_null_ptr
    next = 0
    if (size(a) > 0) then
      p = c_loc(a(1,1))
      if (size(a, 1) > 1) next(1) = address(c_loc(a(2,1))) - address(p)
      if (size(a, 2) > 1) next(2) = address(c_loc(a(1,2))) - address(p)
    end if
    rc = wrap(p, GT_FLOAT32, axes, shape(a, c_int64_t), next, halo, stencil, field, s)
  end function gtrt_wrap_r4_2

  recursive function gtrt_wrap_r4_3(a, axes, halo, stencil, field, s) result(rc)
    real(c_float), intent(in), target :: a(:,:,:)
    character(*), intent(in) :: axes, stencil, field
    integer(c_int64_t), intent(in) :: halo(:, :)
    type(c_ptr), intent(out) :: s
    integer(c_int) :: rc
    integer(c_int64_t) :: next(3)
    type(c_ptr) :: p
    p = c_null_ptr
    next = 0
    if (size(a) > 0) then
      p = c_loc(a(1,1,1))
      if (size(a, 1) > 1) next(1) = address(c_loc(a(2,1,1))) - address(p)
      if (size(a, 2) > 1) next(2) = address(c_loc(a(1,2,1))) - address(p)
      if (size(a, 3) > 1) next(3) = address(c_loc(a(1,1,2))) - address(p)
    end if
    rc = wrap(p, GT_FLOAT32, axes, shape(a, c_int64_t), next, halo, stencil, field, s)
  end function gtrt_wrap_r4_3

  recursive function gtrt_wrap_r8_1(a, axes, halo, stencil, field, s) result(rc)
    real(c_double), intent(in), target :: a(:)
    character(*), intent(in) :: axes, stencil, field
    integer(c_int64_t), intent(in) :: halo(:, :)
    type(c_ptr), intent(out) :: s
    integer(c_int) :: rc
    integer(c_int64_t) :: next(3)
    type(c_ptr) :: p
    p = c_null_ptr
    next = 0
    if (size(a) > 0) then
      p = c_loc(a(1))
      if (size(a, 1) > 1) next(1) = address(c_loc(a(2))) - address(p)
    end if
    rc = wrap(p, GT_FLOAT64, axes, shape(a, c_int64_t), next, halo, stencil, field, s)
  end function gtrt_wrap_r8_1

  recursive function gtrt_wrap_r8_2(a, axes, halo, stencil, field, s) result(rc)
    real(c_double), intent(in), target :: a(:,:)
    character(*), intent(in) :: axes, stencil, field
    integer(c_int64_t), intent(in) :: halo(:, :)
    type(c_ptr), intent(out) :: s
    integer(c_int) :: rc
    integer(c_int64_t) :: next(3)
    type(c_ptr) :: p
    p = c_null_ptr
    next = 0
    if (size(a) > 0) then
      p = c_loc(a(1,1))
      if (size(a, 1) > 1) next(1) = address(c_loc(a(2,1))) - address(p)
      if (size(a, 2) > 1) next(2) = address(c_loc(a(1,2))) - address(p)
    end if
    rc = wrap(p, GT_FLOAT64, axes, shape(a, c_int64_t), next, halo, stencil, field, s)
  end function gtrt_wrap_r8_2

  recursive function gtrt_wrap_r8_3(a, axes, halo, stencil, field, s) result(rc)
    real(c_double), intent(in), target :: a(:,:,:)
    character(*), intent(in) :: axes, stencil, field
    integer(c_int64_t), intent(in) :: halo(:, :)
    type(c_ptr), intent(out) :: s
    integer(c_int) :: rc
    integer(c_int64_t) :: next(3)
    type(c_ptr) :: p
    p = c_null_ptr
    next = 0
    if (size(a) > 0) then
      p = c_loc(a(1,1,1))
      if (size(a, 1) > 1) next(1) = address(c_loc(a(2,1,1))) - address(p)
      if (size(a, 2) > 1) next(2) = address(c_loc(a(1,2,1))) - address(p)
      if (size(a, 3) > 1) next(3) = address(c_loc(a(1,1,2))) - address(p)
    end if
    rc = wrap(p, GT_FLOAT64, axes, shape(a, c_int64_t), next, halo, stencil, field, s)
  end function gtrt_wrap_r8_3

  recursive function gtrt_wrap_i4_1(a, axes, halo, stencil, field, s) result(rc)
    integer(c_int32_t), intent(in), target :: a(:)
    character(*), intent(in) :: axes, stencil, field
    integer(c_int64_t), intent(in) :: halo(:, :)
    type(c_ptr), intent(out) :: s
    integer(c_int) :: rc
    integer(c_int64_t) :: next(3)
    type(c_ptr) :: p
    p = c_null_ptr
    next = 0
    if (size(a) > 0) then
      p = c_loc(a(1))
      if (size(a, 1) > 1) next(1) = address(c_loc(a(2))) - address(p)
    end if
    rc = wrap(p, GT_INT32, axes, shape(a, c_int64_t), next, halo, stencil, field, s)
  end function gtrt_wrap_i4_1

  recursive function gtrt_wrap_i4_2(a, axes, halo, stencil, field, s) result(rc)
    integer(c_int32_t), intent(in), target :: a(:,:)
    character(*), intent(in) :: axes, stencil, field
    integer(c_int64_t), intent(in) :: halo(:, :)
    type(c_ptr), intent(out) :: s
    integer(c_int) :: rc
    integer(c_int64_t) :: next(3)
    type(c_ptr) :: p
    p = c_null_ptr
    next = 0
    if (size(a) > 0) then
      p = c_loc(a(1,1))
      if (size(a, 1) > 1) next(1) = address(c_loc(a(2,1))) - address(p)
      if (size(a, 2) > 1) next(2) = address(c_loc(a(1,2))) - address(p)
    end if
    rc = wrap(p, GT_INT32, axes, shape(a, c_int64_t), next, halo, stencil, field, s)
  end function gtrt_wrap_i4_2

  recursive function gtrt_wrap_i4_3(a, axes, halo, stencil, field, s) result(rc)
    integer(c_int32_t), intent(in), target :: a(:,:,:)
    character(*), intent(in) :: axes, stencil, field
    integer(c_int64_t), intent(in) :: halo(:, :)
    type(c_ptr), intent(out) :: s
    integer(c_int) :: rc
    integer(c_int64_t) :: next(3)
    type(c_ptr) :: p
    p = c_null_ptr
    next = 0
    if (size(a) > 0) then
      p = c_loc(a(1,1,1))
      if (size(a, 1) > 1) next(1) = address(c_loc(a(2,1,1))) - address(p)
      if (size(a, 2) > 1) next(2) = address(c_loc(a(1,2,1))) - address(p)
      if (size(a, 3) > 1) next(3) = address(c_loc(a(1,1,2))) - address(p)
    end if
    rc = wrap(p, GT_INT32, axes, shape(a, c_int64_t), next, halo, stencil, field, s)
  end function gtrt_wrap_i4_3

  recursive function gtrt_wrap_l1_1(a, axes, halo, stencil, field, s) result(rc)
    logical(c_bool), intent(in), target :: a(:)
    character(*), intent(in) :: axes, stencil, field
    integer(c_int64_t), intent(in) :: halo(:, :)
    type(c_ptr), intent(out) :: s
    integer(c_int) :: rc
    integer(c_int64_t) :: next(3)
    type(c_ptr) :: p
    p = c_null_ptr
    next = 0
    if (size(a) > 0) then
      p = c_loc(a(1))
      if (size(a, 1) > 1) next(1) = address(c_loc(a(2))) - address(p)
    end if
    rc = wrap(p, GT_BOOL, axes, shape(a, c_int64_t), next, halo, stencil, field, s)
  end function gtrt_wrap_l1_1

  recursive function gtrt_wrap_l1_2(a, axes, halo, stencil, field, s) result(rc)
    logical(c_bool), intent(in), target :: a(:,:)
    character(*), intent(in) :: axes, stencil, field
    integer(c_int64_t), intent(in) :: halo(:, :)
    type(c_ptr), intent(out) :: s
    integer(c_int) :: rc
    integer(c_int64_t) :: next(3)
    type(c_ptr) :: p
    p = c_null_ptr
    next = 0
    if (size(a) > 0) then
      p = c_loc(a(1,1))
      if (size(a, 1) > 1) next(1) = address(c_loc(a(2,1))) - address(p)
      if (size(a, 2) > 1) next(2) = address(c_loc(a(1,2))) - address(p)
    end if
    rc = wrap(p, GT_BOOL, axes, shape(a, c_int64_t), next, halo, stencil, field, s)
  end function gtrt_wrap_l1_2

  recursive function gtrt_wrap_l1_3(a, axes, halo, stencil, field, s) result(rc)
    logical(c_bool), intent(in), target :: a(:,:,:)
    character(*), intent(in) :: axes, stencil, field
    integer(c_int64_t), intent(in) :: halo(:, :)
    type(c_ptr), intent(out) :: s
    integer(c_int) :: rc
    integer(c_int64_t) :: next(3)
    type(c_ptr) :: p
    p = c_null_ptr
    next = 0
    if (size(a) > 0) then
      p = c_loc(a(1,1,1))
      if (size(a, 1) > 1) next(1) = address(c_loc(a(2,1,1))) - address(p)
      if (size(a, 2) > 1) next(2) = address(c_loc(a(1,2,1))) - address(p)
      if (size(a, 3) > 1) next(3) = address(c_loc(a(1,1,2))) - address(p)
    end if
    rc = wrap(p, GT_BOOL, axes, shape(a, c_int64_t), next, halo, stencil, field, s)
  end function gtrt_wrap_l1_3
end module gtrt
