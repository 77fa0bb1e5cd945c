/* check_rt.c — checked mode's runtime: shadow memory and the detection logic behind the
 * hooks that checked generated code calls (check_rt.h lists them).
 *
 * Needs: threadgroups of one dispatch that run one at a time on the state (exec.c runs a
 * checked dispatch on one executor, or, for a kernel built with check_apart, gives each
 * executor a state of its own), every hook of a threadgroup between its group_begin and
 * the next group's.
 * Guarantees: each problem goes to the launch's sink (deduplicated there by kind and
 * place) with the threads, the object and index, and for a race the other access; an
 * access out of bounds is refused (the access hook leaves its lane out of the mask it
 * returns), so the run completes without touching memory it does not own.
 *
 * The ordering model (what counts as a data race). Every access is recorded with its
 * thread, threadgroup, the threadgroup's barrier epoch (barriers passed so far) and an
 * operation number (one per hook call, i.e. per memory operation of a SIMD group). Two
 * accesses to one byte by different threads, at least one a write and not both atomic,
 * are ordered — no race — when they come from the same threadgroup and
 *   - a threadgroup_barrier lies between them (epochs differ), or
 *   - both threads are lanes of one SIMD group and the accesses are different operations:
 *     the lanes of a SIMD group run in lockstep, so warp-synchronous code (lane 0 writes,
 *     a later statement reads it in another lane) is correct.
 * Two lanes of one SIMD group in the same operation (all lanes store to out[0]) race, and
 * a barrier orders only its own threadgroup. Threads of different threadgroups are ordered
 * only by fences (C++'s fence rules, which Metal's follow): thread A's accesses before a
 * release fence of device or system scope, itself before an atomic write W, happen before
 * thread B's accesses after an acquire fence that follows B's atomic read of W's value, or
 * of a value a chain of read-modify-writes built on it (W's release sequence). The model
 * keeps, per atomic location written after a release fence, the threadgroups whose
 * releases its value carries (its release sequence: each threadgroup with the version at
 * which it joined, so that a reader's snapshot of the location names exactly those that had
 * joined), per threadgroup its latest such release (the accesses before it — the same SIMD
 * group's earlier operations, or an earlier barrier epoch — are published), and for the
 * running threadgroup the snapshots it has acquired. Only the running threadgroup changes
 * any of it, so its snapshots stay exact while it runs; everything costs in proportion to
 * the releases made and the snapshots taken, not to the number of threadgroups.
 * A threadgroup's acquisitions are pooled over its threads, which can hide a race between
 * a thread that acquired nothing and a publisher, never invent one. Any barrier orders both threadgroup and device memory here (mem_flags are
 * not consulted: a false report costs more than a missed one).
 *
 * Shadow memory: per 4-byte cell, the last write and up to three reads that a later
 * write must be ordered after (FastTrack-like, with byte masks so that threads writing
 * neighbouring halves or bytes do not conflict). Read records are kept so that any
 * unordered reader can be found: the newest read, a read of another SIMD group in the same
 * threadgroup and epoch, and a read from an earlier threadgroup. Information that does not
 * fit is dropped, which can only hide a race, never invent one. Threadgroup memory
 * records carry their threadgroup, so a new threadgroup sees them as stale without any
 * clearing; per cell, the threadgroup that last wrote into it and which of its bytes it
 * wrote say whether this threadgroup wrote a byte: a read none of whose bytes this
 * threadgroup wrote is an uninitialized read. Buffers that the kernel only reads through
 * const pointers get bounds checks only: they cannot race. */
#include "check_rt.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REC_ATOMIC = 1 };
#define ENK_LANE_ON(m, l) (((m) >> (l)) & 1u)
#define ENK_FULL_MASK 0xffffffffu

typedef struct shadow_rec {
    const cpu_check_site *site; /* NULL: empty */
    uint32_t group;             /* threadgroup's linear index + 1 */
    uint32_t epoch;
    uint32_t op;
    uint16_t tid;               /* thread index in its threadgroup */
    uint8_t bytes;              /* which bytes of the cell */
    uint8_t flags;
} shadow_rec;

typedef struct shadow_cell {
    shadow_rec write;
    shadow_rec read;        /* the newest read */
    shadow_rec read_other;  /* same threadgroup and epoch as `read`, another SIMD group */
    shadow_rec read_old;    /* a read from another (earlier) threadgroup */
} shadow_cell;

typedef struct region {
    uintptr_t base;
    size_t size;
    bool threadgroup;  /* records of other threadgroups are stale; uninitialized reads */
    bool track;        /* race tracking */
    bool written;      /* some object of the kernel may write it (buffers) */
    shadow_cell *cells;
    size_t cell_count;
    /* threadgroup: per cell, the threadgroup that last wrote into it (written_group) and
     * which of its bytes that group wrote (written_bytes): a byte is this group's when both
     * say so (init_mark, init_any) */
    uint32_t *written_group;
    uint8_t *written_bytes;
    /* Threadgroup memory races only within one threadgroup's barrier epoch, so a cell's
     * records from earlier epochs can never conflict. Per cell: the stamp (the dispatch
     * state's epoch serial, cpu_check_dispatch.serial) of its newest access, and that
     * access itself in one word while it is the epoch's only one (lite_info, see
     * lite_word): the first access of an epoch to a cell, nearly every access, writes 12
     * bytes and tests nothing; a second access in the epoch first writes the short form
     * into the cell's records (expand_lite), as that access would have left them, then
     * is weighed. */
    uint32_t *stamp;
    uint64_t *lite_info;
    const char *name;
    int binding;
} region;

typedef struct resolved_object {
    uintptr_t base;
    size_t size;
    region *rg;
} resolved_object;

/* An atomic location's release sequence: the threadgroups whose releases its value carries.
 * A generation ends when a store outside the sequence overwrites the value (gen + 1); every
 * release added takes the next version, and a threadgroup's entry keeps the generation and
 * version at which it joined. */
typedef struct carrier {
    uint32_t group; /* 0: an empty slot */
    uint32_t gen, ver;
} carrier;

typedef struct release_seq {
    uintptr_t address;
    uint32_t gen, ver;
    uint32_t count;      /* releases in this generation */
    carrier *slots;      /* open addressing by group */
    uint32_t cap, used;
} release_seq;

/* what a reader saw: exactly the carriers of seq of generation gen with a version <= ver */
typedef struct seq_snapshot {
    const release_seq *seq;
    uint32_t gen, ver;
} seq_snapshot;

typedef struct snapshots {
    seq_snapshot *items;
    int count, cap;
} snapshots;

struct cpu_check_dispatch {
    const en_launch *launch;
    en_check_sink *sink;
    region buffers[EN_MAX_BINDINGS];
    region tg_static;
    region tg_dynamic[EN_MAX_TG_BINDINGS];
    bool first_group_done;
    bool out_of_memory;
    char shortfall[192];       /* what out_of_memory left unchecked, for the caller (first) */
    bool apart;                /* one of several states, one per worker: buffers untracked */
    /* the threadgroup now running */
    const cpu_group *g;
    uint32_t group, epoch, op;
    uint32_t serial;           /* epochs begun on this state (threadgroups and barriers), from 1:
                                * names the running epoch in region.stamp */
    /* lite_word keeps a site as its number here: by address (open addressing) and by number */
    struct site_slot { const cpu_check_site *site; uint32_t id; } *site_slots;
    const cpu_check_site **site_by_id;
    uint32_t site_count, site_cap, recent_id[2];
    const cpu_check_site *recent[2]; /* the last two sites numbered: a region's load and store */
    uint32_t events;           /* reports made by this threadgroup so far */
    const cpu_check_object *objects;
    int object_count;
    resolved_object *resolved;
    int resolved_cap;
    /* fences (see the ordering model): per threadgroup (index group - 1) its latest release */
    uint32_t group_count;
    struct release_point { uint32_t epoch, op; uint16_t tid; bool set; } *releases;
    snapshots acquired;        /* the running threadgroup's acquisitions */
    snapshots pending;         /* what its threads have read, before their acquire fence */
    uint8_t released_fence[CPU_MAX_THREADS]; /* thread ran a release fence */
    uint8_t read_release[CPU_MAX_THREADS];   /* thread read a released value */
    release_seq **seqs;        /* the atomic locations with releases, open addressing */
    size_t seq_count, seq_cap;
};

