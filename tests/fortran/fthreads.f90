! fthreads.f90: the wrappers of ftest.stn called from several OpenMP threads at once, each on
! its own arrays (tests/fortran/run.sh). The module ftest_gt and gtrt are compiled without
! -fopenmp and with -fcheck=all: their procedures are recursive, so that locals are per call
! whatever the flags (gfortran's -fcheck=recursion otherwise stops the program at the second
! concurrent call: "Recursive call to nonrecursive procedure 'lap'"). Every result bit for
! bit a Fortran loop; a refused call's message is the calling thread's, every time (a halo
! too small, found by gtrt_check_fit; a reversed section, found by gtrt_wrap, whose helpers
! were not recursive: "Recursive call to nonrecursive procedure 'reversed'" stopped it).
program fthreads
    use, intrinsic :: iso_c_binding, only: c_double, c_int64_t
    use gtrt, only: GT_OK, GT_EHALO, GT_EINVAL, gtrt_get_last_error
    use ftest_gt, only: lap
    implicit none
    integer, parameter :: ni = 12, nj = 9, nk = 3, nt = 8, reps = 200
    real(c_double), allocatable :: u(:, :, :, :), o(:, :, :, :)
    real(c_double) :: want
    integer :: t, r, q, i, j, k, rc, bad
    allocate (u(0:ni + 1, 0:nj + 1, nk, nt), o(ni, nj, nk, nt))
    call random_number(u)
    o = 0
    bad = 0
    !$omp parallel do private(r, q, rc) reduction(+:bad) schedule(static, 1)
    do t = 1, nt
        do r = 1, reps
            call lap(u(:, :, :, t), o(:, :, :, t), u_halo=reshape([1, 1, 1, 1, 0, 0], [2, 3]), &
                     rc=rc)
            if (rc /= GT_OK) bad = bad + 1
            call lap(u(:, :, :, t), o(:, :, :, t), rc=rc)        ! no halo: refused
            if (rc /= GT_EHALO) bad = bad + 1
            call check_message(bad)
            do q = 1, 10   ! a reversed section: refused (an error path, quick: 10 a step)
                call lap(u(ni + 1:0:-1, :, :, t), o(:, :, :, t), &
                         u_halo=reshape([1, 1, 1, 1, 0, 0], [2, 3]), rc=rc)
                if (rc /= GT_EINVAL) bad = bad + 1
                call check_reversed(bad)
            end do
        end do
    end do
    !$omp end parallel do
    do t = 1, nt
        do k = 1, nk
            do j = 1, nj
                do i = 1, ni
                    want = -4.0_c_double * u(i, j, k, t) + u(i - 1, j, k, t) + &
                           u(i + 1, j, k, t) + u(i, j - 1, k, t) + u(i, j + 1, k, t)
                    if (transfer(o(i, j, k, t), 0_c_int64_t) /= transfer(want, 0_c_int64_t)) &
                        bad = bad + 1
                end do
            end do
        end do
    end do
    deallocate (u, o)   ! the main program's arrays are never freed otherwise (LeakSanitizer)
    if (bad /= 0) then
        print '(a, i0, a)', 'fthreads: ', bad, ' wrong results or codes'
        stop 1
    end if
    print '(a)', 'fthreads: ok'
contains
    ! the calling thread's message, read with gtrt_get_last_error: a call of the function
    ! gtrt_last_error() here would share gfortran 12's static length of its result between
    ! the threads (docs/fortran.md, "Threads")
    recursive subroutine check_message(bad)
        integer, intent(inout) :: bad
        character(len=:), allocatable :: msg
        call gtrt_get_last_error(msg)
        ! (the whole message: gtrt_check_fit builds it from helpers of its own, each of a
        ! fixed-length result; deferred-length ones came back blank or cut in some threads)
        if (msg /= "stencil 'lap': argument u, taken as u(1:14, 1:11, 1:3) (no halo= or " // &
            "u_halo=: the domain starts at its first element), has a halo of 0 below and 2 " // &
            "above the domain 1:12 along dimension 1 (I); the stencil reads 1 below and 1 " // &
            "above: declare u(0:13, 0:10, 1:3) and pass u_halo=reshape([1, 1, 1, 1, 0, 0], " // &
            "[2, 3])") bad = bad + 1
    end subroutine check_message
    recursive subroutine check_reversed(bad)
        integer, intent(inout) :: bad
        character(len=:), allocatable :: msg
        call gtrt_get_last_error(msg)
        if (msg /= "stencil 'lap': argument u is a section with a negative stride along " // &
            "dimension 1 (I), such as u(n:1:-1, :, :); pass it with positive strides " // &
            "(u(1:n, :, :)) or a copy") bad = bad + 1
    end subroutine check_reversed
end program fthreads
