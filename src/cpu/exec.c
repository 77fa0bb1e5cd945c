/* exec.c — running a dispatch: a pool of worker threads takes threadgroups from the grid.
 *
 * Needs: a program from jit.c and a launch checked by the runtime (we re-check limits).
 * Guarantees: every threadgroup of the grid runs exactly once, each on one OS thread from
 * start to end (so threadgroup memory and context arrays are that thread's scratch);
 * threadgroups are handed out by an atomic counter; edge threadgroups of a dispatch by
 * threads get their real size. The pool is created on the first dispatch that can use it
 * and reused, so a dispatch creates no threads; a one-threadgroup dispatch runs on the
 * caller without waking anyone. The calling thread always works too. */
#include "check_rt.h"
#include "cpu.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct dispatch_job {
    cpu_kernel_fn run;
    const en_launch *launch;
    uint64_t group_count;
    atomic_uint_fast64_t next_group;
    void *buffers[EN_MAX_BINDINGS];
    size_t context_bytes, tg_static_offset, tg_dynamic_offset[EN_MAX_TG_BINDINGS], scratch_bytes;
    cpu_check_dispatch *check; /* checked programs: the checking runtime's state */
    atomic_bool out_of_memory; /* a worker could not get scratch: its share was not run */
} dispatch_job;

typedef struct scratch {
    char *data;
    size_t size;
} scratch;

struct cpu_pool {
    int thread_count;           /* background workers (the caller is executor 0) */
    pthread_t *threads;
    scratch *scratch;           /* one per executor: [0] the caller, [1..] the workers */
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    uint64_t generation;        /* bumped per dispatch that wakes workers */
    int wanted;                 /* workers asked to join this dispatch */
    int busy;                   /* of those, still running */
    bool quit;
    dispatch_job *job;
};

static size_t align_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

static bool scratch_reserve(scratch *s, size_t need) {
    if (s->size >= need) return true;
    size_t size = align_up(need, 4096);
    char *p = aligned_alloc(64, size);
    if (!p) return false;
    memset(p, 0, size);
    free(s->data);
    s->data = p;
    s->size = size;
    return true;
}

/* takes threadgroups until none is left */
static void run_groups(dispatch_job *job, scratch *sc) {
    const en_launch *L = job->launch;
    void *tg_dynamic[EN_MAX_TG_BINDINGS];
    for (int i = 0; i < EN_MAX_TG_BINDINGS; i++)
        tg_dynamic[i] = L->threadgroup_memory[i] ? sc->data + job->tg_dynamic_offset[i] : NULL;
    cpu_group g;
    g.buffers = job->buffers;
    g.tg_dynamic = tg_dynamic;
    g.tg_static = sc->data + job->tg_static_offset;
    g.context = sc->data;
    for (int d = 0; d < 3; d++) {
        g.grid[d] = L->grid[d];
        g.groups[d] = L->groups[d];
        g.group_size[d] = L->group_size[d];
    }
    for (;;) {
        uint64_t index = atomic_fetch_add_explicit(&job->next_group, 1, memory_order_relaxed);
        if (index >= job->group_count) break;
        g.position[0] = (uint32_t)(index % L->groups[0]);
        g.position[1] = (uint32_t)(index / L->groups[0] % L->groups[1]);
        g.position[2] = (uint32_t)(index / ((uint64_t)L->groups[0] * L->groups[1]));
        for (int d = 0; d < 3; d++) {
            uint32_t size = L->group_size[d];
            if (L->by_threads) {
                uint64_t start = (uint64_t)g.position[d] * size;
                if (start + size > L->grid[d]) size = (uint32_t)(L->grid[d] - start);
            }
            g.size[d] = size;
        }
        if (job->check) { /* a checked kernel finds the runtime behind the group */
            cpu_check_group checked = {.group = g, .api = &cpu_check_hooks, .state = job->check};
            job->run(&checked.group);
        } else {
            job->run(&g);
        }
    }
}

