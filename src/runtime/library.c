/* library.c — MSL source to a library: the front end (en_compile) and, with a device,
 * the device's backend build.
 *
 * Each library owns one en_ctx: its arena holds the sources, the diagnostics and the IR,
 * and is freed with the library. A library with compile errors is still handed back so
 * that the caller can read its diagnostics (as data and as rendered text).
 *
 * The front end always runs over the whole file, once. The backend build is one build of
 * every kernel for a library of a few kernels (one C compiler or NVRTC run, one cache
 * entry), and one build per kernel, when its first pipeline is created, for a library of
 * many: a kernel library such as ggml's (689 kernels, 116 MB of generated C) is used a few
 * kernels at a time, and building all of it up front would take many minutes.
 *
 * Building every kernel of such a library (`enigma compile`, a host that wants no build at
 * its first dispatch) goes by batches instead: several kernels in one program
 * (enigma_library_build_kernels, enigma_library_build_offline_kernels), so that what each
 * build costs whatever its size (starting the compiler, reading the prelude, loading the
 * result: about 0.1 s of gcc's CPU time, more in wall time on a busy machine) is paid once
 * per batch.
 * enigma_library_plan_batches cuts the batches. The lazy path stays one kernel per program:
 * a host that makes one pipeline should wait for one kernel, not for the 15 others of its
 * batch. A kernel built earlier in a batch is still found: the backends leave an alias from
 * each kernel's own cache key to its batch's entry (src/base/cache.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "input_key.h"
#include "runtime.h"

static enigma_severity public_severity(en_severity s) {
    return s == EN_ERROR ? ENIGMA_SEVERITY_ERROR : s == EN_WARNING ? ENIGMA_SEVERITY_WARNING
                                                                    : ENIGMA_SEVERITY_NOTE;
}

/* copies the context's diagnostics into the public form and renders their text */
static bool collect_diagnostics(enigma_library *lib) {
    const en_diags *d = &lib->ctx.diags;
    lib->diag_count = d->items.count;
    if (d->items.count) {
        lib->diags = calloc((size_t)d->items.count, sizeof *lib->diags);
        if (!lib->diags) return false;
    }
    const en_sources *s = &lib->ctx.sources;
    for (int i = 0; i < d->items.count; i++) {
        const en_diag *g = &d->items.items[i];
        bool located = g->loc.file >= 0 && g->loc.file < s->files.count;
        lib->diags[i] = (enigma_diagnostic){
            .severity = public_severity(g->severity),
            .file = located ? s->files.items[g->loc.file].name : NULL,
            .line = located ? g->loc.line : 0,
            .column = located ? g->loc.col : 0,
            .message = g->message,
        };
    }
    en_buf text = {0};
    en_diags_render(d, &text);
    if (text.out_of_memory) return false;
    lib->diags_text = en_buf_take(&text);
    return lib->diags_text != NULL;
}

static bool collect_kernels(enigma_library *lib) {
    const ir_module *m = lib->module;
    int n = ir_module_kernel_count(m);
    if (n == 0) return true;
    lib->kernels = calloc((size_t)n, sizeof *lib->kernels);
    if (!lib->kernels) return false;
    for (int i = 0; i < m->funcs.count; i++)
        if (m->funcs.items[i]->is_kernel) lib->kernels[lib->kernel_count++] = m->funcs.items[i];
    return true;
}

/* More kernels than this, and a library is built a kernel at a time */
enum { EAGER_BUILD_MAX_KERNELS = 16 };

/* builds module m (the library's, or one kernel's) for the library's device */
static enigma_status build_module(enigma_library *lib, const ir_module *m, en_program **out) {
    const en_backend *b = lib->dev->core.backend;
    if (!b->build)
        return en_fail(ENIGMA_ERROR_UNAVAILABLE, "the %s backend cannot build kernels yet", b->name);
    en_buf err = {0};
    enigma_status st = b->build(&lib->dev->core, m, &lib->build, out, &err);
    if (st != ENIGMA_OK) {
        en_buf prefix = {0};
        en_buf_printf(&prefix, "%s backend: ", b->name);
        en_fail_buf(st, prefix.data ? prefix.data : "", &err);
        en_buf_free(&prefix);
    }
    en_buf_free(&err);
    return st;
}

