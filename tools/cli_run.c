/* cli_run.c — `enigma run`: compile a kernel, bind every buffer parameter from the
 * command line, dispatch it, and write or print the results.
 *
 * Every input is checked against the kernel's introspection before anything runs, so a
 * mistake is reported by the parameter's name: a parameter with no value, a name that is
 * not a parameter, a file whose size or dtype does not fit. Each binding becomes its own
 * buffer, so any buffer parameter can be written out afterwards with -o or --print. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static const char run_help[] =
    "usage: enigma run FILE.metal [-k KERNEL] [--backend cpu|cuda|auto]\n"
    "                  (--threadgroups X[,Y[,Z]] | --grid X[,Y[,Z]]) --threads X[,Y[,Z]]\n"
    "                  [--tgmem INDEX=BYTES]... [BINDING]... [-o NAME=FILE]... [--print NAME[:N]]...\n"
    "                  [--repeat N] [--time] [--timeout SECONDS] [--check] [-I DIR]... [-D NAME[=VALUE]]...\n"
    "                  [--constant NAME=VALUE]... [--backend-flags FLAGS]\n"
    "\n"
    "  -k KERNEL            the kernel to run (may be left out when the file holds one)\n"
    "  --backend B          cpu, cuda or auto (default: auto, cuda where a GPU is present)\n"
    "  --threadgroups X,Y,Z dispatch X*Y*Z threadgroups (Metal's dispatchThreadgroups)\n"
    "  --grid X,Y,Z         dispatch X*Y*Z threads; edge threadgroups shrink (dispatchThreads)\n"
    "  --threads X,Y,Z      threads per threadgroup\n"
    "  --tgmem INDEX=BYTES  the length of [[threadgroup(INDEX)]] memory\n"
    "\n"
    "  BINDING = NAME=VALUE | INDEX=VALUE   a parameter by its name, or by its [[buffer(INDEX)]]\n"
    "  VALUE   = @FILE.npy                  an array from a NumPy file (dtype must match)\n"
    "          | @FILE                      raw bytes, for any other extension\n"
    "          | 1.5 | 3,4,5                a number or numbers, typed by the parameter\n"
    "          | zeros:COUNT                COUNT zeroed elements of the parameter's type\n"
    "  bfloat parameters take .npy arrays of dtype uint16 or V2 (the raw bits); -o writes uint16.\n"
    "\n"
    "  -o NAME=FILE         after the run, write the buffer: .npy (dtype and shape) or raw bytes\n"
    "  --print NAME[:N]     after the run, print the first N elements (default 16)\n"
    "  --repeat N           run the dispatch N times (outputs are read after the last)\n"
    "  --time               print compile and dispatch times\n"
    "  --timeout SECONDS    stop a dispatch that runs longer (exit code 3, the device stays\n"
    "                       usable; default: $ENIGMA_DISPATCH_TIMEOUT, else no limit)\n"
    "  --check              compile with checked-mode instrumentation and print its reports\n"
    "                       (on the cpu backend, which --backend auto then picks)\n"
    "  -I DIR, -D NAME[=VALUE]   include directories and macro definitions\n"
    "  --constant NAME=VALUE     the value of a [[function_constant]] (by name, or by its index)\n"
    "  --backend-flags FLAGS     the backend compiler's flags in place of its own (cpu: the C\n"
    "                            compiler's, default \"-O2 -march=native\"; cuda: extra NVRTC options)\n"
    "\n"
    "exit codes: 0 ok, 1 usage (bad options, or inputs that do not fit the kernel),\n"
    "            2 compile error, 3 runtime error, 4 the checked mode found problems\n";

typedef struct binding {
    const char *target; /* NAME or INDEX as written */
    const char *value;
    int param;          /* index into the pipeline's parameters */
    enigma_buffer *buf;
    bool from_npy;      /* shape and dtype recorded for -o */
    npy_dtype dtype;
    int ndim;
    size_t shape[NPY_MAX_DIMS];
} binding;