/* ---- threads and places in words ------------------------------------------------------ */
typedef struct thread_desc {
    char text[160];
} thread_desc;

/* "thread (x,y,z) of threadgroup (x,y,z)" for thread `tid` of group `group` */
static thread_desc describe_thread(const cpu_check_dispatch *d, uint32_t group, uint32_t tid) {
    thread_desc t;
    const en_launch *L = d->launch;
    uint32_t index = group - 1;
    uint32_t gp[3] = {index % L->groups[0], index / L->groups[0] % L->groups[1],
                      index / (L->groups[0] * L->groups[1])};
    /* the real size of that threadgroup (edge groups of a dispatch by threads are smaller) */
    uint32_t size[3];
    for (int k = 0; k < 3; k++) {
        size[k] = L->group_size[k];
        if (L->by_threads && (uint64_t)gp[k] * size[k] + size[k] > L->grid[k]) size[k] = L->grid[k] - gp[k] * size[k];
        if (size[k] == 0) size[k] = 1;
    }
    uint32_t lp[3] = {tid % size[0], tid / size[0] % size[1], tid / (size[0] * size[1])};
    snprintf(t.text, sizeof t.text, "thread (%u,%u,%u) of threadgroup (%u,%u,%u) [grid position (%u,%u,%u)]", lp[0],
             lp[1], lp[2], gp[0], gp[1], gp[2], gp[0] * L->group_size[0] + lp[0], gp[1] * L->group_size[1] + lp[1],
             gp[2] * L->group_size[2] + lp[2]);
    return t;
}

static en_loc site_loc(const cpu_check_site *s) { return (en_loc){.file = s->file, .line = s->line, .col = s->col}; }

/* a report's place in the dispatch (en_check_report): the threadgroup, then the order of
 * its reports, so that reports come out the same whichever workers ran which groups */
static uint64_t event_order(cpu_check_dispatch *d) {
    uint32_t event = d->events < 0xffffffu ? d->events++ : d->events;
    return (uint64_t)(d->group - 1) << 24 | event;
}

static const char *op_verb(uint16_t op) {
    switch (op) {
    case CPU_CHECK_LOAD: return "load";
    case CPU_CHECK_STORE: return "store";
    case CPU_CHECK_ATOMIC_LOAD: return "atomic load";
    case CPU_CHECK_ATOMIC_STORE: return "atomic store";
    case CPU_CHECK_ATOMIC_RMW: return "atomic read-modify-write";
    default: return "access";
    }
}

static bool op_reads(uint16_t op) {
    return op == CPU_CHECK_LOAD || op == CPU_CHECK_ATOMIC_LOAD || op == CPU_CHECK_ATOMIC_RMW;
}
static bool op_writes(uint16_t op) {
    return op == CPU_CHECK_STORE || op == CPU_CHECK_ATOMIC_STORE || op == CPU_CHECK_ATOMIC_RMW;
}
static bool op_atomic(uint16_t op) { return op >= CPU_CHECK_ATOMIC_LOAD && op <= CPU_CHECK_ATOMIC_RMW; }

static const char *space_name(uint16_t space) {
    switch (space) {
    case IR_SPACE_THREADGROUP: return "threadgroup";
    case IR_SPACE_CONSTANT: return "constant";
    case IR_SPACE_DEVICE: return "device";
    default: return "thread";
    }
}

/* ---- the dispatch --------------------------------------------------------------------- */
cpu_check_dispatch *cpu_check_dispatch_new(const en_launch *launch, bool apart) {
    cpu_check_dispatch *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->launch = launch;
    d->apart = apart;
    d->sink = launch->check;
    for (int i = 0; i < EN_MAX_BINDINGS; i++) {
        d->buffers[i].binding = i;
        d->buffers[i].size = launch->buffers[i].handle ? launch->buffers[i].size : 0;
    }
    d->tg_static.threadgroup = d->tg_static.track = true;
    d->tg_static.binding = -1;
    for (int i = 0; i < EN_MAX_TG_BINDINGS; i++) {
        region *r = &d->tg_dynamic[i];
        r->threadgroup = r->track = true;
        r->binding = i;
        r->size = launch->threadgroup_memory[i];
    }
    d->group_count = launch->groups[0] * launch->groups[1] * launch->groups[2];
    if (apart) return d; /* untracked buffers: no fence hand-off to follow (a state per executor) */
    d->releases = calloc(d->group_count ? d->group_count : 1, sizeof *d->releases);
    if (!d->releases) d->out_of_memory = true;
    return d;
}

static void region_free(region *r) {
    free(r->cells);
    free(r->written_group);
    free(r->written_bytes);
    free(r->stamp);
    free(r->lite_info);
    r->cells = NULL;
    r->written_group = NULL;
    r->written_bytes = NULL;
    r->stamp = NULL;
    r->lite_info = NULL;
}

void cpu_check_dispatch_free(cpu_check_dispatch *d) {
    if (!d) return;
    for (int i = 0; i < EN_MAX_BINDINGS; i++) region_free(&d->buffers[i]);
    for (int i = 0; i < EN_MAX_TG_BINDINGS; i++) region_free(&d->tg_dynamic[i]);
    region_free(&d->tg_static);
    free(d->resolved);
    free(d->site_slots);
    free(d->site_by_id);
    free(d->releases);
    free(d->acquired.items);
    free(d->pending.items);
    for (size_t i = 0; i < d->seq_cap; i++)
        if (d->seqs[i]) {
            free(d->seqs[i]->slots);
            free(d->seqs[i]);
        }
    free(d->seqs);
    free(d);
}

/* shadow storage on first use; false (and tracking off) when there is no memory for it */
static bool region_shadow(cpu_check_dispatch *d, region *r) {
    if (r->cells || r->size == 0) return r->cells != NULL;
    r->cell_count = (r->size + 3) / 4;
    r->cells = calloc(r->cell_count, sizeof *r->cells);
    if (r->threadgroup) {
        r->written_group = calloc(r->cell_count, sizeof *r->written_group);
        r->written_bytes = calloc(r->cell_count, sizeof *r->written_bytes);
        r->stamp = calloc(r->cell_count, sizeof *r->stamp);
        r->lite_info = calloc(r->cell_count, sizeof *r->lite_info);
    }
    if (!r->cells || (r->threadgroup && (!r->written_group || !r->written_bytes || !r->stamp || !r->lite_info))) {
        region_free(r);
        r->track = false;
        d->out_of_memory = true;
        if (!d->shortfall[0])
            snprintf(d->shortfall, sizeof d->shortfall, "the shadow of %s '%s' (%zu bytes for its %zu): it was not "
                     "checked for races%s", r->threadgroup ? "threadgroup memory" : "buffer", r->name ? r->name : "?",
                     r->cell_count * sizeof(shadow_cell) +
                         (r->threadgroup ? r->cell_count * (4 + 1 + 4 + sizeof(uint64_t)) : 0),
                     r->size,
                     r->threadgroup ? " or uninitialized reads" : "");
        return false;
    }
    return true;
}

const char *cpu_check_dispatch_shortfall(const cpu_check_dispatch *d) {
    if (!d || !d->out_of_memory) return NULL;
    return d->shortfall[0] ? d->shortfall : "checked mode's bookkeeping: some accesses were not checked for races";
}

/* a new epoch (a threadgroup's start, a barrier): a serial no stamp holds. After 2^32 of
 * them the stamps are cleared, so that an old one cannot pass for the new. */
static void clear_stamps(region *r) {
    if (r->stamp) memset(r->stamp, 0, r->cell_count * sizeof *r->stamp);
}

static void next_serial(cpu_check_dispatch *d) {
    if (++d->serial != 0) return;
    clear_stamps(&d->tg_static);
    for (int i = 0; i < EN_MAX_TG_BINDINGS; i++) clear_stamps(&d->tg_dynamic[i]);
    d->serial = 1;
}