/* the shared path of both create functions once the source is in lib->ctx as `file` */
static enigma_status compile_library(enigma_library *lib, int file, enigma_library **out) {
    lib->module = en_compile(&lib->ctx, file, NULL);
    if (lib->ctx.arena.out_of_memory || !collect_diagnostics(lib)) {
        enigma_library_destroy(lib);
        return en_fail(ENIGMA_ERROR_OUT_OF_MEMORY, "out of memory while compiling");
    }
    if (!lib->module || lib->ctx.diags.errors) {
        lib->module = NULL;
        *out = lib;
        const enigma_diagnostic *first = NULL;
        for (int i = 0; i < lib->diag_count && !first; i++)
            if (lib->diags[i].severity == ENIGMA_SEVERITY_ERROR) first = &lib->diags[i];
        if (first && first->file)
            return en_fail(ENIGMA_ERROR_COMPILE, "%s:%d:%d: error: %s (%d error%s)", first->file, first->line,
                           first->column, first->message, lib->ctx.diags.errors,
                           lib->ctx.diags.errors == 1 ? "" : "s");
        return en_fail(ENIGMA_ERROR_COMPILE, "error: %s", first ? first->message : "the source has errors");
    }
    /* the options are the caller's, alive only during this call: digested now */
    lib->build.has_input_digest = en_input_digest(&lib->ctx, lib->build.input_digest);
    if (!collect_kernels(lib)) {
        enigma_library_destroy(lib);
        return en_fail(ENIGMA_ERROR_OUT_OF_MEMORY, "out of memory while compiling");
    }
    if (lib->dev && lib->kernel_count > EAGER_BUILD_MAX_KERNELS) {
        lib->per_kernel = true;
        lib->kernel_programs = calloc((size_t)lib->kernel_count, sizeof *lib->kernel_programs);
        lib->kernel_program_index = calloc((size_t)lib->kernel_count, sizeof *lib->kernel_program_index);
        if (!lib->kernel_programs || !lib->kernel_program_index) {
            enigma_library_destroy(lib);
            return en_fail(ENIGMA_ERROR_OUT_OF_MEMORY, "out of memory while compiling");
        }
    } else if (lib->dev) {
        enigma_status st = build_module(lib, lib->module, &lib->program);
        if (st != ENIGMA_OK) {
            enigma_library_destroy(lib);
            return st;
        }
    }
    *out = lib;
    return ENIGMA_OK;
}