typedef struct output {
    const char *target;
    const char *file;   /* -o */
    size_t print_count; /* --print */
    int param;
} output;

typedef struct run_args {
    const char *file, *kernel, *backend;
    enigma_size3 size, threads;
    bool have_size, have_threads;
    enigma_dispatch_mode mode;
    int tg_index[64];
    size_t tg_bytes[64];
    int tg_count;
    binding *bindings;
    int binding_count;
    output *outputs;
    int output_count;
    long repeat;
    uint64_t timeout_ns; /* --timeout; 0: the library's default */
    bool time, check;
    cli_compile_flags flags;
} run_args;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static bool all_digits(const char *s, size_t n) {
    if (n == 0) return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

/* ---- the command line ------------------------------------------------------------------ */
static int parse_args(int argc, char **argv, run_args *r) {
    r->backend = "auto";
    r->repeat = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int took;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(run_help, stdout);
            return -1;
        }
        if ((took = cli_take_compile_flag(argc, argv, &i, &r->flags)) != 0) {
            if (took < 0) return EXIT_USAGE;
            continue;
        }
        if (strcmp(a, "--time") == 0) { r->time = true; continue; }
        if (strcmp(a, "--check") == 0) { r->check = true; continue; }
        static const char *const with_value[] = {"-k", "--backend", "--threadgroups", "--grid", "--threads",
                                                 "--tgmem", "-o", "--print", "--repeat", "--timeout"};
        bool known = false;
        for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++) known |= strcmp(a, with_value[k]) == 0;
        if (known) {
            if (i + 1 >= argc) return cli_error(EXIT_USAGE, "run: %s needs a value", a);
            const char *v = argv[++i];
            if (strcmp(a, "-k") == 0) r->kernel = v;
            else if (strcmp(a, "--backend") == 0) r->backend = v;
            else if (strcmp(a, "--threadgroups") == 0 || strcmp(a, "--grid") == 0) {
                if (r->have_size) return cli_error(EXIT_USAGE, "run: give one of --threadgroups and --grid, once");
                if (!cli_parse_size3(v, &r->size))
                    return cli_error(EXIT_USAGE, "run: %s '%s' is not X[,Y[,Z]] with each part at least 1", a, v);
                r->have_size = true;
                r->mode = a[2] == 'g' ? ENIGMA_DISPATCH_THREADS : ENIGMA_DISPATCH_THREADGROUPS;
            } else if (strcmp(a, "--threads") == 0) {
                if (!cli_parse_size3(v, &r->threads))
                    return cli_error(EXIT_USAGE, "run: --threads '%s' is not X[,Y[,Z]] with each part at least 1", v);
                r->have_threads = true;
            } else if (strcmp(a, "--tgmem") == 0) {
                const char *eq = strchr(v, '=');
                char *end;
                if (!eq || !all_digits(v, (size_t)(eq - v)) || !all_digits(eq + 1, strlen(eq + 1)))
                    return cli_error(EXIT_USAGE, "run: --tgmem '%s' is not INDEX=BYTES", v);
                if (r->tg_count == 64) return cli_error(EXIT_USAGE, "run: too many --tgmem");
                r->tg_index[r->tg_count] = (int)strtol(v, NULL, 10);
                r->tg_bytes[r->tg_count++] = (size_t)strtoull(eq + 1, &end, 10);
            } else if (strcmp(a, "--timeout") == 0) {
                char *end;
                double seconds = strtod(v, &end);
                if (end == v || *end || !(seconds > 0) || seconds > 1e9)
                    return cli_error(EXIT_USAGE, "run: --timeout '%s' is not a positive number of seconds", v);
                r->timeout_ns = (uint64_t)(seconds * 1e9);
            } else if (strcmp(a, "-o") == 0 || strcmp(a, "--print") == 0) {
                output o = {.target = v, .param = -1};
                char *sep = strchr(v, a[1] == 'o' ? '=' : ':');
                if (a[1] == 'o') {
                    if (!sep || sep == v || !sep[1]) return cli_error(EXIT_USAGE, "run: -o '%s' is not NAME=FILE", v);
                    *sep = 0;
                    o.file = sep + 1;
                } else {
                    o.print_count = 16;
                    if (sep) {
                        if (!all_digits(sep + 1, strlen(sep + 1)))
                            return cli_error(EXIT_USAGE, "run: --print '%s' is not NAME[:N]", v);
                        *sep = 0;
                        o.print_count = (size_t)strtoull(sep + 1, NULL, 10);
                    }
                }
                output *grown = realloc(r->outputs, sizeof *grown * (size_t)(r->output_count + 1));
                if (!grown) return cli_error(EXIT_RUNTIME, "out of memory");
                r->outputs = grown;
                r->outputs[r->output_count++] = o;
            } else { /* --repeat */
                char *end;
                r->repeat = strtol(v, &end, 10);
                if (*end || end == v || r->repeat < 1)
                    return cli_error(EXIT_USAGE, "run: --repeat '%s' is not a count of at least 1", v);
            }
            continue;
        }
        if (a[0] == '-' && a[1] && !strchr(a, '='))
            return cli_error(EXIT_USAGE, "run: unknown option '%s' (see enigma run --help)", a);
        const char *eq = strchr(a, '=');
        if (eq && eq != a) {
            binding b = {.target = a, .value = eq + 1, .param = -1};
            argv[i][eq - a] = 0;
            binding *grown = realloc(r->bindings, sizeof *grown * (size_t)(r->binding_count + 1));
            if (!grown) return cli_error(EXIT_RUNTIME, "out of memory");
            r->bindings = grown;
            r->bindings[r->binding_count++] = b;
            continue;
        }
        if (r->file) return cli_error(EXIT_USAGE, "run: unexpected argument '%s' (a binding is NAME=VALUE)", a);
        r->file = a;
    }
    if (!r->file) return cli_error(EXIT_USAGE, "run: no FILE.metal given (see enigma run --help)");
    if (!r->have_size) return cli_error(EXIT_USAGE, "run: give the dispatch size with --threadgroups X[,Y[,Z]] or --grid X[,Y[,Z]]");
    if (!r->have_threads) return cli_error(EXIT_USAGE, "run: give the threadgroup size with --threads X[,Y[,Z]]");
    return EXIT_OK;
}