static void *worker_main(void *arg) {
    cpu_pool *pool = arg;
    pthread_mutex_lock(&pool->lock);
    int self = -1;
    for (int i = 0; i < pool->thread_count; i++)
        if (pthread_equal(pool->threads[i], pthread_self())) self = i + 1;
    uint64_t seen = 0; /* the pool starts at generation 0; a dispatch may bump it before we run */
    for (;;) {
        while (!pool->quit && (pool->generation == seen || self > pool->wanted))
            pthread_cond_wait(&pool->wake, &pool->lock);
        if (pool->quit) break;
        seen = pool->generation;
        dispatch_job *job = pool->job;
        pthread_mutex_unlock(&pool->lock);
        if (self < 0) { /* started before threads[] was filled: look again */
            for (int i = 0; i < pool->thread_count; i++)
                if (pthread_equal(pool->threads[i], pthread_self())) self = i + 1;
        }
        if (self > 0 && scratch_reserve(&pool->scratch[self], job->scratch_bytes)) run_groups(job, &pool->scratch[self]);
        else atomic_store(&job->out_of_memory, true);
        pthread_mutex_lock(&pool->lock);
        if (--pool->busy == 0) pthread_cond_signal(&pool->done);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

static cpu_pool *pool_create(int executors) {
    cpu_pool *pool = calloc(1, sizeof *pool);
    if (!pool) return NULL;
    pool->scratch = calloc((size_t)executors, sizeof(scratch));
    pool->threads = calloc((size_t)(executors > 1 ? executors - 1 : 1), sizeof(pthread_t));
    if (!pool->scratch || !pool->threads) {
        free(pool->scratch);
        free(pool->threads);
        free(pool);
        return NULL;
    }
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->wake, NULL);
    pthread_cond_init(&pool->done, NULL);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 8u << 20); /* gang temporaries live on the stack */
    pthread_mutex_lock(&pool->lock); /* workers read threads[] under the lock */
    for (int i = 0; i < executors - 1; i++) {
        if (pthread_create(&pool->threads[i], &attr, worker_main, pool) != 0) break;
        pool->thread_count++;
    }
    pthread_mutex_unlock(&pool->lock);
    pthread_attr_destroy(&attr);
    return pool;
}

