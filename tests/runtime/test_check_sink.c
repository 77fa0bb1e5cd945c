/* test_check_sink.c — the checked-mode sink on its own: many threads report at once,
 * events are deduplicated by kind and place with exact counts, each report keeps the
 * message of its earliest event in the dispatch's order (not of the first to arrive) and
 * the reports come out in that order, and the text has one line per place and a summary.
 * Uses the internal API (runtime.h) that backends and the command code use. */
#include <pthread.h>

#include "rt_test.h"
#include "runtime/runtime.h"

#define THREADS 8
#define PER_THREAD 5000

static en_check_sink *sink;

/* thread `id` plays threadgroup id; the highest ids start first, so that arrival order and
 * event order disagree */
static void *reporter(void *arg) {
    int id = (int)(intptr_t)arg;
    uint64_t event = (uint64_t)id << 24;
    for (int i = 0; i < PER_THREAD; i++) {
        /* every thread hits the same two places, and one place of its own once */
        en_check_report(sink, ENIGMA_CHECK_OUT_OF_BOUNDS, (en_loc){0, 3, 7}, event++, "index %d past the end of %d", i, id);
        if (i % 2 == 0)
            en_check_report(sink, ENIGMA_CHECK_DATA_RACE, (en_loc){0, 5, 1}, event++, "race by thread %d", id);
    }
    en_check_report(sink, ENIGMA_CHECK_DIVISION_BY_ZERO, (en_loc){0, 10 + id, 2}, event, "divide by zero %d", id);
    return NULL;
}

int main(void) {
    en_arena arena;
    en_arena_init(&arena);
    en_sources sources = {.arena = &arena};
    en_source_add(&sources, "k.metal", "x\n", 2);
    sink = en_check_sink_new(&sources);
    CHECK(sink != NULL);
    if (!sink) return rt_result("test_check_sink");
    CHECK(strcmp(en_check_sink_text(sink, "k"), "") == 0);

    pthread_t t[THREADS];
    for (int i = THREADS - 1; i >= 0; i--) pthread_create(&t[i], NULL, reporter, (void *)(intptr_t)i);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);

    CHECK(en_check_sink_count(sink) == 2 + THREADS);
    enigma_check_report r;
    bool found_oob = false, found_race = false;
    int zero_places = 0;
    for (int i = 0; i < en_check_sink_count(sink); i++) {
        CHECK(en_check_sink_get(sink, i, &r));
        CHECK(strcmp(r.file, "k.metal") == 0);
        if (r.kind == ENIGMA_CHECK_OUT_OF_BOUNDS) {
            found_oob = true;
            CHECK(r.count == (uint64_t)THREADS * PER_THREAD);
            CHECK(r.line == 3 && r.column == 7);
            CHECK(strcmp(r.kind_name, "out-of-bounds") == 0);
            CHECK(strcmp(r.message, "index 0 past the end of 0") == 0); /* the earliest is kept */
            CHECK(i == 0);
        } else if (r.kind == ENIGMA_CHECK_DATA_RACE) {
            found_race = true;
            CHECK(r.count == (uint64_t)THREADS * (PER_THREAD / 2));
            CHECK(strcmp(r.message, "race by thread 0") == 0);
            CHECK(i == 1);
        } else {
            CHECK(r.kind == ENIGMA_CHECK_DIVISION_BY_ZERO);
            CHECK(r.count == 1);
            char want[32]; /* in the order of their threads */
            snprintf(want, sizeof want, "divide by zero %d", zero_places);
            CHECK(strcmp(r.message, want) == 0 && r.line == 10 + zero_places);
            zero_places++;
        }
    }
    CHECK(found_oob && found_race && zero_places == THREADS);
    CHECK(!en_check_sink_get(sink, en_check_sink_count(sink), &r));

    const char *text = en_check_sink_text(sink, "reduce");
    char want[128];
    snprintf(want, sizeof want, "k.metal:3:7: error: out-of-bounds: index 0 past the end of 0 (%d times)\n",
             THREADS * PER_THREAD);
    CHECK(strncmp(text, want, strlen(want)) == 0);
    CHECK(strstr(text, "error: division-by-zero: divide by zero 3 (1 time)\n") != NULL);
    int lines = 0;
    for (const char *c = text; *c; c++) lines += *c == '\n';
    CHECK(lines == en_check_sink_count(sink) + 1); /* one per place, then the summary */
    snprintf(want, sizeof want, "checked mode: %d problems", 2 + THREADS);
    CHECK(strstr(text, want) != NULL);
    CHECK(strstr(text, "in kernel 'reduce'") != NULL);

    en_check_sink_clear(sink);
    CHECK(en_check_sink_count(sink) == 0);
    en_check_report(sink, ENIGMA_CHECK_OUT_OF_BOUNDS, (en_loc){-1, 0, 0}, 0, "no place");
    CHECK(en_check_sink_get(sink, 0, &r) && r.count == 1 && strcmp(r.file, "<unknown>") == 0);
    en_check_report(NULL, ENIGMA_CHECK_OUT_OF_BOUNDS, (en_loc){0, 1, 1}, 0, "ignored"); /* no sink: nothing */
    en_check_sink_free(sink);
    en_arena_free(&arena);
    return rt_result("test_check_sink");
}