/* ---- parameters ------------------------------------------------------------------------ */
static void list_buffer_params(enigma_pipeline *p, char *out, size_t len) {
    enigma_pipeline_info info;
    enigma_pipeline_get_info(p, &info);
    size_t at = 0;
    out[0] = 0;
    for (int i = 0; i < info.param_count; i++) {
        enigma_param_info pi;
        enigma_pipeline_get_param(p, i, &pi);
        if (pi.kind != ENIGMA_PARAM_BUFFER || at >= len) continue;
        at += (size_t)snprintf(out + at, len - at, "%s%s", at ? ", " : "", pi.name);
    }
    if (!at) snprintf(out, len, "none");
}

/* the buffer parameter a NAME or INDEX names; -1 after printing why not */
static int resolve_param(enigma_pipeline *p, const char *target, const char *what) {
    enigma_pipeline_info info;
    enigma_pipeline_get_info(p, &info);
    if (all_digits(target, strlen(target))) {
        long index = strtol(target, NULL, 10);
        for (int i = 0; i < info.param_count; i++) {
            enigma_param_info pi;
            enigma_pipeline_get_param(p, i, &pi);
            if (pi.kind == ENIGMA_PARAM_BUFFER && pi.index == index) return i;
        }
        char list[512];
        list_buffer_params(p, list, sizeof list);
        cli_error(EXIT_USAGE, "%s %s: kernel '%s' has no [[buffer(%ld)]] parameter (parameters: %s)", what, target,
                  info.name, index, list);
        return -1;
    }
    int i = enigma_pipeline_find_param(p, target);
    if (i < 0) {
        char list[512];
        list_buffer_params(p, list, sizeof list);
        cli_error(EXIT_USAGE, "%s %s: no parameter named '%s' in kernel '%s' (parameters: %s)", what, target, target,
                  info.name, list);
        return -1;
    }
    enigma_param_info pi;
    enigma_pipeline_get_param(p, i, &pi);
    if (pi.kind == ENIGMA_PARAM_ATTRIBUTE) {
        cli_error(EXIT_USAGE, "%s %s: parameter '%s' is the attribute [[%s]]; it takes no value", what, target, target,
                  pi.attribute);
        return -1;
    }
    if (pi.kind == ENIGMA_PARAM_THREADGROUP_MEMORY) {
        cli_error(EXIT_USAGE, "%s %s: parameter '%s' is threadgroup memory [[threadgroup(%d)]]; give its length with "
                              "--tgmem %d=BYTES", what, target, target, pi.index, pi.index);
        return -1;
    }
    return i;
}