static enigma_status library_new(enigma_device *dev, const enigma_compile_options *opts,
                                 const char *fn, enigma_library **out) {
    if (opts) {
        if (opts->include_dir_count < 0 || (opts->include_dir_count > 0 && !opts->include_dirs))
            return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: opts->include_dirs is NULL but include_dir_count is %d",
                           fn, opts->include_dir_count);
        if (opts->define_count < 0 || (opts->define_count > 0 && !opts->defines))
            return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: opts->defines is NULL but define_count is %d", fn,
                           opts->define_count);
        if (opts->function_constant_count < 0 ||
            (opts->function_constant_count > 0 && !opts->function_constants))
            return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT,
                           "%s: opts->function_constants is NULL but function_constant_count is %d", fn,
                           opts->function_constant_count);
        for (int i = 0; i < opts->function_constant_count; i++) {
            const char *fc = opts->function_constants[i];
            const char *eq = fc ? strchr(fc, '=') : NULL;
            if (!eq || eq == fc || !eq[1])
                return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT,
                               "%s: opts->function_constants[%d] is %s%s%s (expected NAME=VALUE or INDEX=VALUE)", fn, i,
                               fc ? "\"" : "NULL", fc ? fc : "", fc ? "\"" : "");
        }
        for (int i = 0; i < opts->include_dir_count; i++)
            if (!opts->include_dirs[i])
                return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: opts->include_dirs[%d] is NULL", fn, i);
        for (int i = 0; i < opts->define_count; i++)
            if (!opts->defines[i] || !opts->defines[i][0] || opts->defines[i][0] == '=')
                return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: opts->defines[%d] is %s (expected NAME or NAME=VALUE)",
                               fn, i, opts->defines[i] ? "empty" : "NULL");
    }
    enigma_library *lib = calloc(1, sizeof *lib);
    if (!lib) return en_fail(ENIGMA_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
    atomic_init(&lib->refs, 1);
    pthread_mutex_init(&lib->build_lock, NULL);
    en_ctx_init(&lib->ctx);
    if (opts) {
        /* the option arrays are read only during en_compile, while the caller's are alive */
        lib->ctx.include_dirs = opts->include_dirs;
        lib->ctx.include_dir_count = opts->include_dir_count;
        lib->ctx.defines = opts->defines;
        lib->ctx.define_count = opts->define_count;
        lib->ctx.function_constants = opts->function_constants;
        lib->ctx.function_constant_count = opts->function_constant_count;
        lib->ctx.checked = opts->checked;
        lib->build.checked = opts->checked;
        lib->build.no_cache = opts->no_cache;
        if (opts->backend_flags) {
            lib->flags_storage = strdup(opts->backend_flags);
            if (!lib->flags_storage) {
                enigma_library_destroy(lib);
                return en_fail(ENIGMA_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
            }
            lib->build.backend_flags = lib->flags_storage;
        }
    }
    if (dev) {
        atomic_fetch_add(&dev->refs, 1);
        lib->dev = dev;
    }
    *out = lib;
    return ENIGMA_OK;
}

enigma_status enigma_library_create_from_source(enigma_device *dev, const char *source, size_t length,
                                                const char *name, const enigma_compile_options *opts,
                                                enigma_library **out) {
    const char *fn = "enigma_library_create_from_source";
    if (!out) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    if (!source) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: source is NULL", fn);
    enigma_library *lib;
    enigma_status st = library_new(dev, opts, fn, &lib);
    if (st != ENIGMA_OK) return st;
    int file = en_source_add(&lib->ctx.sources, name ? name : "<source>", source, length);
    return compile_library(lib, file, out);
}

enigma_status enigma_library_create_from_file(enigma_device *dev, const char *path,
                                              const enigma_compile_options *opts, enigma_library **out) {
    const char *fn = "enigma_library_create_from_file";
    if (!out) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    if (!path) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: path is NULL", fn);
    enigma_library *lib;
    enigma_status st = library_new(dev, opts, fn, &lib);
    if (st != ENIGMA_OK) return st;
    int file = en_source_load(&lib->ctx.sources, path);
    if (file < 0) {
        int e = errno;
        enigma_library_destroy(lib);
        return en_fail(ENIGMA_ERROR_IO, "%s: %s", path, strerror(e));
    }
    return compile_library(lib, file, out);
}

static int kernel_index(const enigma_library *lib, const char *name) {
    for (int i = 0; i < lib->kernel_count; i++)
        if (en_streq(lib->kernels[i]->name, name)) return i;
    return -1;
}

/* the indices of `count` kernels named, each once; *out is to be freed */
static enigma_status kernel_indices(const enigma_library *lib, const char *const *kernels, int count, const char *fn,
                                    int **out) {
    *out = NULL;
    if (count < 1)
        return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: count is %d (expected 1 or more kernels)", fn, count);
    int *indices = malloc(sizeof *indices * (size_t)count);
    bool *named = calloc((size_t)(lib->kernel_count > 0 ? lib->kernel_count : 1), sizeof *named);
    if (!indices || !named) {
        free(indices);
        free(named);
        return en_fail(ENIGMA_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
    }
    enigma_status st = ENIGMA_OK;
    for (int i = 0; i < count && st == ENIGMA_OK; i++) {
        int k = kernels[i] ? kernel_index(lib, kernels[i]) : -1;
        if (!kernels[i])
            st = en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: kernels[%d] is NULL", fn, i);
        else if (k < 0)
            st = en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: the library has no kernel named '%s' (%d kernels)", fn,
                         kernels[i], lib->kernel_count);
        else if (named[k]) /* it would be defined twice in one program */
            st = en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: kernel '%s' is named twice", fn, kernels[i]);
        else
            named[k] = true;
        indices[i] = k;
    }
    free(named);
    if (st != ENIGMA_OK) {
        free(indices);
        return st;
    }
    *out = indices;
    return ENIGMA_OK;
}

/* kernels `indices` in that order: the library's module with only those functions (helpers
 * are inlined by now) and all program-scope constants, sharing the library's IR */
static ir_module *kernels_module(const enigma_library *lib, const int *indices, int count) {
    ir_module *m = malloc(sizeof *m);
    ir_func **funcs = malloc(sizeof *funcs * (size_t)(count > 0 ? count : 1));
    if (!m || !funcs) {
        free(m);
        free(funcs);
        return NULL;
    }
    *m = *lib->module;
    for (int i = 0; i < count; i++) funcs[i] = (ir_func *)lib->kernels[indices[i]];
    m->funcs.items = funcs;
    m->funcs.count = m->funcs.cap = count;
    return m;
}

static void free_kernel_module(ir_module *m) {
    if (m) free(m->funcs.items);
    free(m);
}

/* One build of a library built a kernel at a time: the module it was made from (one kernel,
 * or a batch) and the program. Kept until the library is freed: pipelines point into it. */
typedef struct en_kernel_build {
    struct en_kernel_build *next;
    ir_module *module;
    en_program *program;
} en_kernel_build;

/* builds kernels `indices` into one program and makes it theirs. Outside the lock, so that
 * pipelines of different kernels build in parallel; a kernel that another thread built
 * meanwhile keeps that build, and a program no kernel took is freed. */
static enigma_status build_kernel_program(enigma_library *lib, const int *indices, int count) {
    ir_module *m = kernels_module(lib, indices, count);
    en_kernel_build *b = calloc(1, sizeof *b);
    if (!m || !b) {
        free_kernel_module(m);
        free(b);
        return en_fail(ENIGMA_ERROR_OUT_OF_MEMORY, "out of memory building kernel '%s'",
                       lib->kernels[indices[0]]->name);
    }
    en_program *built = NULL;
    enigma_status st = build_module(lib, m, &built);
    if (st != ENIGMA_OK) {
        free_kernel_module(m);
        free(b);
        return st;
    }
    int taken = 0;
    pthread_mutex_lock(&lib->build_lock);
    for (int i = 0; i < count; i++)
        if (!lib->kernel_programs[indices[i]]) {
            lib->kernel_programs[indices[i]] = built;
            lib->kernel_program_index[indices[i]] = i;
            taken++;
        }
    if (taken) {
        *b = (en_kernel_build){.next = lib->builds, .module = m, .program = built};
        lib->builds = b;
    }
    pthread_mutex_unlock(&lib->build_lock);
    if (!taken) {
        if (lib->dev->core.backend->program_free) lib->dev->core.backend->program_free(&lib->dev->core, built);
        free_kernel_module(m);
        free(b);
    }
    return ENIGMA_OK;
}

/* kernel `index`'s program and its index there, or NULL when it is not built yet */
static en_program *built_program(enigma_library *lib, int index, int *program_kernel) {
    pthread_mutex_lock(&lib->build_lock);
    en_program *p = lib->kernel_programs[index];
    *program_kernel = lib->kernel_program_index[index];
    pthread_mutex_unlock(&lib->build_lock);
    return p;
}

enigma_status en_library_program(enigma_library *lib, int index, en_program **program, int *program_kernel) {
    if (!lib->per_kernel) {
        *program = lib->program;
        *program_kernel = index;
        return ENIGMA_OK;
    }
    *program = built_program(lib, index, program_kernel);
    if (*program) return ENIGMA_OK;
    enigma_status st = build_kernel_program(lib, &index, 1);
    if (st != ENIGMA_OK) return st;
    *program = built_program(lib, index, program_kernel);
    return ENIGMA_OK;
}

enigma_status enigma_library_build_kernels(enigma_library *lib, const char *const *kernels, int count) {
    const char *fn = "enigma_library_build_kernels";
    if (!lib) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: lib is NULL", fn);
    if (!kernels) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: kernels is NULL", fn);
    if (!lib->module)
        return en_fail(ENIGMA_ERROR_COMPILE, "%s: the library has compile errors and nothing to build", fn);
    if (!lib->dev)
        return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT,
                       "%s: the library has no device to build for (enigma_library_build_offline_kernels needs none)",
                       fn);
    int *indices;
    enigma_status st = kernel_indices(lib, kernels, count, fn, &indices);
    if (st != ENIGMA_OK || !lib->per_kernel) { /* a library of a few kernels was built whole when made */
        free(indices);
        return st;
    }
    int wanted = 0;
    pthread_mutex_lock(&lib->build_lock);
    for (int i = 0; i < count; i++)
        if (!lib->kernel_programs[indices[i]]) indices[wanted++] = indices[i];
    pthread_mutex_unlock(&lib->build_lock);
    if (wanted) st = build_kernel_program(lib, indices, wanted);
    free(indices);
    return st;
}

