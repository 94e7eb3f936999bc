/* error.c: the calling thread's last failure (code and message), and the descriptions of
 * the error codes. Messages are formatted once, at the point of failure, into a
 * thread-local buffer; nothing is allocated, so reporting ENOMEM cannot fail. */
#include <stdarg.h>
#include <stdio.h>

#include "rt.h"

static _Thread_local char last_message[1024];
static _Thread_local int last_code;

int gt__error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_message, sizeof last_message, fmt, ap);
    va_end(ap);
    last_code = code;
    return code;
}

const char *gt_last_error(void)
{
    return last_message;
}

int gt_last_error_code(void)
{
    return last_code;
}

const char *gt_strerror(int code)
{
    switch (code) {
    case GT_OK:
        return "success";
#define GT_ERROR_CASE_(name, value, text) \
    case name:                            \
        return text;
        GT_ERROR_LIST(GT_ERROR_CASE_)
#undef GT_ERROR_CASE_
    }
    return "unknown error";
}

int gt_error_flat(int code, const char *msg)
{
    return gt__error(code, "%s", msg ? msg : "");
}