static bool read_file(const char *path, void **data, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            unsigned char *grown = realloc(buf, cap *= 2);
            if (!grown) { free(buf); buf = NULL; }
            else buf = grown;
        }
    }
    bool ok = buf && !ferror(f);
    fclose(f);
    if (!ok) { free(buf); return false; }
    *data = buf;
    *len = n;
    return true;
}

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* does `bytes` fit the parameter: one element for a reference, whole elements otherwise */
static int check_size(const enigma_param_info *pi, const char *source, size_t bytes) {
    if (pi->is_reference && bytes != pi->element_size)
        return cli_error(EXIT_USAGE, "%s has %zu bytes, but parameter '%s' is a reference to one %s (%zu bytes)", source,
                         bytes, pi->name, pi->element_type, pi->element_size);
    if (bytes == 0)
        return cli_error(EXIT_USAGE, "%s is empty, and parameter '%s' needs at least one %s", source, pi->name,
                         pi->element_type);
    if (pi->element_size && bytes % pi->element_size)
        return cli_error(EXIT_USAGE, "%s has %zu bytes, which is not a whole number of %s elements (%zu bytes each) for "
                                     "parameter '%s'", source, bytes, pi->element_type, pi->element_size, pi->name);
    return EXIT_OK;
}

/* the bytes of one binding's VALUE, checked against its parameter */
static int make_value(binding *b, const enigma_param_info *pi, void **data, size_t *len) {
    const char *v = b->value;
    char err[600];
    if (v[0] == '@') {
        const char *path = v + 1;
        if (ends_with(path, ".npy")) {
            npy_array a;
            if (!npy_read(path, &a, err, sizeof err)) return cli_error(EXIT_USAGE, "%s: %s", pi->name, err);
            if (pi->element_scalar != ENIGMA_SCALAR_NONE && !cli_dtype_fits(a.dtype, pi->element_scalar)) {
                npy_dtype want;
                cli_scalar_dtype(pi->element_scalar, &want);
                npy_free(&a);
                return cli_error(EXIT_USAGE, "%s has dtype '%s', but parameter '%s' holds %s (dtype '%s'%s)", path,
                                 npy_descr(a.dtype), pi->name, pi->element_type, npy_descr(want),
                                 pi->element_scalar == ENIGMA_SCALAR_BF16 ? " or '|V2'" : "");
            }
            int code = check_size(pi, path, a.bytes);
            if (code) { npy_free(&a); return code; }
            b->from_npy = true;
            b->dtype = a.dtype;
            b->ndim = a.ndim;
            memcpy(b->shape, a.shape, sizeof a.shape);
            *data = a.data;
            *len = a.bytes;
            return EXIT_OK;
        }
        if (!read_file(path, data, len)) return cli_error(EXIT_USAGE, "%s: cannot read %s", pi->name, path);
        int code = check_size(pi, path, *len);
        if (code) { free(*data); *data = NULL; }
        return code;
    }
    if (strncmp(v, "zeros:", 6) == 0) {
        char *end;
        unsigned long long count = strtoull(v + 6, &end, 10);
        if (end == v + 6 || *end || count == 0)
            return cli_error(EXIT_USAGE, "%s=%s: zeros:COUNT needs a COUNT of at least 1", b->target, v);
        if (pi->is_reference && count != 1)
            return cli_error(EXIT_USAGE, "%s=%s: parameter '%s' is a reference to one %s, so zeros:1 is the only count",
                             b->target, v, pi->name, pi->element_type);
        /* refused before allocating: overcommit would let a huge calloc succeed and the
         * process be killed when the buffer is filled */
        unsigned long long memory = (unsigned long long)sysconf(_SC_PHYS_PAGES) * (unsigned long long)sysconf(_SC_PAGESIZE);
        if (count > memory / (pi->element_size ? pi->element_size : 1))
            return cli_error(EXIT_RUNTIME, "%s=%s: out of memory: %llu elements of %zu bytes exceed this machine's %llu bytes",
                             b->target, v, count, pi->element_size, memory);
        *len = (size_t)count * pi->element_size;
        *data = calloc(1, *len);
        return *data ? EXIT_OK : cli_error(EXIT_RUNTIME, "%s=%s: out of memory for %zu bytes", b->target, v, *len);
    }
    if (!cli_parse_numbers(v, pi, data, len, err, sizeof err)) return cli_error(EXIT_USAGE, "%s", err);
    return EXIT_OK;
}

