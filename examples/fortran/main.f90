! examples/fortran/main.f90: smooths a bump with hdiff (../hdiff/hdiff.stn), called from
! Fortran on ordinary arrays through the module that `gtcc --emit=fortran` writes.
!
! u has the two points of halo hdiff needs around the interior 1..ni, 1..nj, declared with
! lower bounds 1-nb; the halo is made periodic by hand between steps; the output of one
! step is the input of the next (u and out swap through a copy of the interior). The sum of
! u over the interior is conserved (periodic halo, uniform coefficient): the program
! prints it beside the peak it flattens, and stops with gtcc's message on an error.
program hdiff_example
    use, intrinsic :: iso_c_binding, only: c_double
    use gtrt, only: GT_OK, gtrt_last_error
    use hdiff_gt, only: hdiff
    implicit none
    integer, parameter :: ni = 64, nj = 64, nk = 3, nb = 2, steps = 100
    ! halo(:, axis): lower and upper halo along I, J and K, for the wrapper
    integer, parameter :: u_halo(2, 3) = reshape([nb, nb, nb, nb, 0, 0], [2, 3])
    real(c_double), allocatable :: u(:, :, :), coeff(:, :, :), out(:, :, :)
    real(c_double) :: x, y, sum0, peak0
    integer :: i, j, step, rc

    allocate (u(1 - nb:ni + nb, 1 - nb:nj + nb, nk), out(ni, nj, nk), coeff(ni, nj, nk))
    coeff = 0.05_c_double
    do j = 1, nj
        do i = 1, ni
            x = (i - 1 - ni / 2.0_c_double) / 3.0_c_double
            y = (j - 1 - nj / 2.0_c_double) / 3.0_c_double
            u(i, j, :) = exp(-(x * x + y * y))
        end do
    end do
    sum0 = sum(u(1:ni, 1:nj, 1))
    peak0 = maxval(u(1:ni, 1:nj, 1))

    do step = 1, steps
        call periodic_halo(u)
        ! coeff and out have no halo: only u's is given
        call hdiff(u, coeff, out, u_halo=u_halo, rc=rc)
        if (rc /= GT_OK) then
            print '(2a)', 'hdiff: ', gtrt_last_error()
            stop 1
        end if
        u(1:ni, 1:nj, :) = out
    end do

    ! without rc, an error stops the program with gtcc's message, e.g. u's halo left out:
    !   call hdiff(u, coeff, out)   ! stencil 'hdiff': field 'u': halo along I is [0,4] ...
    print '(a, i0, a)', 'hdiff from Fortran: ', steps, ' steps on 64 x 64 x 3'
    print '(a, f8.5, a, f8.5)', '  peak ', peak0, ' -> ', maxval(u(1:ni, 1:nj, 1))
    print '(a, f10.5, a, f10.5, a, es8.1, a)', '  sum  ', sum0, ' -> ', sum(u(1:ni, 1:nj, 1)), &
            '   (conserved: ', abs(sum(u(1:ni, 1:nj, 1)) - sum0), ')'
    if (abs(sum(u(1:ni, 1:nj, 1)) - sum0) > 1e-9_c_double * sum0) then
        print '(a)', 'hdiff: the sum was not conserved'
        stop 1
    end if

contains

    subroutine periodic_halo(a)
        real(c_double), intent(inout) :: a(1 - nb:, 1 - nb:, :)
        a(1 - nb:0, :, :) = a(ni - nb + 1:ni, :, :)
        a(ni + 1:ni + nb, :, :) = a(1:nb, :, :)
        a(:, 1 - nb:0, :) = a(:, nj - nb + 1:nj, :)
        a(:, nj + 1:nj + nb, :) = a(:, 1:nb, :)
    end subroutine periodic_halo
end program hdiff_example