static void hook_group_begin(void *state, const cpu_group *g, const cpu_check_object *objects, int count) {
    cpu_check_dispatch *d = state;
    const en_launch *L = d->launch;
    d->g = g;
    d->group = g->position[0] + g->position[1] * L->groups[0] + g->position[2] * L->groups[0] * L->groups[1] + 1;
    d->epoch = 0;
    next_serial(d);
    d->op = 0;
    d->events = 0;
    d->acquired.count = d->pending.count = 0;
    size_t threads = (size_t)g->size[0] * g->size[1] * g->size[2]; /* the flags of its threads */
    if (threads > sizeof d->released_fence) threads = sizeof d->released_fence;
    memset(d->released_fence, 0, threads);
    memset(d->read_release, 0, threads);
    d->objects = objects;
    d->object_count = count;
    if (count > d->resolved_cap) {
        resolved_object *r = realloc(d->resolved, sizeof *r * (size_t)count);
        if (!r) {
            d->object_count = 0;
            d->out_of_memory = true;
        } else {
            d->resolved = r;
            d->resolved_cap = count;
        }
    }
    for (int i = 0; i < EN_MAX_BINDINGS; i++) d->buffers[i].base = (uintptr_t)g->buffers[i];
    for (int i = 0; i < EN_MAX_TG_BINDINGS; i++) d->tg_dynamic[i].base = (uintptr_t)g->tg_dynamic[i];
    d->tg_static.base = (uintptr_t)g->tg_static;
    for (int i = 0; i < d->object_count; i++) {
        const cpu_check_object *o = &objects[i];
        resolved_object *r = &d->resolved[i];
        *r = (resolved_object){0};
        switch (o->kind) {
        case CPU_CHECK_OBJ_BUFFER:
            if (o->binding < 0 || o->binding >= EN_MAX_BINDINGS) break;
            r->rg = &d->buffers[o->binding];
            r->base = r->rg->base;
            r->size = r->rg->size;
            if (!d->first_group_done) {
                r->rg->name = o->name;
                if (!o->is_const) r->rg->written = true;
            }
            break;
        case CPU_CHECK_OBJ_TG_DYNAMIC:
            if (o->binding < 0 || o->binding >= EN_MAX_TG_BINDINGS) break;
            r->rg = &d->tg_dynamic[o->binding];
            r->base = r->rg->base;
            r->size = r->rg->size;
            if (!d->first_group_done) r->rg->name = o->name;
            break;
        case CPU_CHECK_OBJ_TG_STATIC:
            r->rg = &d->tg_static;
            r->base = d->tg_static.base + o->offset;
            r->size = o->size;
            if (!d->first_group_done && o->offset + o->size > d->tg_static.size) d->tg_static.size = o->offset + o->size;
            break;
        case CPU_CHECK_OBJ_CONSTANT:
            r->base = (uintptr_t)o->address;
            r->size = o->size;
            break;
        default: break;
        }
    }
    if (!d->first_group_done) {
        for (int i = 0; i < EN_MAX_BINDINGS; i++) d->buffers[i].track = d->buffers[i].written && !d->apart;
        d->first_group_done = true;
    }
}

/* ---- out of bounds -------------------------------------------------------------------- */
static const char *object_word(const cpu_check_object *o) {
    switch (o->kind) {
    case CPU_CHECK_OBJ_BUFFER: return "buffer";
    case CPU_CHECK_OBJ_TG_DYNAMIC: return "threadgroup memory";
    case CPU_CHECK_OBJ_TG_STATIC: return "threadgroup array";
    default: return "constant";
    }
}

static void report_oob(cpu_check_dispatch *d, const cpu_check_site *s, uint32_t tid, uintptr_t a, int object) {
    thread_desc t = describe_thread(d, d->group, tid);
    if (object < 0) {
        en_check_report(d->sink, ENIGMA_CHECK_OUT_OF_BOUNDS, site_loc(s), event_order(d),
                        "%s of %u bytes through '%s' at an address outside every buffer and threadgroup allocation "
                        "(the pointer walked off its object) — %s",
                        op_verb(s->op), s->size, s->what ? s->what : "?", t.text);
        return;
    }
    const cpu_check_object *o = &d->objects[object];
    const resolved_object *r = &d->resolved[object];
    int64_t offset = (int64_t)(a - r->base);
    uint32_t elem = s->size ? s->size : 1;
    int64_t index = offset >= 0 ? offset / elem : -((-offset + elem - 1) / elem);
    char where[64] = "";
    if (o->kind == CPU_CHECK_OBJ_BUFFER) snprintf(where, sizeof where, " (buffer(%d))", o->binding);
    if (o->kind == CPU_CHECK_OBJ_TG_DYNAMIC) snprintf(where, sizeof where, " (threadgroup(%d))", o->binding);
    en_check_report(d->sink, ENIGMA_CHECK_OUT_OF_BOUNDS, site_loc(s), event_order(d),
                    "%s of %u bytes at %s '%s'%s element %" PRId64 " (byte offset %" PRId64 "), but it has %zu bytes "
                    "(%zu elements) — %s; the %s was %s",
                    op_verb(s->op), s->size, object_word(o), o->name ? o->name : "?", where, index, offset, r->size,
                    r->size / elem, t.text, op_writes(s->op) ? "store" : "load",
                    op_writes(s->op) && !op_reads(s->op) ? "suppressed" : "given zero");
}

/* ---- races and uninitialized reads ---------------------------------------------------- */
static bool rec_live(const region *rg, const shadow_rec *r, uint32_t group) {
    return r->site && (!rg->threadgroup || r->group == group);
}

static bool seq_has(const seq_snapshot *snap, uint32_t group);

/* did p's threadgroup publish p by a release the running threadgroup has acquired? */
static bool published(const cpu_check_dispatch *d, const shadow_rec *p) {
    if (!p->group || p->group > d->group_count || !d->releases) return false;
    bool acquired = false;
    for (int i = 0; i < d->acquired.count && !acquired; i++) acquired = seq_has(&d->acquired.items[i], p->group);
    if (!acquired) return false;
    const struct release_point *r = &d->releases[p->group - 1];
    if (!r->set) return false;
    return p->epoch < r->epoch || (p->epoch == r->epoch && p->tid / 32 == r->tid / 32 && p->op < r->op);
}

/* does p happen before (or belong to the same thread as) the access x? */
static bool ordered(const cpu_check_dispatch *d, const shadow_rec *p, const shadow_rec *x) {
    if (p->group != x->group) return published(d, p);
    if (p->tid == x->tid) return true;
    if (p->epoch != x->epoch) return true;
    return p->tid / 32 == x->tid / 32 && p->op != x->op;
}

static bool conflicts_in_full(const cpu_check_dispatch *d, const region *rg, const shadow_rec *p,
                              const shadow_rec *x) {
    if (!rec_live(rg, p, x->group) || !(p->bytes & x->bytes)) return false;
    if ((p->flags & REC_ATOMIC) && (x->flags & REC_ATOMIC)) return false;
    return !ordered(d, p, x);
}

/* does the record p conflict with the access x? The tests that settle almost every access
 * come first, inline in the hot path (no record, another threadgroup's threadgroup memory,
 * an earlier barrier epoch, the same thread); conflicts_in_full weighs the rest */
static inline bool conflicts(const cpu_check_dispatch *d, const region *rg, const shadow_rec *p,
                             const shadow_rec *x) {
    if (!p->site) return false;
    if (p->group == x->group) {
        if (p->epoch != x->epoch || p->tid == x->tid) return false;
    } else if (rg->threadgroup) {
        return false;
    }
    return conflicts_in_full(d, rg, p, x);
}

/* ---- fences --------------------------------------------------------------------------- */
/* the release sequence of atomic location a; NULL when it has none (create: make an empty
 * one; NULL when out of memory) */