/* The compiler's work on a kernel grows with its code: its IR nodes stand for it. */
static long expr_weight(const ir_expr *e) {
    if (!e) return 0;
    long w = 1;
    for (int i = 0; i < e->arg_count; i++) w += expr_weight(e->args[i]);
    return w;
}

static long code_weight(const ir_stmt *s) {
    if (!s) return 0;
    long w = 1 + expr_weight(s->place) + expr_weight(s->value) + expr_weight(s->cond);
    for (int i = 0; i < s->arg_count; i++) w += expr_weight(s->args[i]);
    for (int i = 0; i < s->stmt_count; i++) w += code_weight(s->stmts[i]);
    return w + code_weight(s->then_s) + code_weight(s->else_s) + code_weight(s->body) + code_weight(s->latch);
}

/* Bounds of a batch. The fixed cost of a build is about 0.1 s of gcc (its start and the
 * prelude) and 0.08 s of NVRTC, beside 0.15 to 0.25 s of gcc for each small MLX kernel
 * (unary.metal, binary.metal: 20 KB of C each) and seconds for large ones. Past 16 kernels
 * a batch saves little more, and gcc grows slower than linearly on a larger file (48 of
 * binary.metal's kernels in one file took more CPU time than 8 files of 6); a larger batch
 * also spreads worse over the jobs. The bound on IR nodes (about 100 to 350 bytes of
 * generated C each) keeps a batch of large kernels (MLX's reduce.metal: about 1,600 nodes,
 * 570 KB of C each) to a few of them: for them the fixed cost is nothing beside the
 * compiler's work, and a batch of many would leave the other jobs idle at the end. */
