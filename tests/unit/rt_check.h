/* rt_check.h: what the runtime's unit tests share (check_rt_*.c, check_mpi_call.c). */
#ifndef RT_CHECK_H
#define RT_CHECK_H

#include <check.h>
#include <string.h>

#include <gt/gt.h>

/* The last runtime error has this code, and its message contains text. */
#define ck_assert_error(code, text)                                                          \
    do {                                                                                     \
        ck_assert_int_eq(gt_last_error_code(), (code));                                     \
        ck_assert_msg(strstr(gt_last_error(), (text)) != NULL, "message \"%s\" lacks \"%s\"", \
                      gt_last_error(), (text));                                              \
    } while (0)

#endif /* RT_CHECK_H */
