/* exec.c — running a dispatch: a pool of worker threads takes threadgroups from the grid.
 *
 * Needs: a program from jit.c and a launch checked by the runtime (we re-check limits).
 * Guarantees: every threadgroup of the grid runs exactly once, each on one OS thread from
 * start to end (so threadgroup memory and context arrays are that thread's scratch);
 * edge threadgroups of a dispatch by threads get their real size. Each executor owns one
 * contiguous slice of the grid's threadgroups (as an OpenMP static schedule would) and
 * takes runs of up to 64 of them per visit to its slice's atomic counter (fewer when the
 * grid is small); one whose slice is used up takes runs from the others' slices, so the
 * tail still balances and a worker that never starts loses nothing. A slice keeps each
 * worker on one stream of memory: handing out runs from one shared counter interleaved the
 * workers' runs, and a core that skips over the other's pages streams at about half speed
 * (the hardware prefetcher stops at each skip). The pool is created on the first dispatch
 * that can use it and reused, so a dispatch creates no threads; a one-threadgroup dispatch
 * runs on the caller without waking anyone. The calling thread always works too. */
#include "check_rt.h"
#include "cpu.h"
#include "fault.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* why a dispatch stopped before its last threadgroup (dispatch_job.stop) */
enum { STOP_NONE, STOP_FAULT, STOP_TIMEOUT, STOP_CANCELLED };

