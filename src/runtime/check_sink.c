/* check_sink.c — where checked-mode events land during a dispatch.
 *
 * Backends call en_check_report from many worker threads at once; a mutex keeps the table
 * consistent. Events are deduplicated by kind and source position, counting repeats and
 * keeping one message, so a faulting loop yields one report with its count rather than
 * millions of lines. Each event carries its place in the dispatch's own order (its
 * threadgroup's linear index, then its order within the threadgroup): a report keeps the
 * message of its earliest event and the reports are read in that order, so that workers
 * running threadgroups in whatever order give the same reports as one worker running
 * them in turn. (Past EN_CHECK_MAX_ENTRIES places, which new places are dropped depends on
 * arrival.) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

/* A dispatch that faults everywhere must not grow without bound: past this many
 * distinct places, further new places are only counted. */
#define EN_CHECK_MAX_ENTRIES 4096

struct en_check_sink {
    pthread_mutex_t lock;
    const en_sources *sources;
    en_check_entry *entries; /* in order of first sight */
    int count, cap;
    int *slots;              /* open addressing: entry index + 1, 0 = empty */
    int slot_count;          /* a power of two, at least twice count */
    uint64_t dropped;        /* events at places past EN_CHECK_MAX_ENTRIES */
    bool out_of_order;       /* entries arrived out of event order: sort before reading */
    char *text;
};

en_check_sink *en_check_sink_new(const en_sources *sources) {
    en_check_sink *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    pthread_mutex_init(&s->lock, NULL);
    s->sources = sources;
    return s;
}

void en_check_sink_clear(en_check_sink *s) {
    if (!s) return;
    for (int i = 0; i < s->count; i++) free(s->entries[i].message);
    s->count = 0;
    s->dropped = 0;
    s->out_of_order = false;
    if (s->slots) memset(s->slots, 0, sizeof *s->slots * (size_t)s->slot_count);
    free(s->text);
    s->text = NULL;
}