static release_seq *sequence_of(cpu_check_dispatch *d, uintptr_t a, bool create) {
    if (d->seq_cap)
        for (size_t i = (a / 4) % d->seq_cap;; i = (i + 1) % d->seq_cap) {
            if (!d->seqs[i]) break;
            if (d->seqs[i]->address == a) return d->seqs[i];
        }
    if (!create) return NULL;
    if ((d->seq_count + 1) * 2 > d->seq_cap) { /* grow: rehash into twice the slots */
        size_t cap = d->seq_cap ? d->seq_cap * 2 : 16;
        release_seq **seqs = calloc(cap, sizeof *seqs);
        if (!seqs) {
            d->out_of_memory = true;
            return NULL;
        }
        for (size_t i = 0; i < d->seq_cap; i++) {
            if (!d->seqs[i]) continue;
            size_t j = (d->seqs[i]->address / 4) % cap;
            while (seqs[j]) j = (j + 1) % cap;
            seqs[j] = d->seqs[i];
        }
        free(d->seqs);
        d->seqs = seqs;
        d->seq_cap = cap;
    }
    release_seq *q = calloc(1, sizeof *q);
    if (!q) {
        d->out_of_memory = true;
        return NULL;
    }
    q->address = a;
    size_t j = (a / 4) % d->seq_cap;
    while (d->seqs[j]) j = (j + 1) % d->seq_cap;
    d->seqs[j] = q;
    d->seq_count++;
    return q;
}

/* the slot of `group` in q, or the empty slot where it belongs (q->cap > 0) */
static carrier *carrier_slot(const release_seq *q, uint32_t group) {
    for (uint32_t i = group % q->cap;; i = (i + 1) % q->cap)
        if (q->slots[i].group == group || !q->slots[i].group) return &q->slots[i];
}

/* the running threadgroup's release joins q's sequence: as of the next version, unless it
 * is in this generation already */
static void seq_join(cpu_check_dispatch *d, release_seq *q, uint32_t group) {
    if ((q->used + 1) * 2 > q->cap) { /* grow: rehash into twice the slots */
        uint32_t cap = q->cap ? q->cap * 2 : 8;
        carrier *old = q->slots, *slots = calloc(cap, sizeof *slots);
        if (!slots) {
            d->out_of_memory = true;
            return;
        }
        uint32_t old_cap = q->cap;
        q->slots = slots;
        q->cap = cap;
        for (uint32_t i = 0; i < old_cap; i++)
            if (old[i].group) *carrier_slot(q, old[i].group) = old[i];
        free(old);
    }
    carrier *c = carrier_slot(q, group);
    if (c->group == group && c->gen == q->gen) return;
    if (!c->group) q->used++;
    *c = (carrier){.group = group, .gen = q->gen, .ver = ++q->ver};
    q->count++;
}

/* a store outside the sequence: the value carries no release any more */
static void seq_end(release_seq *q) {
    q->gen++;
    q->count = 0;
}

static bool seq_has(const seq_snapshot *snap, uint32_t group) {
    const release_seq *q = snap->seq;
    if (!q->cap) return false;
    const carrier *c = carrier_slot(q, group);
    return c->group == group && c->gen == snap->gen && c->ver <= snap->ver;
}

/* adds a snapshot to a set of them; of two of one sequence and generation the later holds
 * the earlier (a spinning reader adds nothing) */
static void snapshots_add(cpu_check_dispatch *d, snapshots *set, seq_snapshot snap) {
    for (int i = 0; i < set->count; i++)
        if (set->items[i].seq == snap.seq && set->items[i].gen == snap.gen) {
            if (snap.ver > set->items[i].ver) set->items[i].ver = snap.ver;
            return;
        }
    if (set->count == set->cap) {
        int cap = set->cap ? set->cap * 2 : 8;
        seq_snapshot *items = realloc(set->items, sizeof *items * (size_t)cap);
        if (!items) {
            d->out_of_memory = true;
            return;
        }
        set->items = items;
        set->cap = cap;
    }
    set->items[set->count++] = snap;
}

/* an atomic access of device memory by thread tid: a read takes a snapshot of the
 * releases its value carries (acquired at the thread's next acquire fence); a write after
 * a release fence publishes the thread's threadgroup up to here; a read-modify-write keeps
 * the value's releases (a release sequence), a plain store replaces them */
static void atomic_release_order(cpu_check_dispatch *d, const cpu_check_site *s, uint32_t tid, uintptr_t a) {
    if (!d->releases || tid >= CPU_MAX_THREADS) return;
    release_seq *q = sequence_of(d, a, false);
    if (op_reads(s->op) && q && q->count) {
        snapshots_add(d, &d->pending, (seq_snapshot){q, q->gen, q->ver});
        d->read_release[tid] = 1;
    }
    if (!op_writes(s->op)) return;
    bool releasing = d->released_fence[tid] != 0;
    if (!releasing) {
        if (q && s->op != CPU_CHECK_ATOMIC_RMW) seq_end(q);
        return;
    }
    if (!q && !(q = sequence_of(d, a, true))) return;
    if (s->op != CPU_CHECK_ATOMIC_RMW) seq_end(q);
    seq_join(d, q, d->group);
    d->releases[d->group - 1] = (struct release_point){.epoch = d->epoch, .op = d->op, .tid = (uint16_t)tid, .set = true};
}

static void hook_fence(void *state, const cpu_check_site *s, uint32_t sg, uint32_t mask, int order, int scope) {
    cpu_check_dispatch *d = state;
    (void)s;
    if (scope != IR_SCOPE_DEVICE && scope != IR_SCOPE_SYSTEM) return; /* orders nothing across threadgroups */
    bool releases = order == IR_ORDER_RELEASE || order == IR_ORDER_ACQ_REL || order == IR_ORDER_SEQ_CST;
    bool acquires = order == IR_ORDER_CONSUME || order == IR_ORDER_ACQUIRE || order == IR_ORDER_ACQ_REL ||
                    order == IR_ORDER_SEQ_CST;
    for (uint32_t m = mask; m; m &= m - 1) {
        uint32_t tid = sg * 32 + (uint32_t)__builtin_ctz(m);
        if (tid >= CPU_MAX_THREADS) continue;
        if (releases) d->released_fence[tid] = 1;
        if (acquires && d->read_release[tid])
            for (int i = 0; i < d->pending.count; i++) snapshots_add(d, &d->acquired, d->pending.items[i]);
    }
}

static void report_race(cpu_check_dispatch *d, const region *rg, const cpu_check_site *s, const shadow_rec *x,
                        const shadow_rec *p, uintptr_t a) {
    thread_desc me = describe_thread(d, x->group, x->tid), other = describe_thread(d, p->group, p->tid);
    uint32_t elem = s->size ? s->size : 1;
    size_t offset = a - rg->base;
    const char *why = p->group != x->group ? "threads of different threadgroups: no fence hand-off orders them"
                      : p->tid / 32 == x->tid / 32 ? "two lanes of one SIMD group in the same operation"
                                                    : "no threadgroup_barrier between them";
    en_check_report(d->sink, ENIGMA_CHECK_DATA_RACE, site_loc(s), event_order(d),
                    "%s of %s '%s' element %zu (byte offset %zu) by %s conflicts with the %s of it at line %d:%d "
                    "by %s (%s)",
                    op_verb(s->op), space_name(s->space), rg->name ? rg->name : (s->what ? s->what : "?"),
                    offset / elem, offset, me.text, op_verb(p->site->op), p->site->line,
                    p->site->col, other.text, why);
}

static void report_uninit(cpu_check_dispatch *d, const region *rg, const cpu_check_site *s, uint32_t tid, uintptr_t a) {
    thread_desc me = describe_thread(d, d->group, tid);
    uint32_t elem = s->size ? s->size : 1;
    size_t offset = a - rg->base;
    en_check_report(d->sink, ENIGMA_CHECK_UNINITIALIZED_READ, site_loc(s), event_order(d),
                    "%s of threadgroup memory '%s' element %zu (byte offset %zu) that this threadgroup never wrote — %s",
                    op_verb(s->op), s->what ? s->what : (rg->name ? rg->name : "?"), offset / elem, offset, me.text);
}

/* the lanes' addresses of one access: an array, or (access_run) first + l * step */
typedef struct lane_addrs {
    const uintptr_t *addr;
    uintptr_t first;
    uint32_t step;
} lane_addrs;

static inline uintptr_t lane_address(const lane_addrs *L, int l) {
    return L->addr ? L->addr[l] : L->first + (uintptr_t)l * L->step;
}