enum { BATCH_MAX_KERNELS = 16, BATCH_MAX_WEIGHT = 8000, BATCH_PER_JOB = 4 };

enigma_status enigma_library_plan_batches(const enigma_library *lib, const char *backend, const char *const *kernels,
                                          int count, int max_kernels, int jobs, int *batch_of, int *batch_count) {
    const char *fn = "enigma_library_plan_batches";
    if (!batch_count) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: batch_count is NULL", fn);
    *batch_count = 0;
    if (!lib) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: lib is NULL", fn);
    if (!kernels || !batch_of) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: kernels or batch_of is NULL", fn);
    if (!lib->module) return en_fail(ENIGMA_ERROR_COMPILE, "%s: the library has compile errors", fn);
    const en_backend *b = en_backend_named(backend);
    if (!b) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: unknown backend '%s' (expected cpu or cuda)", fn,
                           backend ? backend : "(NULL)");
    int *indices;
    enigma_status st = kernel_indices(lib, kernels, count, fn, &indices);
    if (st != ENIGMA_OK) return st;
    if (max_kernels < 1) max_kernels = BATCH_MAX_KERNELS;
    /* enough batches that every job has several: the last ones to finish leave less idle */
    if (jobs > 1 && (count + jobs * BATCH_PER_JOB - 1) / (jobs * BATCH_PER_JOB) < max_kernels)
        max_kernels = (count + jobs * BATCH_PER_JOB - 1) / (jobs * BATCH_PER_JOB);
    /* kernels in order, into the open batch of their group (a backend builds apart the
     * kernels that would change how a program of them is made: cuda's Apple lane numbering) */
    struct open_batch { int group, batch, kernels; long weight; } open[8];
    int open_count = 0, batches = 0;
    for (int i = 0; i < count; i++) {
        const ir_func *k = lib->kernels[indices[i]];
        int group = b->batch_group ? b->batch_group(lib->module, k) : 0;
        long weight = code_weight(k->body);
        struct open_batch *o = NULL;
        for (int j = 0; j < open_count && !o; j++)
            if (open[j].group == group) o = &open[j];
        if (!o) { /* more groups than slots: the first slot's batch is closed */
            o = &open[open_count < (int)EN_COUNT(open) ? open_count++ : 0];
            *o = (struct open_batch){.group = group, .batch = batches++};
        } else if (o->kernels >= max_kernels || o->weight + weight > BATCH_MAX_WEIGHT) {
            *o = (struct open_batch){.group = group, .batch = batches++};
        }
        batch_of[i] = o->batch;
        o->kernels++;
        o->weight += weight;
    }
    free(indices);
    *batch_count = batches;
    return ENIGMA_OK;
}