void en_check_sink_free(en_check_sink *s) {
    if (!s) return;
    en_check_sink_clear(s);
    free(s->entries);
    free(s->slots);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static uint64_t place_hash(enigma_check_kind kind, en_loc loc) {
    int32_t key[4] = {(int32_t)kind, loc.file, loc.line, loc.col};
    return en_hash64(key, sizeof key, 0x9e3779b97f4a7c15ull);
}

static bool same_place(const en_check_entry *e, enigma_check_kind kind, en_loc loc) {
    return e->kind == kind && e->loc.file == loc.file && e->loc.line == loc.line && e->loc.col == loc.col;
}

/* the slot holding (kind, loc), or the empty slot where it belongs */
static int find_slot(const en_check_sink *s, enigma_check_kind kind, en_loc loc) {
    int mask = s->slot_count - 1;
    for (int i = (int)(place_hash(kind, loc) & (uint64_t)mask);; i = (i + 1) & mask) {
        int e = s->slots[i];
        if (e == 0 || same_place(&s->entries[e - 1], kind, loc)) return i;
    }
}

/* the slots of the entries as they now stand, in empty slots */
static void index_entries(en_check_sink *s) {
    for (int i = 0; i < s->count; i++) s->slots[find_slot(s, s->entries[i].kind, s->entries[i].loc)] = i + 1;
}

static bool grow(en_check_sink *s) {
    if (s->count == s->cap) {
        int cap = s->cap ? s->cap * 2 : 16;
        en_check_entry *e = realloc(s->entries, sizeof *e * (size_t)cap);
        if (!e) return false;
        s->entries = e;
        s->cap = cap;
    }
    if ((s->count + 1) * 2 > s->slot_count) {
        int n = s->slot_count ? s->slot_count * 2 : 64;
        int *slots = calloc((size_t)n, sizeof *slots);
        if (!slots) return false;
        free(s->slots);
        s->slots = slots;
        s->slot_count = n;
        index_entries(s);
    }
    return true;
}

void en_check_report(en_check_sink *s, enigma_check_kind kind, en_loc loc, uint64_t order, const char *fmt, ...) {
    if (!s) return;
    pthread_mutex_lock(&s->lock);
    en_check_entry *e = NULL;
    if (s->slot_count) {
        int slot = find_slot(s, kind, loc);
        if (s->slots[slot]) {
            e = &s->entries[s->slots[slot] - 1];
            e->count++;
            if (order >= e->order) {
                pthread_mutex_unlock(&s->lock);
                return;
            }
        }
    }
    if (!e && (s->count >= EN_CHECK_MAX_ENTRIES || !grow(s))) {
        s->dropped++;
        pthread_mutex_unlock(&s->lock);
        return;
    }
    en_buf msg = {0};
    va_list ap;
    va_start(ap, fmt);
    en_buf_vprintf(&msg, fmt, ap);
    va_end(ap);
    if (e) { /* an earlier event than the one this report kept */
        free(e->message);
        e->message = en_buf_take(&msg);
        e->order = order;
        s->out_of_order = true;
    } else {
        if (s->count && order < s->entries[s->count - 1].order) s->out_of_order = true;
        s->entries[s->count] = (en_check_entry){.kind = kind, .loc = loc, .message = en_buf_take(&msg), .count = 1,
                                                .order = order};
        s->count++;
        s->slots[find_slot(s, kind, loc)] = s->count;
    }
    free(s->text);
    s->text = NULL;
    pthread_mutex_unlock(&s->lock);
}

/* the entries in event order (stable: equal orders keep their arrival order, which within
 * one threadgroup is program order) */
static void put_in_order(en_check_sink *s) {
    if (!s->out_of_order) return;
    for (int i = 1; i < s->count; i++) {
        en_check_entry e = s->entries[i];
        int j = i;
        for (; j > 0 && s->entries[j - 1].order > e.order; j--) s->entries[j] = s->entries[j - 1];
        s->entries[j] = e;
    }
    memset(s->slots, 0, sizeof *s->slots * (size_t)s->slot_count);
    index_entries(s);
    s->out_of_order = false;
}

int en_check_sink_count(const en_check_sink *s) { return s ? s->count : 0; }

const char *en_check_kind_name(enigma_check_kind k) {
    switch (k) {
    case ENIGMA_CHECK_OUT_OF_BOUNDS: return "out-of-bounds";
    case ENIGMA_CHECK_DATA_RACE: return "data-race";
    case ENIGMA_CHECK_BARRIER_DIVERGENCE: return "barrier-divergence";
    case ENIGMA_CHECK_UNINITIALIZED_READ: return "uninitialized-read";
    case ENIGMA_CHECK_INACTIVE_LANE: return "inactive-lane";
    case ENIGMA_CHECK_DIVISION_BY_ZERO: return "division-by-zero";
    }
    return "unknown-check";
}

static const char *file_name(const en_check_sink *s, en_loc loc) {
    if (s->sources && loc.file >= 0 && loc.file < s->sources->files.count)
        return s->sources->files.items[loc.file].name;
    return "<unknown>";
}

bool en_check_sink_get(en_check_sink *s, int i, enigma_check_report *out) {
    if (!s || i < 0 || i >= s->count) return false;
    put_in_order(s);
    const en_check_entry *e = &s->entries[i];
    *out = (enigma_check_report){
        .kind = e->kind,
        .kind_name = en_check_kind_name(e->kind),
        .file = file_name(s, e->loc),
        .line = e->loc.line,
        .column = e->loc.col,
        .message = e->message ? e->message : "",
        .count = e->count,
    };
    return true;
}

const char *en_check_sink_text(en_check_sink *s, const char *kernel) {
    if (!s || s->count == 0) return "";
    put_in_order(s);
    if (s->text) return s->text;
    en_buf b = {0};
    uint64_t events = s->dropped;
    for (int i = 0; i < s->count; i++) {
        const en_check_entry *e = &s->entries[i];
        events += e->count;
        en_buf_printf(&b, "%s:%d:%d: error: %s: %s (%llu time%s)\n", file_name(s, e->loc), e->loc.line, e->loc.col,
                      en_check_kind_name(e->kind), e->message ? e->message : "", (unsigned long long)e->count,
                      e->count == 1 ? "" : "s");
    }
    if (s->dropped)
        en_buf_printf(&b, "(%llu more event%s at places past the first %d not shown)\n", (unsigned long long)s->dropped,
                      s->dropped == 1 ? "" : "s", EN_CHECK_MAX_ENTRIES);
    en_buf_printf(&b, "checked mode: %d problem%s (%llu event%s) in kernel '%s'\n", s->count, s->count == 1 ? "" : "s",
                  (unsigned long long)events, events == 1 ? "" : "s", kernel ? kernel : "?");
    s->text = en_buf_take(&b);
    return s->text ? s->text : "";
}