/* A conflicting plain store is benign when it writes the bytes the other access left or
 * saw (`found = true` from many threads): the outcome does not depend on the order. The
 * location holds the earlier write's value, unless that write is a lane of this same
 * operation (the hook runs before the store): then compare with that lane's value. */
static bool same_value_store(const cpu_check_site *s, const shadow_rec *p, const shadow_rec *x, uintptr_t a,
                             const lane_addrs *lanes, const char *values) {
    if (!values) return false;
    const char *mine = values + (size_t)(x->tid % 32) * s->size;
    if (p->op == x->op && p->group == x->group && p->tid / 32 == x->tid / 32)
        return lane_address(lanes, p->tid % 32) == a &&
               memcmp(values + (size_t)(p->tid % 32) * s->size, mine, s->size) == 0;
    return memcmp((const void *)a, mine, s->size) == 0;
}

/* The short form of an access (region.lite_info): bit 0 set (pending), bit 1 a store,
 * bits 2-12 the thread (left 0 here for the caller to add), bits 13-31 the site's number
 * (site_number), bits 32-63 the operation. False when the site cannot be numbered. */
enum { LITE_STORE = 2, LITE_TID_SHIFT = 2, LITE_SITE_SHIFT = 13, LITE_MAX_SITES = 1 << 19 };

/* a site's slot to start probing at in a table of `cap` (a power of 2) slots */
static uint32_t site_hash(const cpu_check_site *s, uint32_t cap) {
    return (uint32_t)(((uintptr_t)s >> 3) * 0x9E3779B1u) & (cap - 1);
}

/* s's number on this state, given on first sight; false when out of memory or numbers */
static bool site_number(cpu_check_dispatch *d, const cpu_check_site *s, uint32_t *id) {
    for (int i = 0; i < 2; i++)
        if (s == d->recent[i]) { /* a tree level, a tile copy: the same two sites in turn */
            *id = d->recent_id[i];
            return true;
        }
    if (2 * (d->site_count + 1) > d->site_cap) { /* grow: at most half full */
        uint32_t cap = d->site_cap ? 2 * d->site_cap : 64;
        struct site_slot *slots = calloc(cap, sizeof *slots);
        const cpu_check_site **by_id = realloc(d->site_by_id, cap / 2 * sizeof *by_id);
        if (!slots || !by_id || d->site_count >= LITE_MAX_SITES) {
            free(slots);
            if (by_id) d->site_by_id = by_id;
            return false;
        }
        d->site_by_id = by_id;
        for (uint32_t i = 0; i < d->site_cap; i++) {
            if (!d->site_slots[i].site) continue;
            uint32_t h = site_hash(d->site_slots[i].site, cap);
            while (slots[h].site) h = (h + 1) & (cap - 1);
            slots[h] = d->site_slots[i];
        }
        free(d->site_slots);
        d->site_slots = slots;
        d->site_cap = cap;
    }
    uint32_t h = site_hash(s, d->site_cap);
    while (d->site_slots[h].site && d->site_slots[h].site != s) h = (h + 1) & (d->site_cap - 1);
    if (!d->site_slots[h].site) {
        d->site_slots[h] = (struct site_slot){s, d->site_count};
        d->site_by_id[d->site_count++] = s;
    }
    d->recent[1] = d->recent[0];
    d->recent_id[1] = d->recent_id[0];
    d->recent[0] = s;
    *id = d->recent_id[0] = d->site_slots[h].id;
    return true;
}

static inline bool lite_word(cpu_check_dispatch *d, const cpu_check_site *s, bool writes, uint64_t *word) {
    uint32_t id;
    if (!site_number(d, s, &id)) return false;
    *word = (uint64_t)d->op << 32 | (uint64_t)id << LITE_SITE_SHIFT | (writes ? LITE_STORE : 0) | 1u;
    return true;
}

/* threadgroup memory: the epoch's one access to cell c so far, kept short (lite_word),
 * written into the cell's records as cell_access would have left them (the records it found
 * were all of earlier epochs: stale) */
static void expand_lite(const cpu_check_dispatch *d, region *rg, size_t c, uint32_t group, uint32_t epoch) {
    uint64_t info = rg->lite_info[c];
    shadow_cell *cell = &rg->cells[c];
    shadow_rec r = {.site = d->site_by_id[(info >> LITE_SITE_SHIFT) & (LITE_MAX_SITES - 1)],
                    .group = group,
                    .epoch = epoch,
                    .op = (uint32_t)(info >> 32),
                    .tid = (uint16_t)((info >> LITE_TID_SHIFT) & 0x7ffu),
                    .bytes = 0xf};
    if (info & LITE_STORE) {
        cell->write = r;
        cell->read.site = cell->read_old.site = NULL;
    } else {
        cell->read = r;
    }
    cell->read_other.site = NULL;
}

/* one cell's part of an access: looks for a conflict with the cell's last write and, for a
 * write, its reads (the first found is reported unless it is a benign same-value store),
 * then records x in the cell. Returns whether it reported. */
static inline __attribute__((always_inline)) bool cell_access(cpu_check_dispatch *d, region *rg, shadow_cell *cell,
                                                              const cpu_check_site *s, const shadow_rec *x,
                                                              bool writes, bool reported, uintptr_t a,
                                                              const lane_addrs *lanes, const char *values) {
    if (rg->stamp) { /* threadgroup memory: the epoch's first access may still be in short form */
        size_t c = (size_t)(cell - rg->cells);
        if (rg->stamp[c] == d->serial && (rg->lite_info[c] & 1)) expand_lite(d, rg, c, x->group, x->epoch);
        rg->lite_info[c] = 0;
        rg->stamp[c] = d->serial;
    }
    if (!reported && conflicts(d, rg, &cell->write, x)) {
        if (!same_value_store(s, &cell->write, x, a, lanes, values)) report_race(d, rg, s, x, &cell->write, a);
        reported = true;
    }
    if (writes) {
        /* the three reads spelled out: a loop over pointers to them costs a fifth of a checked
         * access */
        const shadow_rec *read = reported ? NULL
                                 : conflicts(d, rg, &cell->read, x)       ? &cell->read
                                 : conflicts(d, rg, &cell->read_other, x) ? &cell->read_other
                                 : conflicts(d, rg, &cell->read_old, x)   ? &cell->read_old
                                                                          : NULL;
        if (read) {
            if (!same_value_store(s, read, x, a, lanes, values)) report_race(d, rg, s, x, read, a);
            reported = true;
        }
        cell->write = *x;
        /* earlier reads are ordered before this write or were just reported */
        cell->read.site = cell->read_other.site = cell->read_old.site = NULL;
        return reported;
    }
    shadow_rec *r = &cell->read;
    if (!rec_live(rg, r, x->group)) {
        *r = *x;
        cell->read_other.site = NULL;
    } else if (r->group == x->group && r->epoch == x->epoch) {
        if (r->tid / 32 != x->tid / 32 &&
            (!rec_live(rg, &cell->read_other, x->group) || cell->read_other.group != x->group ||
             cell->read_other.epoch != x->epoch))
            cell->read_other = *x;
    } else if (r->group == x->group) {
        *r = *x; /* a later epoch of this threadgroup: older reads are ordered before it */
        cell->read_other.site = NULL;
    } else {
        cell->read_old = *r;
        *r = *x;
        cell->read_other.site = NULL;
    }
    return reported;
}

/* threadgroup memory's written bytes (region.written_group, written_bytes): cell c's part
 * of the bytes [off, off + size), as the cell's byte mask */
static inline uint8_t cell_bytes(size_t c, size_t off, size_t size) {
    size_t lo = c * 4 > off ? c * 4 : off, hi = c * 4 + 4 < off + size ? c * 4 + 4 : off + size;
    return (uint8_t)(((1u << (hi - lo)) - 1u) << (lo - c * 4));
}

/* the running threadgroup (`group`) writes the bytes [off, off + size) */
static void init_mark(region *rg, size_t off, size_t size, uint32_t group) {
    for (size_t c = off / 4; c <= (off + size - 1) / 4; c++) {
        uint8_t bytes = cell_bytes(c, off, size);
        if (rg->written_group[c] != group) { /* an earlier group's bytes are not this one's */
            rg->written_group[c] = group;
            rg->written_bytes[c] = bytes;
        } else {
            rg->written_bytes[c] |= bytes;
        }
    }
}