/* ---- results ---------------------------------------------------------------------------- */
static int write_output(const output *o, const binding *b, const enigma_param_info *pi, const void *data,
                        size_t bytes) {
    char err[600];
    if (!ends_with(o->file, ".npy")) {
        FILE *f = fopen(o->file, "wb");
        bool ok = f && fwrite(data, 1, bytes, f) == bytes;
        if (f && fclose(f) != 0) ok = false;
        return ok ? EXIT_OK : cli_error(EXIT_RUNTIME, "cannot write %s", o->file);
    }
    npy_dtype dtype;
    size_t shape[NPY_MAX_DIMS];
    int ndim;
    size_t ssize = cli_scalar_size(pi->element_scalar);
    if (b->from_npy) {
        dtype = b->dtype;
        ndim = b->ndim;
        memcpy(shape, b->shape, sizeof shape);
    } else if (ssize && cli_scalar_dtype(pi->element_scalar, &dtype)) {
        size_t per = pi->element_size / ssize; /* float3: 4 scalars, padding included */
        size_t count = bytes / pi->element_size;
        if (pi->is_reference && per == 1) ndim = 0;
        else if (per == 1) { ndim = 1; shape[0] = count; }
        else if (pi->is_reference) { ndim = 1; shape[0] = per; }
        else { ndim = 2; shape[0] = count; shape[1] = per; }
    } else { /* a struct: its bytes */
        dtype = NPY_U1;
        ndim = 2;
        shape[0] = bytes / (pi->element_size ? pi->element_size : 1);
        shape[1] = pi->element_size;
    }
    if (!npy_write(o->file, dtype, shape, ndim, data, bytes, err, sizeof err)) return cli_error(EXIT_RUNTIME, "%s", err);
    return EXIT_OK;
}

static int show_results(run_args *r, enigma_pipeline *p) {
    int code = EXIT_OK;
    for (int i = 0; i < r->output_count && code == EXIT_OK; i++) {
        output *o = &r->outputs[i];
        binding *b = NULL;
        for (int k = 0; k < r->binding_count; k++)
            if (r->bindings[k].param == o->param) b = &r->bindings[k];
        enigma_param_info pi;
        enigma_pipeline_get_param(p, o->param, &pi);
        size_t bytes = enigma_buffer_size(b->buf);
        void *data = malloc(bytes);
        if (!data) return cli_error(EXIT_RUNTIME, "out of memory");
        enigma_status st = enigma_buffer_read(b->buf, 0, data, bytes);
        if (st != ENIGMA_OK) code = cli_error(EXIT_RUNTIME, "%s", enigma_last_error());
        else if (o->file) code = write_output(o, b, &pi, data, bytes);
        else cli_print_elements(o->target, &pi, data, bytes, o->print_count);
        free(data);
    }
    return code;
}

