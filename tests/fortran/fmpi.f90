! fmpi.f90: S_mpi from Fortran (tests/fortran/run.sh runs it under mpirun -np 1 to 4). Every
! rank computes the stencil of fmpi.stn on the whole global domain with one process's call
! (lapsum), then on its own box of a decomposition (gtrt_decompose, lapsum_mpi) with local
! arrays whose halos hold a sentinel wherever only the exchange may fill them, and compares:
! the box bit for bit, the sum to 1e-12 of the sum of magnitudes, the max exactly. Periodic
! and not, blocking and overlapped; then a halo too small (refused on every rank), a
! decomposition refused and gtrt_box of the null one. Then S_steps_mpi (hper, periodic; hfr,
! its frame) for several step counts and blocks of steps, on local arrays with the halos
! S_steps_mpi_halo gives, against
! one process's S_steps on the global domain, bit for bit; S_steps_mpi_halo before any
! decomposition (GT_EMPI), a halo one row short along J (GT_EHALO), nsteps < 0 (GT_EINVAL),
! S_steps_mpi_halo's tblock 0 and S_mpi and S_steps_mpi on a released decomposition
! (GT_EINVAL, in the wrapper's terms) refused; S_mpi_halo against the halos derived by hand
! from the stencils. Rank 0 prints "fortran-mpi-checks: P passed, F failed" (all ranks').
program fmpi
    use, intrinsic :: iso_c_binding, only: c_associated, c_double, c_int32_t, c_int64_t, c_ptr
    use mpi
    use gtrt, only: GT_EHALO, GT_EINVAL, GT_EMPI, gtrt_last_error
    use gtrt_mpi, only: gtrt_box, gtrt_decomp_release, gtrt_decompose
    use fmpi_gt, only: hfr_steps, hfr_steps_mpi, hfr_steps_mpi_halo, hper_mpi, hper_mpi_halo, &
            hper_steps, hper_steps_mpi, hper_steps_mpi_halo, lapsum, lapsum_mpi, lapsum_mpi_halo
    implicit none
    integer, parameter :: g(3) = [13, 10, 3]
    ! the steps' global domain: blocks of 3 steps exchange 6 rows along J
    integer, parameter :: gs(3) = [17, 14, 2]
    real(c_double), parameter :: sentinel = -1.0e30_c_double
    integer :: ierr, rank, nproc, passed, failed, rc0
    integer :: hb(2, 3), hc(2, 3), hn(2, 3)
    integer, allocatable :: h22(:, :)

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
    passed = 0
    failed = 0
    ! before any gtrt_decompose: the hooks into libgtrt-mpi are not set
    call hper_steps_mpi_halo(2, u_halo=hb, rc=rc0)
    call check(rc0 == GT_EMPI .and. all(hb == 0), 'hper_steps_mpi_halo before gtrt_decompose: ' &
               // gtrt_last_error())
    call check(index(gtrt_last_error(), 'hper_steps_mpi_halo: no decomposition') > 0, &
               'hper_steps_mpi_halo before gtrt_decompose: the message')
    ! a halo of another shape than (2, 3): refused, naming it (an explicit-shape u_halo(2, 3)
    ! was written past its end)
    allocate (h22(2, 2))
    call hper_steps_mpi_halo(2, u_halo=h22, rc=rc0)
    call check(rc0 == GT_EINVAL, 'hper_steps_mpi_halo, u_halo(2, 2): rc GT_EINVAL')
    call check(index(gtrt_last_error(), "stencil 'hper': u_halo has shape (2, 2); it takes " // &
               "(2, 3)") == 1, 'hper_steps_mpi_halo, u_halo(2, 2): ' // gtrt_last_error())
    ! S_mpi_halo: along I and J as far as the stencil reads beyond its domain (hper: u[i-1],
    ! u[i+1], u[j-1], u[j+2], c[i+1]; its periodic boundary does not shrink it), K as S needs
    call hper_mpi_halo(u_halo=hb, un_halo=hn, c_halo=hc)
    call check(all(hb == reshape([1, 1, 1, 2, 0, 0], [2, 3])) .and. all(hn == 0) .and. &
               all(hc == reshape([0, 1, 0, 0, 0, 0], [2, 3])), 'hper_mpi_halo')
    call run(.false., .false.)
    call run(.false., .true.)
    call run(.true., .false.)
    call run(.true., .true.)
    call errors()
    call steps(.true., 1, 1)
    call steps(.true., 5, 1)
    call steps(.true., 5, 2)
    call steps(.true., 4, 3)
    call steps(.true., 3, 0)
    call steps(.false., 0, 2)
    call steps(.false., 1, 1)
    call steps(.false., 6, 2)
    call steps(.false., 7, 3)
    call steps(.false., 5, 0)
    call steps_errors()
    call MPI_Allreduce(MPI_IN_PLACE, passed, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call MPI_Allreduce(MPI_IN_PLACE, failed, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank == 0) print '(a, i0, a, i0, a)', 'fortran-mpi-checks: ', passed, ' passed, ', &
            failed, ' failed'
    call MPI_Finalize(ierr)

contains

    subroutine check(ok, what)
        logical, intent(in) :: ok
        character(*), intent(in) :: what
        if (ok) then
            passed = passed + 1
        else
            failed = failed + 1
            print '(a, i0, 2a)', 'FAIL: rank ', rank, ': ', what
        end if
    end subroutine check

    ! the input at the global point (i, j, k), 0-based; on a periodic axis wrapped (global
    ! domain gg)
    function val(i, j, k, periodic, gg) result(v)
        integer, intent(in) :: i, j, k, gg(3)
        logical, intent(in) :: periodic
        real(c_double) :: v
        integer :: a, b
        a = i
        b = j
        if (periodic) then
            a = modulo(i, gg(1))
            b = modulo(j, gg(2))
        end if
        v = real(modulo(a * 7 + b * 13 + k * 5, 17), c_double) / 16.0_c_double + &
            real(a - 2 * b, c_double) * 0.01_c_double
    end function val

    subroutine run(periodic, overlap)
        logical, intent(in) :: periodic, overlap
        real(c_double), allocatable :: ug(:, :, :), rg(:, :, :), ul(:, :, :), rl(:, :, :)
        real(c_double) :: s_ref, s, t(2)
        integer(c_int32_t) :: big_ref, big
        integer :: i, j, k, off(3), sz(3), rc
        integer, parameter :: h1(2, 3) = reshape([1, 1, 1, 1, 0, 0], [2, 3])
        integer :: hl(2, 3), hr(2, 3)
        type(c_ptr) :: d
        character(len=40) :: what
        write (what, '(a, l1, a, l1)') 'lapsum_mpi periodic ', periodic, ' overlap ', overlap
        ! one process's call on the global domain: u's halo as the global edges hold it
        allocate (ug(0:g(1) + 1, 0:g(2) + 1, g(3)), rg(g(1), g(2), g(3)))
        do k = 1, g(3)
            do j = 0, g(2) + 1
                do i = 0, g(1) + 1
                    ug(i, j, k) = val(i - 1, j - 1, k - 1, periodic, g)
                end do
            end do
        end do
        call lapsum(ug, rg, 0.5_c_double, s_ref, big_ref, u_halo=h1)
        ! this rank's box, halos the sentinel but on the global edges of an open axis
        d = gtrt_decompose(MPI_COMM_WORLD, g, periodic=[periodic, periodic])
        call gtrt_box(d, off, sz)
        allocate (ul(0:sz(1) + 1, 0:sz(2) + 1, sz(3)), rl(sz(1), sz(2), sz(3)))
        ul = sentinel
        do k = 1, sz(3)
            do j = 0, sz(2) + 1
                do i = 0, sz(1) + 1
                    if ((i >= 1 .and. i <= sz(1) .and. j >= 1 .and. j <= sz(2)) .or. &
                        (.not. periodic .and. (off(1) + i == 0 .or. off(1) + i == g(1) + 1 &
                         .or. off(2) + j == 0 .or. off(2) + j == g(2) + 1))) &
                        ul(i, j, k) = ug(off(1) + i, off(2) + j, k)
                end do
            end do
        end do
        rl = 7
        t = -1
        call lapsum_mpi_halo(u_halo=hl, r_halo=hr)
        call check(all(hl == h1) .and. all(hr == 0), trim(what) // ': lapsum_mpi_halo')
        call lapsum_mpi(d, ul, rl, 0.5_c_double, s, big, u_halo=hl, r_halo=hr, overlap=overlap, &
                        times=t, rc=rc)
        call check(rc == 0, trim(what) // ': rc 0: ' // gtrt_last_error())
        call check(all(transfer(rl, 0_c_int64_t, size(rl)) == transfer(rg(off(1) + 1: &
                   off(1) + sz(1), off(2) + 1:off(2) + sz(2), :), 0_c_int64_t, size(rl))), &
                   trim(what) // ': the box bit for bit')
        call check(abs(s - s_ref) <= 1e-12_c_double * sum(abs(rg)), trim(what) // ': the sum')
        call check(big == big_ref, trim(what) // ': the max')
        call check(all(t >= 0), trim(what) // ': times')
        call gtrt_decomp_release(d)
        call check(.not. c_associated(d), trim(what) // ': released')
    end subroutine run

    subroutine errors()
        real(c_double), allocatable :: ul(:, :, :), rl(:, :, :)
        real(c_double) :: s
        integer(c_int32_t) :: big
        integer :: off(3), sz(3), rc
        integer, allocatable :: n2(:), n1(:)
        logical, allocatable :: p3(:)
        character(len=:), allocatable :: msg
        type(c_ptr) :: d
        allocate (n2(2), n1(1), p3(3))
        n1 = 1
        p3 = .true.
        d = gtrt_decompose(MPI_COMM_WORLD, g)
        call gtrt_box(d, off, sz)
        ! u without a halo: refused on every rank, nothing written
        allocate (ul(sz(1), sz(2), sz(3)), rl(sz(1), sz(2), sz(3)))
        ul = 1
        rl = 7
        call lapsum_mpi(d, ul, rl, 0.5_c_double, s, big, rc=rc)
        msg = gtrt_last_error()
        call check(rc == GT_EHALO, 'halo too small: rc GT_EHALO: ' // msg)
        call check(index(msg, "stencil 'lapsum'") > 0 .and. index(msg, "field 'u'") > 0, &
                   'halo too small: the message: ' // msg)
        call check(all(abs(rl - 7) < 0.5_c_double), 'halo too small: nothing written')
        ! a scalar that differs on the last rank (a time step each rank computed for itself):
        ! refused on every rank, naming it and both values, nothing written
        if (nproc > 1) then
            deallocate (ul)
            allocate (ul(0:sz(1) + 1, 0:sz(2) + 1, sz(3)))
            ul = 1
            call lapsum_mpi(d, ul, rl, merge(0.25_c_double, 0.5_c_double, rank == nproc - 1), &
                            s, big, u_halo=reshape([1, 1, 1, 1, 0, 0], [2, 3]), rc=rc)
            msg = gtrt_last_error()
            call check(rc == GT_EINVAL .and. index(msg, "disagree on scalar 'a' of stencil " // &
                       "'lapsum' (0.5 on rank 0, 0.25 on rank") > 0, 'a scalar differing: ' // msg)
            call check(all(abs(rl - 7) < 0.5_c_double), 'a scalar differing: nothing written')
        end if
        call gtrt_decomp_release(d)
        ! a global size of 0: no decomposition, the runtime's message
        d = gtrt_decompose(MPI_COMM_WORLD, [g(1), 0, g(3)], rc=rc)
        msg = gtrt_last_error()
        call check(rc == GT_EINVAL .and. .not. c_associated(d), 'gtrt_decompose refused')
        call check(index(msg, 'global size along J is 0') > 0, 'gtrt_decompose: ' // msg)
        ! the box of that null decomposition: refused, not a silent box of size 0
        off = 5
        sz = 5
        call gtrt_box(d, off, sz, rc)
        msg = gtrt_last_error()
        call check(rc == GT_EINVAL .and. all(off == 0) .and. all(sz == 0), &
                   'gtrt_box of a null decomposition refused')
        call check(index(msg, 'decomposition is NULL') > 0, 'gtrt_box: ' // msg)
        ! arrays of the wrong size (a 2-D model's [ni, nj], one dims): refused, naming the
        ! dummy, where explicit-shape dummies read or wrote past the actual's end
        n2 = [g(1), g(2)]
        d = gtrt_decompose(MPI_COMM_WORLD, n2, rc=rc)
        msg = gtrt_last_error()
        call check(rc == GT_EINVAL .and. .not. c_associated(d) .and. msg == 'gtrt_decompose: ' // &
                   'global has 2 elements; it takes 3 (the sizes along I, J and K)', &
                   'gtrt_decompose, global of 2: ' // msg)
        d = gtrt_decompose(MPI_COMM_WORLD, g, dims=n1, rc=rc)
        msg = gtrt_last_error()
        call check(rc == GT_EINVAL .and. .not. c_associated(d) .and. msg == 'gtrt_decompose: ' // &
                   'dims has 1 element; it takes 2 (along I and J)', &
                   'gtrt_decompose, dims of 1: ' // msg)
        d = gtrt_decompose(MPI_COMM_WORLD, g, periodic=p3, rc=rc)
        msg = gtrt_last_error()
        call check(rc == GT_EINVAL .and. .not. c_associated(d) .and. index(msg, 'gtrt_decompose: ' &
                   // 'periodic has 3 elements; it takes 2') == 1, &
                   'gtrt_decompose, periodic of 3: ' // msg)
        d = gtrt_decompose(MPI_COMM_WORLD, g)
        n2 = 5
        call gtrt_box(d, n2, sz, rc)
        msg = gtrt_last_error()
        call check(rc == GT_EINVAL .and. all(n2 == 0) .and. msg == 'gtrt_box: offset has 2 ' // &
                   'elements; it takes 3 (along I, J and K)', 'gtrt_box, offset of 2: ' // msg)
        call gtrt_decomp_release(d)
    end subroutine errors
    ! global inputs with a halo of 2 along I and J (u: f 0; c: f 1)
    subroutine fill_global(a, f, periodic)
        real(c_double), intent(out) :: a(-1:, -1:, :)
        integer, intent(in) :: f
        logical, intent(in) :: periodic
        integer :: i, j, k
        do k = 1, gs(3)
            do j = -1, gs(2) + 2
                do i = -1, gs(1) + 2
                    a(i, j, k) = val(i - 1 + 3 * f, j - 1, k - 1 + f, periodic, gs)
                end do
            end do
        end do
    end subroutine fill_global

    ! this rank's local array of global array ag: the box; halo h's points outside the global
    ! domain copied from ag where not periodic (the frame; ag has 2 there, more is never
    ! read), the sentinel elsewhere (only the exchange may fill it)
    subroutine fill_local(al, ag, off, sz, h, periodic)
        real(c_double), intent(out) :: al(:, :, :)
        real(c_double), intent(in) :: ag(-1:, -1:, :)
        integer, intent(in) :: off(3), sz(3), h(2, 3)
        logical, intent(in) :: periodic
        integer :: i, j, k, gi, gj
        al = sentinel
        do k = 1, sz(3)
            do j = 1, size(al, 2)
                do i = 1, size(al, 1)
                    gi = off(1) + i - h(1, 1)
                    gj = off(2) + j - h(1, 2)
                    if ((i > h(1, 1) .and. i <= h(1, 1) + sz(1) .and. j > h(1, 2) .and. &
                         j <= h(1, 2) + sz(2)) .or. &
                        (.not. periodic .and. (gi < 1 .or. gi > gs(1) .or. gj < 1 .or. &
                         gj > gs(2)) .and. gi >= -1 .and. gi <= gs(1) + 2 .and. gj >= -1 &
                         .and. gj <= gs(2) + 2)) al(i, j, k) = ag(gi, gj, k)
                end do
            end do
        end do
    end subroutine fill_local

    ! S_steps_mpi of hper (periodic) or hfr (not), nsteps steps in blocks of tblock (0: absent,
    ! the default, on the halos of blocks of 2), against S_steps on the global domain
    subroutine steps(periodic, nsteps, tblock)
        logical, intent(in) :: periodic
        integer, intent(in) :: nsteps, tblock
        real(c_double), allocatable :: ug(:, :, :), ung(:, :, :), cg(:, :, :), ug0(:, :, :)
        real(c_double), allocatable :: ul(:, :, :), unl(:, :, :), cl(:, :, :)
        integer :: off(3), sz(3), rc, hu(2, 3), hn(2, 3), hc(2, 3)
        integer, parameter :: h2(2, 3) = reshape([2, 2, 2, 2, 0, 0], [2, 3])
        real(c_double) :: t(2)
        type(c_ptr) :: d
        character(len=60) :: what
        write (what, '(a, i0, a, i0)') merge('hper_steps_mpi', 'hfr_steps_mpi ', periodic) // &
            ' nsteps ', nsteps, ' tblock ', tblock
        allocate (ug(-1:gs(1) + 2, -1:gs(2) + 2, gs(3)), ung(-1:gs(1) + 2, -1:gs(2) + 2, gs(3)), &
                  cg(-1:gs(1) + 2, -1:gs(2) + 2, gs(3)), ug0(-1:gs(1) + 2, -1:gs(2) + 2, gs(3)))
        call fill_global(ug0, 0, periodic)
        call fill_global(cg, 1, periodic)
        ug = ug0
        ung = ug0
        if (periodic) then
            call hper_steps(ug, ung, cg, 0.05_c_double, nsteps, halo=h2)
        else
            call hfr_steps(ug, ung, cg, 0.05_c_double, nsteps, halo=h2)
        end if
        d = gtrt_decompose(MPI_COMM_WORLD, gs, periodic=[periodic, periodic])
        call gtrt_box(d, off, sz)
        if (periodic) then
            call hper_steps_mpi_halo(max(tblock, 2), u_halo=hu, un_halo=hn, c_halo=hc, rc=rc)
        else
            call hfr_steps_mpi_halo(max(tblock, 2), u_halo=hu, un_halo=hn, c_halo=hc, rc=rc)
        end if
        call check(rc == 0, trim(what) // ': S_steps_mpi_halo: ' // gtrt_last_error())
        call check(all(hu(:, 1:2) >= 1) .and. all(hu(2, 2) >= hu(:, 1)) .and. &
                   all(hu(:, 3) == 0) .and. all(hn == hu) .and. hc(2, 1) >= 1, &
                   trim(what) // ': the halos S_steps_mpi_halo gives')
        allocate (ul(sz(1) + hu(1, 1) + hu(2, 1), sz(2) + hu(1, 2) + hu(2, 2), sz(3)), &
                  unl(sz(1) + hn(1, 1) + hn(2, 1), sz(2) + hn(1, 2) + hn(2, 2), sz(3)), &
                  cl(sz(1) + hc(1, 1) + hc(2, 1), sz(2) + hc(1, 2) + hc(2, 2), sz(3)))
        call fill_local(ul, ug0, off, sz, hu, periodic)
        call fill_local(cl, cg, off, sz, hc, periodic)
        ! un is scratch: its frame as u's (S_steps copies u's frame into it)
        call fill_local(unl, ug0, off, sz, hn, periodic)
        t = -1
        if (periodic .and. tblock > 0) then
            call hper_steps_mpi(d, ul, unl, cl, 0.05_c_double, nsteps, tblock, u_halo=hu, &
                                un_halo=hn, c_halo=hc, times=t, rc=rc)
        else if (periodic) then
            call hper_steps_mpi(d, ul, unl, cl, 0.05_c_double, nsteps, u_halo=hu, un_halo=hn, &
                                c_halo=hc, times=t, rc=rc)
        else if (tblock > 0) then
            call hfr_steps_mpi(d, ul, unl, cl, 0.05_c_double, nsteps, tblock, u_halo=hu, &
                               un_halo=hn, c_halo=hc, times=t, rc=rc)
        else
            call hfr_steps_mpi(d, ul, unl, cl, 0.05_c_double, nsteps, u_halo=hu, un_halo=hn, &
                               c_halo=hc, times=t, rc=rc)
        end if
        call check(rc == 0, trim(what) // ': rc 0: ' // gtrt_last_error())
        ! the result is in u, the pair's cur, on both sides
        call check(all(transfer(ul(hu(1, 1) + 1:hu(1, 1) + sz(1), hu(1, 2) + 1:hu(1, 2) + &
                   sz(2), :), 0_c_int64_t, product(sz)) == transfer(ug(off(1) + 1: &
                   off(1) + sz(1), off(2) + 1:off(2) + sz(2), :), 0_c_int64_t, &
                   product(sz))), trim(what) // ': the box bit for bit')
        call check(nsteps == 0 .or. any(abs(ul(hu(1, 1) + 1:hu(1, 1) + sz(1), hu(1, 2) + 1: &
                   hu(1, 2) + sz(2), :) - ug0(off(1) + 1:off(1) + sz(1), off(2) + 1: &
                   off(2) + sz(2), :)) > 0), trim(what) // ': the steps changed u')
        call check(all(t >= 0), trim(what) // ': times')
        call gtrt_decomp_release(d)
    end subroutine steps

    ! refusals of hfr_steps_mpi, the same code on every rank and nothing written: u's halo one
    ! row short along J (above), nsteps < 0, blocks of 2 steps on the halos of blocks of 1
    subroutine steps_errors()
        real(c_double), allocatable :: ul(:, :, :), unl(:, :, :), cl(:, :, :)
        integer :: off(3), sz(3), rc, hu(2, 3), hc(2, 3)
        character(len=:), allocatable :: msg
        type(c_ptr) :: d
        d = gtrt_decompose(MPI_COMM_WORLD, gs)
        call gtrt_box(d, off, sz)
        call hfr_steps_mpi_halo(1, u_halo=hu, c_halo=hc)
        hu(2, 2) = hu(2, 2) - 1
        allocate (ul(sz(1) + hu(1, 1) + hu(2, 1), sz(2) + hu(1, 2) + hu(2, 2), sz(3)), &
                  unl(sz(1) + hu(1, 1) + hu(2, 1), sz(2) + hu(1, 2) + hu(2, 2), sz(3)), &
                  cl(sz(1) + hc(1, 1) + hc(2, 1), sz(2) + hc(1, 2) + hc(2, 2), sz(3)))
        ul = 1
        unl = 2
        cl = 3
        call hfr_steps_mpi(d, ul, unl, cl, 0.05_c_double, 2, 1, u_halo=hu, un_halo=hu, &
                           c_halo=hc, rc=rc)
        msg = gtrt_last_error()
        call check(rc == GT_EHALO, 'hfr_steps_mpi, a halo short: rc GT_EHALO: ' // msg)
        call check(index(msg, "'hfr'") > 0 .and. index(msg, "'u'") > 0, &
                   'hfr_steps_mpi, a halo short: the message: ' // msg)
        call check(all(abs(ul - 1) < 0.5_c_double) .and. all(abs(unl - 2) < 0.5_c_double) &
                   .and. all(abs(cl - 3) < 0.5_c_double), &
                   'hfr_steps_mpi, a halo short: nothing written')
        hu(2, 2) = hu(2, 2) + 1
        deallocate (ul, unl)
        allocate (ul(sz(1) + hu(1, 1) + hu(2, 1), sz(2) + hu(1, 2) + hu(2, 2), sz(3)), &
                  unl(sz(1) + hu(1, 1) + hu(2, 1), sz(2) + hu(1, 2) + hu(2, 2), sz(3)))
        ul = 1
        unl = 2
        call hfr_steps_mpi(d, ul, unl, cl, 0.05_c_double, -1, 1, u_halo=hu, un_halo=hu, &
                           c_halo=hc, rc=rc)
        msg = gtrt_last_error()
        call check(rc == GT_EINVAL, 'hfr_steps_mpi, nsteps -1: rc GT_EINVAL: ' // msg)
        call check(all(abs(ul - 1) < 0.5_c_double) .and. all(abs(unl - 2) < 0.5_c_double) &
                   .and. all(abs(cl - 3) < 0.5_c_double), &
                   'hfr_steps_mpi, nsteps -1: nothing written')
        ! the halos of blocks of 1 step are short for blocks of 2
        call hfr_steps_mpi(d, ul, unl, cl, 0.05_c_double, 2, 2, u_halo=hu, un_halo=hu, &
                           c_halo=hc, rc=rc)
        msg = gtrt_last_error()
        call check(rc == GT_EHALO, 'hfr_steps_mpi, tblock 2 on the halos of 1: rc GT_EHALO: ' &
                   // msg)
        call check(all(abs(ul - 1) < 0.5_c_double) .and. all(abs(unl - 2) < 0.5_c_double) &
                   .and. all(abs(cl - 3) < 0.5_c_double), &
                   'hfr_steps_mpi, tblock 2 on the halos of 1: nothing written')
        ! blocks of 0 steps: no halo to give, refused in the wrapper's terms (it was
        ! gt_mpi_steps_halo's "bad arguments (info given, ..., field 0 of 3, halo given)")
        call hfr_steps_mpi_halo(0, u_halo=hn, rc=rc)
        msg = gtrt_last_error()
        call check(rc == GT_EINVAL .and. msg == "stencil 'hfr': hfr_steps_mpi_halo: tblock " // &
                   "is 0; it must be >= 1 (the steps of a block, between two halo exchanges)", &
                   'hfr_steps_mpi_halo, tblock 0: ' // msg)
        call gtrt_decomp_release(d)
        ! the released (null) decomposition: refused naming decomp (it was the runtime's
        ! "stencil 'hfr': decomposition is NULL", or gt_mpi_steps' without the stencil)
        call hfr_steps_mpi(d, ul, unl, cl, 0.05_c_double, 2, 1, u_halo=hu, un_halo=hu, &
                           c_halo=hc, rc=rc)
        msg = gtrt_last_error()
        call check(rc == GT_EINVAL .and. msg == "stencil 'hfr': hfr_steps_mpi: decomp is a " // &
                   "null pointer (gtrt_decompose refused it, or gtrt_decomp_release released " // &
                   "it); pass a decomposition from gtrt_decompose", &
                   'hfr_steps_mpi, a released decomposition: ' // msg)
        call check(all(abs(ul - 1) < 0.5_c_double) .and. all(abs(unl - 2) < 0.5_c_double), &
                   'hfr_steps_mpi, a released decomposition: nothing written')
        call hper_mpi_halo(u_halo=hn)
        call hper_mpi(d, ul, unl, cl, 0.05_c_double, u_halo=hn, un_halo=hn, c_halo=hn, rc=rc)
        msg = gtrt_last_error()
        call check(rc == GT_EINVAL .and. msg == "stencil 'hper': hper_mpi: decomp is a " // &
                   "null pointer (gtrt_decompose refused it, or gtrt_decomp_release released " // &
                   "it); pass a decomposition from gtrt_decompose", &
                   'hper_mpi, a released decomposition: ' // msg)
    end subroutine steps_errors
end program fmpi