/* has `group` written any of the bytes [off, off + size)? */
static bool init_any(const region *rg, size_t off, size_t size, uint32_t group) {
    for (size_t c = off / 4; c <= (off + size - 1) / 4; c++)
        if (rg->written_group[c] == group && (rg->written_bytes[c] & cell_bytes(c, off, size))) return true;
    return false;
}

/* records one lane's in-bounds access in the region's shadow; addr and values are the
 * hook's (values: NULL unless a plain store) */
static void shadow_access(cpu_check_dispatch *d, region *rg, const cpu_check_site *s, uint32_t tid, uintptr_t a,
                          const lane_addrs *lanes, const char *values) {
    size_t off = a - rg->base, size = s->size ? s->size : 1;
    if (off + size > rg->size) return;
    if (!region_shadow(d, rg)) return;
    bool reads = op_reads(s->op), writes = op_writes(s->op);
    if (rg->threadgroup) {
        /* uninitialized when no byte of it was written: a float3 stored by component
         * leaves its padding unwritten, and a whole-vector load of it is still fine */
        if (reads && !init_any(rg, off, size, d->group)) report_uninit(d, rg, s, tid, a);
        if (writes) init_mark(rg, off, size, d->group);
    }
    shadow_rec x = {.site = s, .group = d->group, .epoch = d->epoch, .op = d->op, .tid = (uint16_t)tid,
                    .flags = op_atomic(s->op) ? REC_ATOMIC : 0};
    if (op_atomic(s->op) && !rg->threadgroup) atomic_release_order(d, s, tid, a);
    bool reported = false;
    for (size_t c = off / 4; c <= (off + size - 1) / 4 && c < rg->cell_count; c++) {
        x.bytes = cell_bytes(c, off, size);
        reported = cell_access(d, rg, &rg->cells[c], s, &x, writes, reported, a, lanes, values);
    }
}

/* `body` for each cell i of [0, n): loops of 32 cells and then of 8, whose constant counts
 * -O2 vectorises whole, then the rest one at a time (a tree's levels under 32 cells were
 * all scalar) */