void cpu_pool_destroy(cpu_pool *pool) {
    if (!pool) return;
    pthread_mutex_lock(&pool->lock);
    pool->quit = true;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (int i = 0; i < pool->thread_count; i++) pthread_join(pool->threads[i], NULL);
    for (int i = 0; i < pool->thread_count + 1; i++) free(pool->scratch[i].data);
    pthread_mutex_destroy(&pool->lock);
    pthread_cond_destroy(&pool->wake);
    pthread_cond_destroy(&pool->done);
    free(pool->scratch);
    free(pool->threads);
    free(pool);
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static enigma_status check_launch(const cpu_kernel *k, const en_launch *L, en_buf *err) {
    uint64_t threads = (uint64_t)L->group_size[0] * L->group_size[1] * L->group_size[2];
    if (threads == 0) {
        en_buf_printf(err, "threads per threadgroup (%u, %u, %u) must be at least 1 in every dimension",
                      L->group_size[0], L->group_size[1], L->group_size[2]);
        return ENIGMA_ERROR_INVALID_ARGUMENT;
    }
    if (threads > k->max_threads) {
        en_buf_printf(err, "threads per threadgroup %u x %u x %u = %llu exceeds the kernel's maximum of %u",
                      L->group_size[0], L->group_size[1], L->group_size[2], (unsigned long long)threads,
                      k->max_threads);
        return ENIGMA_ERROR_LIMIT;
    }
    uint64_t tg = k->tg_static_bytes;
    for (int i = 0; i < EN_MAX_TG_BINDINGS; i++) tg += L->threadgroup_memory[i];
    if (tg > CPU_MAX_TG_MEMORY) {
        en_buf_printf(err, "threadgroup memory of %llu bytes (%llu static + %llu dynamic) exceeds the limit of %u bytes",
                      (unsigned long long)tg, (unsigned long long)k->tg_static_bytes,
                      (unsigned long long)(tg - k->tg_static_bytes), CPU_MAX_TG_MEMORY);
        return ENIGMA_ERROR_LIMIT;
    }
    return ENIGMA_OK;
}

enigma_status cpu_exec_dispatch(cpu_device *dev, en_program *p, en_launch *L, en_buf *err) {
    if (L->kernel_index < 0 || L->kernel_index >= p->kernel_count) {
        en_buf_printf(err, "kernel index %d out of range", L->kernel_index);
        return ENIGMA_ERROR_INVALID_ARGUMENT;
    }
    const cpu_kernel *k = &p->kernels[L->kernel_index];
    enigma_status st = check_launch(k, L, err);
    if (st != ENIGMA_OK) return st;
    uint64_t start = now_ns();
    dispatch_job job;
    memset(&job, 0, sizeof job);
    job.run = k->run;
    job.launch = L;
    job.group_count = (uint64_t)L->groups[0] * L->groups[1] * L->groups[2];
    atomic_init(&job.next_group, 0);
    atomic_init(&job.out_of_memory, false);
    for (int i = 0; i < EN_MAX_BINDINGS; i++) {
        cpu_buffer *b = L->buffers[i].handle;
        job.buffers[i] = b ? (char *)b->data + L->buffers[i].offset : NULL;
    }
    /* scratch layout: context | threadgroup variables | each [[threadgroup(n)]] */
    size_t offset = align_up(k->context_bytes, 64);
    job.context_bytes = k->context_bytes;
    job.tg_static_offset = offset;
    offset = align_up(offset + k->tg_static_bytes, 64);
    for (int i = 0; i < EN_MAX_TG_BINDINGS; i++) {
        job.tg_dynamic_offset[i] = offset;
        offset = align_up(offset + L->threadgroup_memory[i], 64);
    }
    job.scratch_bytes = offset + 64;
    if (job.group_count == 0) {
        L->duration_ns = 0;
        return ENIGMA_OK;
    }

    pthread_mutex_lock(&dev->lock);
    int helpers = dev->worker_count - 1;
    if ((uint64_t)helpers > job.group_count - 1) helpers = (int)(job.group_count - 1);
    if (!dev->pool) dev->pool = pool_create(dev->worker_count);
    cpu_pool *pool = dev->pool;
    if (!pool || !scratch_reserve(&pool->scratch[0], job.scratch_bytes)) {
        pthread_mutex_unlock(&dev->lock);
        en_buf_puts(err, "out of memory for threadgroup scratch");
        return ENIGMA_ERROR_OUT_OF_MEMORY;
    }
    if (helpers > pool->thread_count) helpers = pool->thread_count;
    if (p->checked) { /* the checking runtime's shadow state takes one threadgroup at a time */
        job.check = cpu_check_dispatch_new(L);
        if (!job.check) {
            pthread_mutex_unlock(&dev->lock);
            en_buf_puts(err, "out of memory for checked mode's state");
            return ENIGMA_ERROR_OUT_OF_MEMORY;
        }
        helpers = 0;
    }
    if (helpers > 0) {
        pthread_mutex_lock(&pool->lock);
        pool->job = &job;
        pool->wanted = helpers;
        pool->busy = helpers;
        pool->generation++;
        pthread_cond_broadcast(&pool->wake);
        pthread_mutex_unlock(&pool->lock);
    }
    run_groups(&job, &pool->scratch[0]);
    if (helpers > 0) {
        pthread_mutex_lock(&pool->lock);
        while (pool->busy > 0) pthread_cond_wait(&pool->done, &pool->lock);
        pool->job = NULL;
        pthread_mutex_unlock(&pool->lock);
    }
    pthread_mutex_unlock(&dev->lock);
    cpu_check_dispatch_free(job.check);
    L->duration_ns = now_ns() - start;
    if (atomic_load(&job.out_of_memory)) {
        /* the caller took every group a worker could not run, unless it had finished */
        if (atomic_load(&job.next_group) < job.group_count) {
            en_buf_puts(err, "out of memory for threadgroup scratch in a worker thread");
            return ENIGMA_ERROR_OUT_OF_MEMORY;
        }
    }
    return ENIGMA_OK;
}