void en_library_release(enigma_library *lib) {
    if (!lib || atomic_fetch_sub(&lib->refs, 1) != 1) return;
    if (lib->program && lib->dev->core.backend->program_free)
        lib->dev->core.backend->program_free(&lib->dev->core, lib->program);
    while (lib->builds) {
        en_kernel_build *b = lib->builds;
        lib->builds = b->next;
        if (lib->dev->core.backend->program_free) lib->dev->core.backend->program_free(&lib->dev->core, b->program);
        free_kernel_module(b->module);
        free(b);
    }
    free(lib->kernel_programs);
    free(lib->kernel_program_index);
    pthread_mutex_destroy(&lib->build_lock);
    if (lib->dev) en_device_release(lib->dev);
    free(lib->kernels);
    free(lib->diags);
    free(lib->diags_text);
    free(lib->flags_storage);
    en_ctx_free(&lib->ctx);
    free(lib);
}

void enigma_library_destroy(enigma_library *lib) { en_library_release(lib); }

int enigma_library_diagnostic_count(const enigma_library *lib) { return lib ? lib->diag_count : 0; }

enigma_status enigma_library_get_diagnostic(const enigma_library *lib, int index, enigma_diagnostic *out) {
    if (!lib) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_library_get_diagnostic: lib is NULL");
    if (!out) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_library_get_diagnostic: out is NULL");
    if (index < 0 || index >= lib->diag_count)
        return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "enigma_library_get_diagnostic: index %d is out of range (the library has %d diagnostic%s)",
                       index, lib->diag_count, lib->diag_count == 1 ? "" : "s");
    *out = lib->diags[index];
    return ENIGMA_OK;
}

const char *enigma_library_diagnostics_text(const enigma_library *lib) {
    return lib && lib->diags_text ? lib->diags_text : "";
}

int enigma_library_kernel_count(const enigma_library *lib) { return lib ? lib->kernel_count : 0; }

const char *enigma_library_kernel_name(const enigma_library *lib, int index) {
    if (!lib || index < 0 || index >= lib->kernel_count) return NULL;
    return lib->kernels[index]->name;
}

/* the module of every kernel (kernels NULL), or of those named, in that order: *owned is
 * then to be freed with free_kernel_module */