#define FOR_CELLS(i, n, body)                                                                        \
    do {                                                                                             \
        uint32_t i##_32 = (n) / 32 * 32, i##_8 = (n) / 8 * 8;                                        \
        for (uint32_t i##_c = 0; i##_c < i##_32; i##_c += 32)                                        \
            for (uint32_t i##_k = 0; i##_k < 32; i##_k++) {                                          \
                uint32_t i = i##_c + i##_k;                                                          \
                body;                                                                                \
            }                                                                                        \
        for (uint32_t i##_c = i##_32; i##_c < i##_8; i##_c += 8)                                     \
            for (uint32_t i##_k = 0; i##_k < 8; i##_k++) {                                           \
                uint32_t i = i##_c + i##_k;                                                          \
                body;                                                                                \
            }                                                                                        \
        for (uint32_t i = i##_8; i < (n); i++) {                                                     \
            body;                                                                                    \
        }                                                                                            \
    } while (0)

/* Threadgroup memory: threads tid0 .. tid0 + n - 1 at consecutive cells, thread t's at
 * start + 4 (t - tid0), each thread's access operation op0 + t / 32 - tid0 / 32 (the
 * threads lie in one SIMD group, or are whole SIMD groups from a multiple of 32). When no
 * cell has an access of this epoch yet (the common case: a tree level's stores, a tile's
 * loads), each thread's access is its cell's first of the epoch and is kept short, in loops
 * over 32 cells at a time that vectorise; false (nothing done) otherwise. */
static inline __attribute__((always_inline)) bool first_in_epoch_cells(cpu_check_dispatch *d, region *rg,
                                                                       const cpu_check_site *s, uintptr_t start,
                                                                       uint32_t tid0, uint32_t n, uint32_t op0,
                                                                       bool writes) {
    uint32_t id;
    if (!site_number(d, s, &id)) return false;
    size_t c0 = (start - rg->base) / 4;
    const uint32_t now = d->serial, group = d->group;
    /* restrict: distinct arrays, so gcc vectorises without overlap tests (-O2 makes none) */
    uint32_t *__restrict stamp = rg->stamp + c0, *__restrict wgroup = rg->written_group + c0;
    uint8_t *__restrict wbytes = rg->written_bytes + c0;
    uint64_t *__restrict lite = rg->lite_info + c0;
    uint32_t seen = 0;
    FOR_CELLS(i, n, seen |= stamp[i] == now);
    if (seen) return false;
    if (writes) {
        FOR_CELLS(i, n, wgroup[i] = group);
        memset(wbytes, 0xf, n);
    } else {
        /* cells none of whose bytes this threadgroup wrote: a write leaves its group with at
         * least one byte, so those of another group; counted first (a count vectorises, a
         * mask of bits does not) */
        uint32_t unwritten = 0;
        FOR_CELLS(i, n, unwritten += wgroup[i] != group);
        for (uint32_t i = 0; unwritten && i < n; i++)
            if (wgroup[i] != group) report_uninit(d, rg, s, tid0 + i, start + (uintptr_t)i * 4u);
    }
    FOR_CELLS(i, n, stamp[i] = now);
    /* lane k of SIMD group g: op0 + g in the op field, tid0 + 32 g + k in the thread's; a
     * chunk's first word, then 64-bit steps (no widening) */
    uint64_t word = (uint64_t)id << LITE_SITE_SHIFT | (writes ? LITE_STORE : 0) | 1u;
#define LITE_CHUNK(c) (word | (uint64_t)(op0 + (c) / 32) << 32 | (uint64_t)(tid0 + (c)) << LITE_TID_SHIFT)
    uint32_t full = n / 32 * 32, eights = n / 8 * 8, c = 0;
    for (; c < full; c += 32)
        for (uint64_t k = 0; k < 32; k++) lite[c + k] = LITE_CHUNK(c) + (k << LITE_TID_SHIFT);
    for (; c < eights; c += 8)
        for (uint64_t k = 0; k < 8; k++) lite[c + k] = LITE_CHUNK(c) + (k << LITE_TID_SHIFT);
    for (; c < n; c++) lite[c] = LITE_CHUNK(c);
#undef LITE_CHUNK
    return true;
}

/* lanes l0 .. l0 + n - 1 of SIMD group sg, every one active, lane l's cell at first + 4 l,
 * in the operation check_access has just numbered (an AVX2 copy too: see span_at_once) */
static __attribute__((target_clones("avx2", "default"))) bool first_in_epoch_run(cpu_check_dispatch *d, region *rg,
                                                                                  const cpu_check_site *s, uint32_t sg,
                                                                                  uintptr_t first, int l0, int n,
                                                                                  bool writes) {
    /* a whole SIMD group with n a constant: loops of a fixed count, which vectorise fully */
    if (n == 32) return first_in_epoch_cells(d, rg, s, first, sg * 32, 32, d->op, writes);
    return first_in_epoch_cells(d, rg, s, first + (uintptr_t)l0 * 4u, sg * 32 + (uint32_t)l0, (uint32_t)n, d->op,
                                writes);
}

/* shadow_access for the lanes of one operation that are all in bounds, when each lane's
 * access is one whole cell (a 4-byte load or store, not atomic, at a multiple of 4 from
 * the region's start: most of what kernels do): the same records and reports, without
 * the per-lane work that the general case needs. */
static bool shadow_access_cells(cpu_check_dispatch *d, region *rg, const cpu_check_site *s, uint32_t sg,
                                uint32_t mask, const lane_addrs *lanes, const char *values, uintptr_t low_bits) {
    if (s->size != 4 || (s->op != CPU_CHECK_LOAD && s->op != CPU_CHECK_STORE) || (low_bits | rg->base) % 4 != 0)
        return false;
    if (!region_shadow(d, rg)) return true;
    bool writes = s->op == CPU_CHECK_STORE;
    const uintptr_t *addr = lanes->addr; /* copies the stores below cannot be taken to change */
    uintptr_t first = lanes->first;
    if (rg->threadgroup && !addr) { /* consecutive lanes: the active ones one run (a tree level's lid < s)? */
        int l0 = __builtin_ctz(mask);
        uint32_t run = mask >> l0;
        if ((run & (run + 1)) == 0 && first_in_epoch_run(d, rg, s, sg, first, l0, 32 - __builtin_clz(run), writes))
            return true;
    }
    shadow_rec x = {.site = s, .group = d->group, .epoch = d->epoch, .op = d->op, .bytes = 0xf};
    const uint32_t now = d->serial;
    uint64_t info = 0;
    const bool short_form = rg->threadgroup && lite_word(d, s, writes, &info);
    for (uint32_t m = mask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        uintptr_t a = addr ? addr[l] : first + (uintptr_t)l * 4u;
        size_t off = a - rg->base;
        x.tid = (uint16_t)(sg * 32 + (uint32_t)l);
        if (rg->threadgroup) {
            size_t c = off / 4;
            uint32_t group = d->group;
            if (writes) {
                rg->written_group[c] = group;
                rg->written_bytes[c] = 0xf;
            } else if (rg->written_group[c] != group) {
                report_uninit(d, rg, s, x.tid, a);
            }
            if (short_form && rg->stamp[c] != now) { /* the epoch's first access to the cell: kept short */
                rg->stamp[c] = now;
                rg->lite_info[c] = info | (uint64_t)x.tid << LITE_TID_SHIFT;
                continue;
            }
        }
        cell_access(d, rg, &rg->cells[off / 4], s, &x, writes, false, a, lanes, values);
    }
    return true;
}

/* which object (and region) holds [a, a+size); -1 when none does */
static int find_object(cpu_check_dispatch *d, uintptr_t a, uint32_t size, bool *inside) {
    for (int i = 0; i < d->object_count; i++) {
        const resolved_object *r = &d->resolved[i];
        if (a >= r->base && a - r->base < r->size) {
            *inside = a - r->base + size <= r->size;
            return i;
        }
    }
    *inside = false;
    return -1;
}

/* the access hook, for lanes at addresses `lanes` (consecutive when it has no array: then
 * the gang's lowest and highest addresses are its first and last active lanes') */
static uint32_t check_access(cpu_check_dispatch *d, const cpu_check_site *s, uint32_t sg, uint32_t mask,
                             const lane_addrs *lanes, const void *values) {
    if (!mask) return 0;
    if (d->out_of_memory && d->object_count == 0) return mask; /* no object table: check nothing */
    d->op++;
    uint32_t ok = 0, size = s->size;
    const uintptr_t *addr = lanes->addr;
    if (s->object >= 0 && s->object < d->object_count) {
        const resolved_object *r = &d->resolved[s->object];
        region *rg = r->rg && r->rg->track ? r->rg : NULL;
        /* one range test for the gang; lane by lane only when it fails. low_bits: the
         * addresses' low bits together (all aligned when its low bits are clear) */
        uintptr_t lo = lane_address(lanes, __builtin_ctz(mask)), hi = lo, low_bits = 0;
        if (!addr) {
            hi = lane_address(lanes, 31 - __builtin_clz(mask));
            low_bits = lanes->first | lanes->step;
        } else if (mask == 0xffffffffu) {
            for (int l = 0; l < 32; l++) {
                lo = addr[l] < lo ? addr[l] : lo;
                hi = addr[l] > hi ? addr[l] : hi;
                low_bits |= addr[l];
            }
        } else {
            for (uint32_t m = mask; m; m &= m - 1) {
                uintptr_t a = addr[__builtin_ctz(m)];
                lo = a < lo ? a : lo;
                hi = a > hi ? a : hi;
                low_bits |= a;
            }
        }
        if (lo >= r->base && r->size >= size && hi - r->base <= r->size - size) {
            if (!rg) return mask; /* bounds only: read-only buffers, constants */
            ok = mask;
        } else {
            for (uint32_t m = mask; m; m &= m - 1) {
                int l = __builtin_ctz(m);
                uintptr_t a = lane_address(lanes, l);
                if (a < r->base || a - r->base > r->size || r->size - (a - r->base) < size) {
                    report_oob(d, s, sg * 32 + (uint32_t)l, a, s->object);
                    continue;
                }
                ok |= 1u << l;
            }
        }
        /* then the shadow, of the lanes that may touch memory */
        if (rg && ok && !(r->base >= rg->base && r->base - rg->base + r->size <= rg->size &&
                          shadow_access_cells(d, rg, s, sg, ok, lanes, values, low_bits)))
            for (uint32_t m = ok; m; m &= m - 1) {
                int l = __builtin_ctz(m);
                shadow_access(d, rg, s, sg * 32 + (uint32_t)l, lane_address(lanes, l), lanes, values);
            }
        return ok;
    }
    for (uint32_t m = mask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        uintptr_t a = lane_address(lanes, l);
        bool inside;
        int object = find_object(d, a, size, &inside);
        if (!inside) {
            report_oob(d, s, sg * 32 + (uint32_t)l, a, object);
            continue;
        }
        ok |= 1u << l;
        region *rg = d->resolved[object].rg;
        if (rg && rg->track) shadow_access(d, rg, s, sg * 32 + (uint32_t)l, a, lanes, values);
    }
    return ok;
}

static uint32_t hook_access(void *state, const cpu_check_site *s, uint32_t sg, uint32_t mask, const uintptr_t *addr,
                            const void *values) {
    lane_addrs lanes = {addr, 0, 0};
    return check_access(state, s, sg, mask, &lanes, values);
}

static uint32_t hook_access_run(void *state, const cpu_check_site *s, uint32_t sg, uint32_t mask, uintptr_t first,
                                const void *values) {
    lane_addrs lanes = {NULL, first, s->size};
    return check_access(state, s, sg, mask, &lanes, values);
}

/* A whole span at consecutive addresses, every thread of it in bounds, in one pass: a
 * buffer the kernel only reads needs nothing more; threadgroup memory none of whose cells
 * has an access of this epoch yet keeps each thread's access short (first_in_epoch_cells,
 * the operation numbered per SIMD group as the region code's hooks number them). False
 * when the span needs the SIMD-group path (nothing done then). */
/* (target_clones: the library is built for any x86-64, and the cell loops run in 256-bit
 * vectors where the CPU has AVX2, picked once at load time: callgrind of checked seed 003,
 * span_at_once 100 M -> 74 M instructions) */
static __attribute__((target_clones("avx2", "default"))) bool span_at_once(cpu_check_dispatch *d,
                                                                            const cpu_check_site *s, uint32_t lo,
                                                                            uint32_t hi, uintptr_t first, uint8_t *ok) {
    uint32_t size = s->size, n = hi - lo, nsg = (hi - 1) / 32 - lo / 32 + 1;
    if ((s->op != CPU_CHECK_LOAD && s->op != CPU_CHECK_STORE) || size == 0 || s->object < 0 ||
        s->object >= d->object_count || (d->out_of_memory && d->object_count == 0))
        return false;
    const resolved_object *r = &d->resolved[s->object];
    uintptr_t end = first + (uintptr_t)n * size; /* one past the last byte */
    if (first < r->base || end < first || end - r->base > r->size) return false;
    region *rg = r->rg && r->rg->track ? r->rg : NULL;
    /* threadgroup memory: SIMD groups whole from the first (lo a multiple of 32) */
    if (rg && (!rg->threadgroup || size != 4 || lo % 32 != 0 || (first | rg->base) % 4 != 0 || r->base < rg->base ||
               r->base - rg->base + r->size > rg->size || !region_shadow(d, rg) ||
               !first_in_epoch_cells(d, rg, s, first, lo, n, d->op + 1, s->op == CPU_CHECK_STORE)))
        return false;
    d->op += nsg; /* rg NULL: bounds only (read-only buffers, constants) */
    memset(ok + lo, 1, n);
    return true;
}

/* wide mode: the span's threads SIMD group by SIMD group, as the region code's hooks see
 * them (one operation each); a SIMD group's active lanes at consecutive addresses take the
 * run form, whose tests are O(1) and whose threadgroup-memory cells go in vector loops */
static int hook_access_span(void *state, const cpu_check_site *s, uint32_t lo, uint32_t hi, const uint8_t *set,
                            const uintptr_t *addr, int consecutive, const void *values, uint8_t *ok) {
    cpu_check_dispatch *d = state;
    uint32_t size = s->size;
    if (lo >= hi) return 1;
    if (consecutive && !set && span_at_once(d, s, lo, hi, addr[lo], ok)) return 1;
    int all = 1;
    for (uint32_t sg = lo / 32; sg * 32 < hi; sg++) {
        uint32_t t0 = sg * 32;
        /* the span's lanes of this SIMD group: [max(lo, t0), min(hi, t0 + 32)) */
        uint32_t first = lo > t0 ? lo - t0 : 0, end = hi - t0 < 32 ? hi - t0 : 32;
        uint32_t mask = (end == 32 ? ENK_FULL_MASK : (1u << end) - 1u) & ~((1u << first) - 1u);
        if (set)
            for (uint32_t l = first; l < end; l++) mask &= ~((uint32_t)(set[t0 + l] == 0) << l);
        if (!mask) continue;
        const uintptr_t *a = addr + t0;
        /* consecutive: lane l's address is lane 0's (of the run) + l * size */
        bool run = consecutive && size != 0;
        lane_addrs lanes = {run ? NULL : a, run ? addr[lo] + (uintptr_t)(t0 - lo) * size : 0, run ? size : 0};
        const char *v = values ? (const char *)values + (size_t)t0 * size : NULL;
        uint32_t k = check_access(d, s, sg, mask, &lanes, v);
        if (k == ENK_FULL_MASK) {
            memset(ok + t0, 1, 32);
        } else {
            for (uint32_t m = mask; m; m &= m - 1) {
                int l = __builtin_ctz(m);
                ok[t0 + (uint32_t)l] = (uint8_t)((k >> l) & 1u);
            }
        }
        all &= k == mask;
    }
    return all;
}

/* ---- barriers ------------------------------------------------------------------------- */
static uint32_t group_threads(const cpu_check_dispatch *d) {
    return d->g->size[0] * d->g->size[1] * d->g->size[2];
}
static uint32_t lanes_of(uint32_t n, uint32_t sg) {
    return n - sg * 32u >= 32u ? 0xffffffffu : (1u << (n - sg * 32u)) - 1u;
}

/* the library is built for any x86-64, where __builtin_popcount is a call */
static uint32_t lane_count(uint32_t m) {
    m = m - ((m >> 1) & 0x55555555u);
    m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
    return (((m + (m >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

static void hook_barrier(void *state, const cpu_check_site *s, const uint32_t *arrived, const uint32_t *returned,
                         uint32_t nsg) {
    cpu_check_dispatch *d = state;
    /* one pass without an early exit (a barrier every thread reaches is the common case;
     * the first missing thread is looked for only when some lane is missing) */
    uint32_t n = group_threads(d), any = 0, missing_any = 0;
    for (uint32_t sg = 0; sg < nsg; sg++) {
        any |= arrived[sg];
        missing_any |= lanes_of(n, sg) & ~returned[sg] & ~arrived[sg];
    }
    if (!any) return; /* no thread is here: the generated code passes by a barrier no one reached */
    uint32_t missing_tid = UINT32_MAX;
    for (uint32_t sg = 0; missing_any && sg < nsg && missing_tid == UINT32_MAX; sg++) {
        uint32_t missing = lanes_of(n, sg) & ~returned[sg] & ~arrived[sg];
        if (missing) missing_tid = sg * 32 + (uint32_t)__builtin_ctz(missing);
    }
    if (missing_tid != UINT32_MAX) { /* counted only for the report */
        uint32_t arriving = 0, running = 0;
        for (uint32_t sg = 0; sg < nsg; sg++) {
            uint32_t alive = lanes_of(n, sg) & ~returned[sg];
            arriving += lane_count(arrived[sg] & alive);
            running += lane_count(alive);
        }
        thread_desc t = describe_thread(d, d->group, missing_tid);
        en_check_report(d->sink, ENIGMA_CHECK_BARRIER_DIVERGENCE, site_loc(s), event_order(d),
                        "threadgroup_barrier reached by %u of the %u threads of the threadgroup that have not "
                        "returned; %s (among %u) does not reach it",
                        arriving, running, t.text, running - arriving);
    }
    d->epoch++;
    next_serial(d);
}

static void hook_simd_barrier(void *state, const cpu_check_site *s, uint32_t sg, uint32_t mask, uint32_t returned) {
    cpu_check_dispatch *d = state;
    if (!mask) return;
    uint32_t alive = lanes_of(group_threads(d), sg) & ~returned;
    uint32_t missing = alive & ~mask;
    if (!missing) return;
    thread_desc t = describe_thread(d, d->group, sg * 32 + (uint32_t)__builtin_ctz(missing));
    en_check_report(d->sink, ENIGMA_CHECK_BARRIER_DIVERGENCE, site_loc(s), event_order(d),
                    "simdgroup_barrier reached by %d of the %d lanes of SIMD group %u that have not returned; %s "
                    "does not reach it",
                    __builtin_popcount(mask & alive), __builtin_popcount(alive), sg, t.text);
}

/* ---- SIMD lanes and division ---------------------------------------------------------- */
static void hook_lane(void *state, const cpu_check_site *s, uint32_t sg, int lane, int64_t source, int why) {
    cpu_check_dispatch *d = state;
    thread_desc t = describe_thread(d, d->group, sg * 32 + (uint32_t)lane);
    if (why == CPU_CHECK_LANE_OUT_OF_RANGE)
        en_check_report(d->sink, ENIGMA_CHECK_INACTIVE_LANE, site_loc(s), event_order(d),
                        "%s asks for lane %" PRId64 ", outside the SIMD group's lanes 0..31 (the result is "
                        "undefined) — %s",
                        s->what ? s->what : "simd function", source, t.text);
    else
        en_check_report(d->sink, ENIGMA_CHECK_INACTIVE_LANE, site_loc(s), event_order(d),
                        "%s in lane %d of SIMD group %u reads lane %" PRId64 ", which is not active here (the result "
                        "is undefined) — %s",
                        s->what ? s->what : "simd function", lane, sg, source, t.text);
}

static void hook_div_zero(void *state, const cpu_check_site *s, uint32_t sg, int lane) {
    cpu_check_dispatch *d = state;
    thread_desc t = describe_thread(d, d->group, sg * 32 + (uint32_t)lane);
    en_check_report(d->sink, ENIGMA_CHECK_DIVISION_BY_ZERO, site_loc(s), event_order(d), "integer %s by zero — %s (the result is 0)",
                    s->op == CPU_CHECK_REM ? "remainder" : "division", t.text);
}

/* ---- indices into thread memory ------------------------------------------------------- */
static void hook_index(void *state, const cpu_check_site *s, uint32_t sg, int lane, uint64_t index, int is_signed,
                       uint64_t length) {
    cpu_check_dispatch *d = state;
    thread_desc t = describe_thread(d, d->group, sg * 32 + (uint32_t)lane);
    char value[32];
    if (is_signed) snprintf(value, sizeof value, "%" PRId64, (int64_t)index);
    else snprintf(value, sizeof value, "%" PRIu64, index);
    en_check_report(d->sink, ENIGMA_CHECK_OUT_OF_BOUNDS, site_loc(s), event_order(d),
                    "%s of %u bytes at thread %s index %s, but it has %" PRIu64 " elements (0..%" PRIu64
                    ") — %s; the %s was %s",
                    op_verb(s->op), s->size, s->what ? s->what : "array", value, length, length ? length - 1 : 0, t.text,
                    op_writes(s->op) ? "store" : "load", op_writes(s->op) ? "suppressed" : "given zero");
}

const cpu_check_api cpu_check_hooks = {
    .group_begin = hook_group_begin,
    .access = hook_access,
    .barrier = hook_barrier,
    .simd_barrier = hook_simd_barrier,
    .lane = hook_lane,
    .div_zero = hook_div_zero,
    .fence = hook_fence,
    .index = hook_index,
    .access_run = hook_access_run,
    .access_span = hook_access_span,
};
