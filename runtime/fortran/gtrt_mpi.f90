! gtrt_mpi.f90: the Fortran module of libgtrt-mpi (docs/fortran.md, "Under MPI"): a
! decomposition of the IJ plane over an MPI communicator (gt_mpi_decompose), this rank's box,
! and the hooks through which the generated modules' S_mpi, S_steps_mpi and S_steps_mpi_halo
! reach libgtrt-mpi.
! comm is a Fortran handle: `use mpi`'s integer (MPI_COMM_WORLD), or mpi_f08's comm%MPI_VAL.
! Installed as source beside gtrt.f90: compile it after gtrt.f90 with the program's compiler
! (`pkg-config --variable=gtrt_mpi_source gtrt-fortran`), link with
! `pkg-config --libs gtrt-mpi`. Portable Fortran 2003 with iso_c_binding.
module gtrt_mpi
    use, intrinsic :: iso_c_binding, only: c_associated, c_int, c_int64_t, c_null_ptr, c_ptr
    use gtrt, only: gtrt_check_size, gtrt_finish, gtrt_last_error_code, gtrt_mpi_call_fn, &
            gtrt_mpi_call_p, gtrt_mpi_steps_fn, gtrt_mpi_steps_p, gtrt_mpi_steps_halo_fn, &
            gtrt_mpi_steps_halo_p
    implicit none
    private
    public :: gtrt_decompose, gtrt_decomp_release, gtrt_box

    procedure(gtrt_mpi_call_fn), bind(C, name="gt_mpi_call") :: c_mpi_call
    procedure(gtrt_mpi_steps_fn), bind(C, name="gt_mpi_steps") :: c_mpi_steps
    procedure(gtrt_mpi_steps_halo_fn), bind(C, name="gt_mpi_steps_halo") :: c_mpi_steps_halo

    interface
        function c_decompose(comm, global, dims, periodic) result(d) &
                bind(C, name="gt_mpi_decompose_f")
            import :: c_int, c_int64_t, c_ptr
            integer(c_int), value :: comm
            integer(c_int64_t), intent(in) :: global(3)
            integer(c_int), intent(in) :: dims(2), periodic(2)
            type(c_ptr) :: d
        end function c_decompose
        subroutine c_decomp_release(d) bind(C, name="gt_mpi_decomp_release")
            import :: c_ptr
            type(c_ptr), value :: d
        end subroutine c_decomp_release
        function c_box(d, offset, size) result(rc) bind(C, name="gt_mpi_box")
            import :: c_int, c_int64_t, c_ptr
            type(c_ptr), value :: d
            integer(c_int64_t), intent(out) :: offset(3), size(3)
            integer(c_int) :: rc
        end function c_box
    end interface

contains

    ! The IJ plane of the global domain global = [ni, nj, nk] split over the processes of
    ! comm (collective): dims, processes along I and J (0: MPI chooses; default both 0);
    ! periodic, per I and J (default neither). Returns the decomposition (release it with
    ! gtrt_decomp_release), or a null pointer with the code in rc (absent: the message on
    ! the standard error unit and error stop), as the stencils' wrappers do.
    ! global, dims and periodic are assumed-shape, their sizes checked (GT_EINVAL naming the
    ! dummy, no decomposition, on every rank that passes them so): explicit-shape dummies
    ! read past the end of a smaller actual, a 2-D model's [ni, nj]
    recursive function gtrt_decompose(comm, global, dims, periodic, rc) result(d)
        integer, intent(in) :: comm
        integer, intent(in) :: global(:)
        integer, intent(in), optional :: dims(:)
        logical, intent(in), optional :: periodic(:)
        integer, intent(out), optional :: rc
        type(c_ptr) :: d
        integer(c_int) :: cdims(2), cper(2), code
        d = c_null_ptr
        code = 0
        call gtrt_check_size(code, 'gtrt_decompose', 'global', size(global), 3, &
                             'the sizes along I, J and K')
        if (present(dims)) &
            call gtrt_check_size(code, 'gtrt_decompose', 'dims', size(dims), 2, 'along I and J')
        if (present(periodic)) &
            call gtrt_check_size(code, 'gtrt_decompose', 'periodic', size(periodic), 2, &
                                 'along I and J')
        if (code /= 0) then
            call gtrt_finish(code, rc)
            return
        end if
        cdims = 0
        if (present(dims)) cdims = int(dims, c_int)
        cper = 0
        if (present(periodic)) cper = merge(1_c_int, 0_c_int, periodic)
        gtrt_mpi_call_p => c_mpi_call
        gtrt_mpi_steps_p => c_mpi_steps
        gtrt_mpi_steps_halo_p => c_mpi_steps_halo
        d = c_decompose(int(comm, c_int), int(global, c_int64_t), cdims, cper)
        if (.not. c_associated(d)) code = gtrt_last_error_code()
        call gtrt_finish(code, rc)
    end function gtrt_decompose

    recursive subroutine gtrt_decomp_release(d)
        type(c_ptr), intent(inout) :: d
        call c_decomp_release(d)
        d = c_null_ptr
    end subroutine gtrt_decomp_release

    ! this rank's box: offset (0-based global index of its first point; 0 along K) and size;
    ! d null (a decomposition refused or released): offset and size 0 and the code in rc
    ! (absent: the message on the standard error unit and error stop)
    ! (offset and size assumed-shape: one of another size than 3 is GT_EINVAL, naming it,
    ! and both are 0 where they hold 3)
    recursive subroutine gtrt_box(d, offset, size, rc)
        type(c_ptr), intent(in) :: d
        integer, intent(out) :: offset(:), size(:)
        integer, intent(out), optional :: rc
        integer(c_int64_t) :: o(3), s(3)
        integer(c_int) :: code
        integer :: n(1)
        o = 0
        s = 0
        code = 0
        n = shape(offset)
        call gtrt_check_size(code, 'gtrt_box', 'offset', n(1), 3, 'along I, J and K')
        n = shape(size)
        call gtrt_check_size(code, 'gtrt_box', 'size', n(1), 3, 'along I, J and K')
        if (code == 0) code = c_box(d, o, s)
        offset = 0
        size = 0
        n = shape(offset)
        if (n(1) == 3) offset = int(o)
        n = shape(size)
        if (n(1) == 3) size = int(s)
        call gtrt_finish(code, rc)
    end subroutine gtrt_box
end module gtrt_mpi