/* ---- the run ----------------------------------------------------------------------------- */
static int bind_all(run_args *r, enigma_device *dev, enigma_pipeline *p, enigma_command *cmd) {
    enigma_pipeline_info info;
    enigma_pipeline_get_info(p, &info);
    for (int i = 0; i < r->binding_count; i++) {
        binding *b = &r->bindings[i];
        b->param = resolve_param(p, b->target, "binding");
        if (b->param < 0) return EXIT_USAGE;
        for (int k = 0; k < i; k++)
            if (r->bindings[k].param == b->param)
                return cli_error(EXIT_USAGE, "binding %s: the parameter is already bound by %s", b->target,
                                 r->bindings[k].target);
        enigma_param_info pi;
        enigma_pipeline_get_param(p, b->param, &pi);
        void *data = NULL;
        size_t len = 0;
        int code = make_value(b, &pi, &data, &len);
        if (code) return code;
        enigma_status st = enigma_buffer_create_with_data(dev, data, len, &b->buf);
        free(data);
        if (st == ENIGMA_OK) st = enigma_command_set_buffer_by_name(cmd, pi.name, b->buf, 0);
        if (st != ENIGMA_OK) return cli_error(cli_exit_code(st), "%s", enigma_last_error());
    }
    for (int k = 0; k < r->tg_count; k++) {
        enigma_status st = enigma_command_set_threadgroup_memory(cmd, r->tg_index[k], r->tg_bytes[k]);
        if (st != ENIGMA_OK) return cli_error(EXIT_USAGE, "--tgmem %d=%zu: %s", r->tg_index[k], r->tg_bytes[k], enigma_last_error());
    }
    for (int i = 0; i < info.param_count; i++) {
        enigma_param_info pi;
        enigma_pipeline_get_param(p, i, &pi);
        bool bound = false;
        for (int k = 0; k < r->binding_count; k++) bound |= r->bindings[k].param == i;
        if (pi.kind == ENIGMA_PARAM_BUFFER && !bound)
            return cli_error(EXIT_USAGE, "parameter '%s' ([[buffer(%d)]], %s) of kernel '%s' has no value: give %s=VALUE",
                             pi.name, pi.index, pi.type_name, info.name, pi.name);
        if (pi.kind == ENIGMA_PARAM_THREADGROUP_MEMORY) {
            bool set = false;
            for (int k = 0; k < r->tg_count; k++) set |= r->tg_index[k] == pi.index;
            if (!set)
                return cli_error(EXIT_USAGE, "threadgroup memory parameter '%s' ([[threadgroup(%d)]]) of kernel '%s' has "
                                             "no length: give --tgmem %d=BYTES", pi.name, pi.index, info.name, pi.index);
        }
    }
    for (int i = 0; i < r->output_count; i++) {
        output *o = &r->outputs[i];
        o->param = resolve_param(p, o->target, o->file ? "-o" : "--print");
        if (o->param < 0) return EXIT_USAGE;
    }
    return EXIT_OK;
}

