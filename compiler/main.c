/* main.c: the gtcc command. It parses the command line and runs the
 * compilation on a thread with a 1 GiB stack (reserved, not committed), so
 * that the recursive passes cannot overflow on a legal but huge program, such
 * as a flat sum of 200000 terms. */
#include <pthread.h>

#include "gtcc.h"

typedef struct {
    Compiler *c;
    int status;
} Job;

static void *run(void *arg)
{
    Job *job = arg;
    job->status = gtcc_compile(job->c);
    return NULL;
}

int main(int argc, char **argv)
{
    Compiler *c = compiler_new(stderr);
    int status = options_parse(c, argc, argv);
    if (status != 0) {
        compiler_free(c);
        return status < 0 ? 0 : status;
    }
    Job job = {c, 2};
    pthread_attr_t attr;
    pthread_t thread;
    if (pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, (size_t)1 << 30) == 0
        && pthread_create(&thread, &attr, run, &job) == 0) {
        pthread_join(thread, NULL);
    } else {
        run(&job);   /* no thread: the normal stack still does for ordinary programs */
    }
    pthread_attr_destroy(&attr);
    compiler_free(c);
    return job.status;
}
