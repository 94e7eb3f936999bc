/* tests/unit/main.c: the one Check runner. It collects every suite listed in
 * the generated suites.h (one X(NAME) per tests/unit/check_NAME.c), runs them,
 * and writes "PASSED FAILED" to $RESULTS/unit for `make check`'s summary.
 * An optional argument runs only the suite of that name (CK_RUN_SUITE works too). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define X(name) Suite *suite_##name(void);
#include "suites.h"
#undef X

int main(int argc, char **argv)
{
    SRunner *runner = srunner_create(NULL);
#define X(name) \
    if (argc < 2 || strcmp(argv[1], #name) == 0) srunner_add_suite(runner, suite_##name());
#include "suites.h"
#undef X
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    int run = srunner_ntests_run(runner);
    srunner_free(runner);

    const char *dir = getenv("RESULTS");
    if (dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/unit", dir);
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "%d %d\n", run - failed, failed);
            fclose(f);
        }
    }
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