static int run_kernel(run_args *r) {
    enigma_device *dev = NULL;
    enigma_library *lib = NULL;
    enigma_pipeline *p = NULL;
    enigma_command *cmd = NULL;
    int code = EXIT_OK;
    /* checked execution is the cpu backend's: --check picks it when the choice is open */
    const char *backend = r->check && strcmp(r->backend, "auto") == 0 ? "cpu" : r->backend;
    enigma_status st = enigma_device_open(backend, &dev);
    if (st != ENIGMA_OK) {
        code = cli_error(st == ENIGMA_ERROR_INVALID_ARGUMENT ? EXIT_USAGE : EXIT_RUNTIME, "%s", enigma_last_error());
        goto done;
    }
    enigma_compile_options opts = {
        .include_dirs = r->flags.include_dirs, .include_dir_count = r->flags.include_dir_count,
        .defines = r->flags.defines, .define_count = r->flags.define_count,
        .function_constants = r->flags.constants, .function_constant_count = r->flags.constant_count, .checked = r->check,
        .backend_flags = r->flags.backend_flags,
    };
    double t0 = now_ms();
    st = enigma_library_create_from_file(dev, r->file, &opts, &lib);
    double compile_ms = now_ms() - t0;
    if (lib) fputs(enigma_library_diagnostics_text(lib), stderr);
    if (st != ENIGMA_OK) {
        code = st == ENIGMA_ERROR_COMPILE ? EXIT_COMPILE : st == ENIGMA_ERROR_IO ? EXIT_USAGE : EXIT_RUNTIME;
        if (st != ENIGMA_ERROR_COMPILE || !lib) cli_error(code, "%s", enigma_last_error());
        goto done;
    }
    st = enigma_pipeline_create(lib, r->kernel, &p);
    if (st != ENIGMA_OK) { code = cli_error(cli_exit_code(st), "%s", enigma_last_error()); goto done; }
    st = enigma_command_create(p, &cmd);
    if (st != ENIGMA_OK) { code = cli_error(EXIT_RUNTIME, "%s", enigma_last_error()); goto done; }
    if ((code = bind_all(r, dev, p, cmd)) != EXIT_OK) goto done;
    if (r->timeout_ns && (st = enigma_command_set_timeout(cmd, r->timeout_ns)) != ENIGMA_OK) {
        code = cli_error(EXIT_USAGE, "%s", enigma_last_error());
        goto done;
    }

    double total_ms = 0, min_ms = 0;
    uint64_t device_ns = 0;
    for (long i = 0; i < r->repeat; i++) {
        double d0 = now_ms();
        st = enigma_command_dispatch(cmd, r->mode, r->size, r->threads);
        double ms = now_ms() - d0;
        total_ms += ms;
        if (i == 0 || ms < min_ms) min_ms = ms;
        device_ns += enigma_command_last_duration_ns(cmd);
        if (st != ENIGMA_OK) break;
    }
    if (st == ENIGMA_ERROR_CHECK_FAILED) {
        fputs(enigma_command_reports_text(cmd), stderr);
        code = EXIT_CHECK;
    } else if (st != ENIGMA_OK) {
        code = cli_error(st == ENIGMA_ERROR_INVALID_ARGUMENT ? EXIT_USAGE : EXIT_RUNTIME, "%s", enigma_last_error());
        goto done;
    }
    if (r->time) {
        printf("compile: %.3f ms\n", compile_ms);
        /* microseconds: a dispatch of a small kernel takes a few */
        printf("dispatch: %.2f us mean, %.2f us min over %ld run%s (device %.2f us mean)\n",
               total_ms * 1e3 / (double)r->repeat, min_ms * 1e3, r->repeat, r->repeat == 1 ? "" : "s",
               (double)device_ns / 1e3 / (double)r->repeat);
    }
    int shown = show_results(r, p);
    if (shown != EXIT_OK && code == EXIT_OK) code = shown;
done:
    for (int i = 0; i < r->binding_count; i++) enigma_buffer_destroy(r->bindings[i].buf);
    enigma_command_destroy(cmd);
    enigma_pipeline_destroy(p);
    enigma_library_destroy(lib);
    enigma_device_close(dev);
    return code;
}

int cli_run(int argc, char **argv) {
    run_args r = {0};
    int code = parse_args(argc, argv, &r);
    if (code == -1) code = EXIT_OK; /* --help */
    else if (code == EXIT_OK) code = run_kernel(&r);
    free(r.bindings);
    free(r.outputs);
    cli_compile_flags_free(&r.flags);
    return code;
}