static enigma_status module_for(const enigma_library *lib, const char *const *kernels, int count, const char *fn,
                                const ir_module **m, ir_module **owned) {
    *owned = NULL;
    *m = lib->module;
    if (!kernels) return ENIGMA_OK;
    int *indices;
    enigma_status st = kernel_indices(lib, kernels, count, fn, &indices);
    if (st != ENIGMA_OK) return st;
    *m = *owned = kernels_module(lib, indices, count);
    free(indices);
    return *owned ? ENIGMA_OK : en_fail(ENIGMA_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
}

enigma_status enigma_library_emit(const enigma_library *lib, const char *what, char **text) {
    return enigma_library_emit_kernel(lib, what, NULL, text);
}

enigma_status enigma_library_emit_kernel(const enigma_library *lib, const char *what, const char *kernel, char **text) {
    const char *fn = kernel ? "enigma_library_emit_kernel" : "enigma_library_emit";
    if (!text) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: text is NULL", fn);
    *text = NULL;
    if (!lib) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: lib is NULL", fn);
    if (!what) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: what is NULL (expected ir, c or cuda)", fn);
    if (!lib->module)
        return en_fail(ENIGMA_ERROR_COMPILE, "%s: the library has compile errors and nothing to emit", fn);
    if (!en_streq(what, "ir") && !en_streq(what, "c") && !en_streq(what, "cuda"))
        return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: unknown output '%s' (expected ir, c or cuda)", fn, what);
    const ir_module *m;
    ir_module *owned;
    enigma_status st = module_for(lib, kernel ? &kernel : NULL, 1, fn, &m, &owned);
    if (st != ENIGMA_OK) return st;
    en_buf out = {0}, err = {0};
    if (en_streq(what, "ir")) {
        ir_print_module(m, &out);
    } else if (en_streq(what, "c") || en_streq(what, "cuda")) {
        const en_backend *b = en_streq(what, "c") ? &en_cpu_backend : &en_cuda_backend;
        if (!b->emit) {
            free_kernel_module(owned);
            return en_fail(ENIGMA_ERROR_UNAVAILABLE, "%s: the %s backend is not built into this enigma", fn, b->name);
        }
        st = b->emit(m, &lib->build, &out, &err);
        if (st != ENIGMA_OK) {
            en_buf prefix = {0};
            en_buf_printf(&prefix, "%s: %s backend: ", fn, b->name);
            en_fail_buf(st, prefix.data ? prefix.data : "", &err);
            en_buf_free(&prefix);
        }
    }
    free_kernel_module(owned);
    en_buf_free(&err);
    if (st == ENIGMA_OK && out.out_of_memory) st = en_fail(ENIGMA_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
    if (st != ENIGMA_OK) {
        en_buf_free(&out);
        return st;
    }
    *text = en_buf_take(&out);
    return *text ? ENIGMA_OK : en_fail(ENIGMA_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
}

enigma_status enigma_library_build_offline(const enigma_library *lib, const char *backend, char **summary) {
    return enigma_library_build_offline_kernel(lib, backend, NULL, summary);
}

enigma_status enigma_library_build_offline_kernel(const enigma_library *lib, const char *backend, const char *kernel,
                                                  char **summary) {
    return enigma_library_build_offline_kernels(lib, backend, kernel ? &kernel : NULL, 1, summary);
}

enigma_status enigma_library_build_offline_kernels(const enigma_library *lib, const char *backend,
                                                   const char *const *kernels, int count, char **summary) {
    const char *fn = !kernels ? "enigma_library_build_offline"
                     : count == 1 ? "enigma_library_build_offline_kernel"
                                  : "enigma_library_build_offline_kernels";
    if (!summary) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: summary is NULL", fn);
    *summary = NULL;
    if (!lib) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: lib is NULL", fn);
    if (!backend) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: backend is NULL (expected cpu or cuda)", fn);
    const en_backend *b = en_backend_named(backend);
    if (!b) return en_fail(ENIGMA_ERROR_INVALID_ARGUMENT, "%s: unknown backend '%s' (expected cpu or cuda)", fn, backend);
    if (!lib->module)
        return en_fail(ENIGMA_ERROR_COMPILE, "%s: the library has compile errors and nothing to build", fn);
    if (!b->compile_offline)
        return en_fail(ENIGMA_ERROR_UNAVAILABLE, "%s: the %s backend has no build step without a device", fn, b->name);
    const ir_module *m;
    ir_module *owned;
    enigma_status st = module_for(lib, kernels, count, fn, &m, &owned);
    if (st != ENIGMA_OK) return st;
    en_buf out = {0}, err = {0};
    st = b->compile_offline(m, &lib->build, &out, &err);
    free_kernel_module(owned);
    if (st != ENIGMA_OK) {
        en_buf prefix = {0};
        en_buf_printf(&prefix, "%s backend unavailable: ", b->name);
        en_fail_buf(st, st == ENIGMA_ERROR_UNAVAILABLE && prefix.data ? prefix.data : "", &err);
        en_buf_free(&prefix);
        en_buf_free(&out);
        en_buf_free(&err);
        return st;
    }
    en_buf_free(&err);
    if (out.out_of_memory) {
        en_buf_free(&out);
        return en_fail(ENIGMA_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
    }
    *summary = en_buf_take(&out);
    return *summary ? ENIGMA_OK : en_fail(ENIGMA_ERROR_OUT_OF_MEMORY, "%s: out of memory", fn);
}
