! fmpi.f90: S_mpi from Fortran (tests/fortran/run.sh runs it under mpirun -np 1 to 4). Every
! rank computes the stencil of fmpi.stn on the whole global domain with one process's call
! (lapsum), then on its own box of a decomposition (gtrt_decompose, lapsum_mpi) with local
! arrays whose halos hold a sentinel wherever only the exchange may fill them, and compares:
! the box bit for bit, the sum to 1e-12 of the sum of magnitudes, the max exactly. Periodic
! and not, blocking and overlapped; then a halo too small (refused on every rank) and a
! decomposition refused. Rank 0 prints "fortran-mpi-checks: P passed, F failed" (all ranks').
program fmpi
    use, intrinsic :: iso_c_binding, only: c_associated, c_double, c_int32_t, c_int64_t, c_ptr
    use mpi
    use gtrt, only: GT_EHALO, GT_EINVAL, gtrt_last_error
    use gtrt_mpi, only: gtrt_box, gtrt_decomp_release, gtrt_decompose
    use fmpi_gt, only: lapsum, lapsum_mpi
    implicit none
    integer, parameter :: g(3) = [13, 10, 3]
    real(c_double), parameter :: sentinel = -1.0e30_c_double
    integer :: ierr, rank, nproc, passed, failed

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
    passed = 0
    failed = 0
    call run(.false., .false.)
    call run(.false., .true.)
    call run(.true., .false.)
    call run(.true., .true.)
    call errors()
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

    ! the input at the global point (i, j, k), 0-based; on a periodic axis wrapped
    function val(i, j, k, periodic) result(v)
        integer, intent(in) :: i, j, k
        logical, intent(in) :: periodic
        real(c_double) :: v
        integer :: a, b
        a = i
        b = j
        if (periodic) then
            a = modulo(i, g(1))
            b = modulo(j, g(2))
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
        type(c_ptr) :: d
        character(len=40) :: what
        write (what, '(a, l1, a, l1)') 'lapsum_mpi periodic ', periodic, ' overlap ', overlap
        ! one process's call on the global domain: u's halo as the global edges hold it
        allocate (ug(0:g(1) + 1, 0:g(2) + 1, g(3)), rg(g(1), g(2), g(3)))
        do k = 1, g(3)
            do j = 0, g(2) + 1
                do i = 0, g(1) + 1
                    ug(i, j, k) = val(i - 1, j - 1, k - 1, periodic)
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
        call lapsum_mpi(d, ul, rl, 0.5_c_double, s, big, u_halo=h1, overlap=overlap, times=t, &
                        rc=rc)
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
        character(len=:), allocatable :: msg
        type(c_ptr) :: d
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
        call gtrt_decomp_release(d)
        ! a global size of 0: no decomposition, the runtime's message
        d = gtrt_decompose(MPI_COMM_WORLD, [g(1), 0, g(3)], rc=rc)
        msg = gtrt_last_error()
        call check(rc == GT_EINVAL .and. .not. c_associated(d), 'gtrt_decompose refused')
        call check(index(msg, 'global size along J is 0') > 0, 'gtrt_decompose: ' // msg)
    end subroutine errors
end program fmpi