typedef struct dispatch_job {
    cpu_kernel_fn run;
    cpu_deferred_fn deferred; /* the kernel's summed atomic adds, zeroed and added per executor */
    const en_launch *launch;
    uint64_t group_count;
    uint64_t run_length;          /* threadgroups taken per visit to a slice */
    struct executor_share {       /* one cache line each: no false sharing */
        _Alignas(64) atomic_uint_fast64_t next; /* the slice's next unclaimed threadgroup */
        uint64_t end;                           /* one past the slice's last */
        atomic_uint_fast64_t started;           /* threadgroups this executor started (a stop's message) */
    } *shares;
    /* containment (fault.c): the first stop reason wins; a fault records where it was */
    atomic_int stop;
    int fault_signal;
    void *fault_address;
    uint32_t fault_group[3];
    /* the threads running this dispatch, so a stop can interrupt them: [0] the caller */
    int executor_count;
    pthread_t *executors;
    atomic_bool *executing;
    /* the time limit's watchdog */
    pthread_mutex_t watch_lock;
    pthread_cond_t watch_wake;
    bool finished;
    void *buffers[EN_MAX_BINDINGS];
    size_t context_bytes, tg_static_offset, tg_dynamic_offset[EN_MAX_TG_BINDINGS], scratch_bytes;
    cpu_check_dispatch **checks; /* checked programs: the checking runtime's state, per executor */
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

/* Ends the dispatch for `reason` unless it already stopped, and interrupts every executor
 * still inside a kernel (fault.c jumps them out). Any thread may call it. */
static void stop_job(dispatch_job *job, int reason) {
    int expected = STOP_NONE;
    if (!atomic_compare_exchange_strong(&job->stop, &expected, reason)) return;
    if (reason == STOP_FAULT) return; /* the others finish their threadgroup and stop */
    for (int i = 0; i < job->executor_count; i++)
        if (atomic_load(&job->executing[i])) pthread_kill(job->executors[i], cpu_interrupt_signal());
}

/* each executor's slice of the grid, as even as whole threadgroups allow (the first
 * group_count % executor_count slices have one more) */
static void cut_slices(dispatch_job *job) {
    uint64_t executors = (uint64_t)job->executor_count, first = 0;
    for (uint64_t i = 0; i < executors; i++) {
        job->shares[i].end = first + job->group_count / executors + (i < job->group_count % executors);
        atomic_init(&job->shares[i].next, first);
        atomic_init(&job->shares[i].started, 0);
        first = job->shares[i].end;
    }
}

/* the next run of threadgroups for `executor`, [*begin, *end): from its own slice while
 * that lasts, then from the others' in turn; false when every slice is used up. Not
 * inlined: its locals would then live in run_groups, across the sigsetjmp there. */
__attribute__((noinline)) static bool claim_run(dispatch_job *job, int executor, uint64_t *begin, uint64_t *end) {
    for (int k = 0; k < job->executor_count; k++) {
        struct executor_share *s = &job->shares[(executor + k) % job->executor_count];
        if (atomic_load_explicit(&s->next, memory_order_relaxed) >= s->end) continue;
        uint64_t first = atomic_fetch_add_explicit(&s->next, job->run_length, memory_order_relaxed);
        if (first >= s->end) continue;
        *begin = first;
        *end = s->end - first > job->run_length ? first + job->run_length : s->end;
        return true;
    }
    return false;
}

/* g->position for the threadgroup of linear index `index`: the one after *last by a carry
 * (groups run in runs of consecutive indices), any other by division (three 64-bit
 * divisions a group; the carry saved ~1 of 32 ns a group of the empty kernel) */
__attribute__((noinline)) static void place_group(cpu_group *g, const en_launch *L, uint64_t index, uint64_t *last) {
    if (*last != UINT64_MAX && index == *last + 1) {
        if (++g->position[0] == L->groups[0]) {
            g->position[0] = 0;
            if (++g->position[1] == L->groups[1]) {
                g->position[1] = 0;
                g->position[2]++;
            }
        }
    } else {
        g->position[0] = (uint32_t)(index % L->groups[0]);
        g->position[1] = (uint32_t)(index / L->groups[0] % L->groups[1]);
        g->position[2] = (uint32_t)(index / ((uint64_t)L->groups[0] * L->groups[1]));
    }
    *last = index;
}

/* takes threadgroups until none is left or the dispatch stops */
static void run_groups(dispatch_job *job, scratch *sc, int executor) {
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
    cpu_guard guard;
    memset(&guard, 0, sizeof guard);
    guard.stop = &job->stop;
    cpu_altstack_ensure(); /* so that a kernel's stack overflow is a contained fault */
    cpu_guard_enter(&guard);
    atomic_store(&job->executing[executor], true);
    if (job->deferred) job->deferred(&g, 0); /* this executor's sums start at zero */
    bool faulted = false;
    uint64_t index = 0, run_end = 0, last = UINT64_MAX;
    atomic_uint_fast64_t *started = &job->shares[executor].started; /* only this executor writes it */
    for (;;) {
        if (atomic_load_explicit(&job->stop, memory_order_relaxed)) break;
        if (index == run_end && !claim_run(job, executor, &index, &run_end)) break;
        atomic_store_explicit(started, atomic_load_explicit(started, memory_order_relaxed) + 1, memory_order_relaxed);
        place_group(&g, L, index, &last);
        for (int d = 0; d < 3; d++) {
            uint32_t size = L->group_size[d];
            if (L->by_threads) {
                uint64_t start = (uint64_t)g.position[d] * size;
                if (start + size > L->grid[d]) size = (uint32_t)(L->grid[d] - start);
            }
            g.size[d] = size;
        }
        if (sigsetjmp(guard.jump, 0) != 0) { /* out of the kernel: a fault or a stop */
            cpu_guard_recovered(guard.signal);
            faulted = true;
            if (guard.signal != cpu_interrupt_signal()) {
                int expected = STOP_NONE;
                if (atomic_compare_exchange_strong(&job->stop, &expected, STOP_FAULT)) {
                    job->fault_signal = guard.signal;
                    job->fault_address = guard.address;
                    memcpy(job->fault_group, g.position, sizeof g.position);
                }
            }
            break;
        }
        guard.armed = 1;
        if (job->checks) { /* a checked kernel finds the runtime behind the group */
            cpu_check_group checked = {.group = g, .api = &cpu_check_hooks, .state = job->checks[executor]};
            job->run(&checked.group);
        } else {
            job->run(&g);
        }
        guard.armed = 0;
        index++;
    }
    /* the threadgroups this executor ran, their adds at once (not after a fault or a stop
     * inside a threadgroup: its sums are then those of an unfinished group) */
    if (job->deferred && !faulted) job->deferred(&g, 1);
    atomic_store(&job->executing[executor], false);
    cpu_guard_leave();
}

/* the time limit: stops the job when its deadline passes first */
static void *watchdog_main(void *arg) {
    dispatch_job *job = arg;
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    uint64_t ns = (uint64_t)deadline.tv_nsec + job->launch->timeout_ns;
    deadline.tv_sec += (time_t)(ns / 1000000000u);
    deadline.tv_nsec = (long)(ns % 1000000000u);
    pthread_mutex_lock(&job->watch_lock);
    while (!job->finished)
        if (pthread_cond_timedwait(&job->watch_wake, &job->watch_lock, &deadline) == ETIMEDOUT) {
            if (!job->finished) stop_job(job, STOP_TIMEOUT);
            break;
        }
    pthread_mutex_unlock(&job->watch_lock);
    return NULL;
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
        if (self > 0 && scratch_reserve(&pool->scratch[self], job->scratch_bytes)) run_groups(job, &pool->scratch[self], self);
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

/* the threadgroups that had started (runs are claimed ahead, so not the slices' counters) */
static uint64_t started_groups(dispatch_job *job) {
    uint64_t n = 0;
    for (int i = 0; i < job->executor_count; i++) n += atomic_load(&job->shares[i].started);
    return n;
}

/* "N bytes past the end of buffer 'x' (buffer(i), S bytes)": where a faulting address lies
 * relative to the nearest bound buffer, when one is within reach */
static void describe_address(const dispatch_job *job, const char *a, en_buf *out) {
    const en_launch *L = job->launch;
    int best = -1;
    uint64_t best_distance = UINT64_MAX;
    const char *where = "";
    for (int i = 0; i < EN_MAX_BINDINGS; i++) {
        const cpu_buffer *b = L->buffers[i].handle;
        if (!b) continue;
        const char *lo = job->buffers[i], *hi = (const char *)b->data + b->size;
        uint64_t d = a < lo ? (uint64_t)(lo - a) : a >= hi ? (uint64_t)(a - hi) : 0;
        if (d < best_distance) {
            best = i;
            best_distance = d;
            where = a < lo ? "before the start of" : a >= hi ? "past the end of" : "inside";
        }
    }
    if (best < 0 || best_distance > (1ull << 40)) {
        en_buf_puts(out, ", not near any bound buffer");
        return;
    }
    const char *name = "?";
    for (int j = 0; j < L->kernel->param_count; j++) {
        const ir_var *v = L->kernel->params[j];
        if (v->param_kind == IR_PARAM_BUFFER && v->binding == best) name = v->name;
    }
    const cpu_buffer *b = L->buffers[best].handle;
    size_t visible = b->size - L->buffers[best].offset;
    if (strcmp(where, "inside") == 0)
        en_buf_printf(out, ", inside buffer '%s' (buffer(%d), %zu bytes) at byte %llu", name, best, visible,
                      (unsigned long long)(a - (const char *)job->buffers[best]));
    else
        en_buf_printf(out, ", %llu bytes %s buffer '%s' (buffer(%d), %zu bytes)",
                      (unsigned long long)best_distance + (a >= (const char *)job->buffers[best] ? 1 : 0) - 1,
                      where, name, best, visible);
}

static enigma_status report_fault(const dispatch_job *job, en_buf *err) {
    en_buf_printf(err, "the kernel faulted: %s", cpu_signal_name(job->fault_signal));
    if (job->fault_signal == SIGSEGV || job->fault_signal == SIGBUS) {
        en_buf_printf(err, " at address %p", job->fault_address);
        describe_address(job, job->fault_address, err);
    }
    en_buf_printf(err, ", in threadgroup (%u,%u,%u); the dispatch was stopped, and the process, the "
                       "device and later dispatches are unaffected",
                  job->fault_group[0], job->fault_group[1], job->fault_group[2]);
    return ENIGMA_ERROR_RUNTIME;
}

/* enigma_command_cancel: ends the device's running dispatch if it is `launch`'s */
bool cpu_exec_cancel(cpu_device *dev, const en_launch *launch) {
    pthread_mutex_lock(&dev->running_lock);
    if (dev->running && dev->running->launch == launch) stop_job(dev->running, STOP_CANCELLED);
    pthread_mutex_unlock(&dev->running_lock);
    return true;
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void free_checks(cpu_check_dispatch **checks, int count) {
    for (int i = 0; checks && i < count; i++) cpu_check_dispatch_free(checks[i]);
    free(checks);
}

/* checked mode's state for each of `count` executors (count is 1 unless `apart`) */
static cpu_check_dispatch **new_checks(const en_launch *L, int count, bool apart) {
    cpu_check_dispatch **checks = calloc((size_t)count, sizeof *checks);
    for (int i = 0; checks && i < count; i++)
        if (!(checks[i] = cpu_check_dispatch_new(L, apart))) {
            free_checks(checks, count);
            return NULL;
        }
    return checks;
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
    job.deferred = k->deferred;
    job.launch = L;
    job.group_count = (uint64_t)L->groups[0] * L->groups[1] * L->groups[2];
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
    /* the checking runtime's shadow state takes one threadgroup at a time: one executor,
     * or one state per executor where the kernel's groups share no checking state */
    if (p->checked && !k->check_apart) helpers = 0;
    /* containment: executor k is the caller (0) or pool->threads[k-1] */
    job.executor_count = helpers + 1;
    if (p->checked && !(job.checks = new_checks(L, job.executor_count, k->check_apart))) {
        pthread_mutex_unlock(&dev->lock);
        en_buf_puts(err, "out of memory for checked mode's state");
        return ENIGMA_ERROR_OUT_OF_MEMORY;
    }
    pthread_t few_executors[64]; /* no allocation per dispatch on machines of up to 64 cores */
    atomic_bool few_executing[64];
    struct executor_share few_shares[64];
    bool few = job.executor_count <= 64;
    job.executors = few ? few_executors : calloc((size_t)job.executor_count, sizeof *job.executors);
    job.executing = few ? few_executing : calloc((size_t)job.executor_count, sizeof *job.executing);
    job.shares = few ? few_shares : aligned_alloc(64, (size_t)job.executor_count * sizeof *job.shares);
    for (int i = 0; few && i < job.executor_count; i++) atomic_init(&few_executing[i], false);
    if (job.shares) cut_slices(&job);
    /* runs of up to 64 groups, at least 16 runs per executor so the tail still balances */
    job.run_length = job.group_count / ((uint64_t)job.executor_count * 16u);
    if (job.run_length < 1) job.run_length = 1;
    if (job.run_length > 64) job.run_length = 64;
    if (!job.executors || !job.executing || !job.shares || !cpu_fault_install()) {
        pthread_mutex_unlock(&dev->lock);
        if (!few) {
            free(job.executors);
            free((void *)job.executing);
            free(job.shares);
        }
        free_checks(job.checks, job.executor_count);
        en_buf_puts(err, job.executors && job.executing ? "the fault handlers could not be installed"
                                                          : "out of memory for the dispatch's executors");
        return job.executors && job.executing ? ENIGMA_ERROR_INTERNAL : ENIGMA_ERROR_OUT_OF_MEMORY;
    }
    job.executors[0] = pthread_self();
    for (int i = 1; i < job.executor_count; i++) job.executors[i] = pool->threads[i - 1];
    atomic_init(&job.stop, STOP_NONE);
    pthread_mutex_init(&job.watch_lock, NULL);
    pthread_condattr_t monotonic; /* the watchdog's deadline is on CLOCK_MONOTONIC */
    pthread_condattr_init(&monotonic);
    pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
    pthread_cond_init(&job.watch_wake, &monotonic);
    pthread_condattr_destroy(&monotonic);
    pthread_mutex_lock(&dev->running_lock);
    dev->running = &job;
    pthread_mutex_unlock(&dev->running_lock);
    pthread_t watchdog;
    bool watched = L->timeout_ns && pthread_create(&watchdog, NULL, watchdog_main, &job) == 0;

    if (helpers > 0) {
        pthread_mutex_lock(&pool->lock);
        pool->job = &job;
        pool->wanted = helpers;
        pool->busy = helpers;
        pool->generation++;
        pthread_cond_broadcast(&pool->wake);
        pthread_mutex_unlock(&pool->lock);
    }
    run_groups(&job, &pool->scratch[0], 0);
    if (helpers > 0) {
        pthread_mutex_lock(&pool->lock);
        while (pool->busy > 0) pthread_cond_wait(&pool->done, &pool->lock);
        pool->job = NULL;
        pthread_mutex_unlock(&pool->lock);
    }
    pthread_mutex_lock(&dev->running_lock); /* no cancel reaches this job from here on */
    dev->running = NULL;
    pthread_mutex_unlock(&dev->running_lock);
    if (watched) {
        pthread_mutex_lock(&job.watch_lock);
        job.finished = true;
        pthread_cond_signal(&job.watch_wake);
        pthread_mutex_unlock(&job.watch_lock);
        pthread_join(watchdog, NULL);
    }
    pthread_mutex_unlock(&dev->lock);
    char shortfall[256] = ""; /* checked mode that could not check everything says so */
    for (int i = 0; job.checks && i < job.executor_count && !shortfall[0]; i++) {
        const char *what = cpu_check_dispatch_shortfall(job.checks[i]);
        if (what) snprintf(shortfall, sizeof shortfall, "%s", what);
    }
    free_checks(job.checks, job.executor_count);
    pthread_mutex_destroy(&job.watch_lock);
    pthread_cond_destroy(&job.watch_wake);
    uint64_t started = started_groups(&job);
    if (!few) {
        free(job.executors);
        free((void *)job.executing);
        free(job.shares);
    }
    L->duration_ns = now_ns() - start;
    switch (atomic_load(&job.stop)) {
    case STOP_FAULT: return report_fault(&job, err);
    case STOP_TIMEOUT:
        en_buf_printf(err, "the dispatch ran past its time limit of %.3f s and was stopped (%llu of %llu "
                           "threadgroups had started); the device is usable, the buffers hold what the "
                           "kernel had written",
                      (double)L->timeout_ns / 1e9, (unsigned long long)started,
                      (unsigned long long)job.group_count);
        return ENIGMA_ERROR_TIMEOUT;
    case STOP_CANCELLED:
        en_buf_printf(err, "the dispatch was cancelled (%llu of %llu threadgroups had started); the device "
                           "is usable, the buffers hold what the kernel had written",
                      (unsigned long long)started, (unsigned long long)job.group_count);
        return ENIGMA_ERROR_CANCELLED;
    }
    if (shortfall[0]) {
        en_buf_printf(err, "checked mode ran out of memory for %s; the dispatch ran to the end and the buffers "
                           "hold its results, and the problems found are reported", shortfall);
        return ENIGMA_ERROR_OUT_OF_MEMORY;
    }
    if (atomic_load(&job.out_of_memory)) {
        /* the caller took every group a worker could not run, unless it had finished */
        if (started < job.group_count) {
            en_buf_puts(err, "out of memory for threadgroup scratch in a worker thread");
            return ENIGMA_ERROR_OUT_OF_MEMORY;
        }
    }
    return ENIGMA_OK;
}
