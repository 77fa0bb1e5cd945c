/* diag.c — diagnostics collected during a compile, rendered on request.
 * Format (chibicc's): FILE:LINE:COL: error: message, then the line and a caret. */
#include "base.h"

#include <stdio.h>
#include <string.h>

void en_diag_add(en_diags *d, en_severity sev, en_loc loc, const char *fmt, va_list ap) {
    int limit = d->max_errors ? d->max_errors : 100;
    if (sev == EN_ERROR && d->errors >= limit) {
        d->errors++;
        return;
    }
    en_buf b = {0};
    en_buf_vprintf(&b, fmt, ap);
    en_diag g = {.severity = sev, .loc = loc, .message = en_strdup(d->arena, b.data ? b.data : "")};
    en_buf_free(&b);
    EN_PUSH(d->arena, d->items, g);
    if (sev == EN_ERROR) d->errors++;
    if (sev == EN_WARNING) d->warnings++;
}

#define DIAG_FN(name, sev)                                                                 \
    void name(en_diags *d, en_loc loc, const char *fmt, ...) {                             \
        va_list ap;                                                                        \
        va_start(ap, fmt);                                                                 \
        en_diag_add(d, sev, loc, fmt, ap);                                                 \
        va_end(ap);                                                                        \
    }
DIAG_FN(en_error, EN_ERROR)
DIAG_FN(en_warning, EN_WARNING)
DIAG_FN(en_note, EN_NOTE)

static const char *severity_name(en_severity s) {
    return s == EN_ERROR ? "error" : s == EN_WARNING ? "warning" : "note";
}

void en_diag_render(const en_diags *d, const en_diag *g, en_buf *out) {
    const en_sources *s = d->sources;
    bool located = s && g->loc.file >= 0 && g->loc.file < s->files.count;
    if (located)
        en_buf_printf(out, "%s:%d:%d: ", s->files.items[g->loc.file].name, g->loc.line,
                      g->loc.col);
    en_buf_printf(out, "%s: %s\n", severity_name(g->severity), g->message);
    int len;
    const char *line = located ? en_source_line(s, g->loc.file, g->loc.line, &len) : NULL;
    if (!line) return;
    en_buf_printf(out, "  %.*s\n  ", len, line);
    /* the caret sits under the column; tabs in the line are kept so it lines up */
    for (int i = 0; i < g->loc.col - 1 && i < len; i++) en_buf_putc(out, line[i] == '\t' ? '\t' : ' ');
    en_buf_puts(out, "^\n");
}

void en_diags_render(const en_diags *d, en_buf *out) {
    for (int i = 0; i < d->items.count; i++) en_diag_render(d, &d->items.items[i], out);
    int limit = d->max_errors ? d->max_errors : 100;
    if (d->errors > limit) en_buf_printf(out, "too many errors (%d); the rest are not shown\n", d->errors);
}
