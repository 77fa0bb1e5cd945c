/* jit.c — generated C to a loaded shared object, through the content-addressed cache.
 *
 * Needs: a C compiler ($ENIGMA_CC, else `cc`) that accepts gcc-style flags; $ENIGMA_CC may
 * be several words, a launcher first ("ccache gcc").
 * Guarantees: the program's .so was built from exactly this C, by this compiler (as
 * `cc --version` names it), with these flags, and, when the flags tune for the host
 * (-march=native), for this host's CPU (its model and feature flags, from /proc/cpuinfo or
 * $ENIGMA_CPUINFO): a cache folder shared by machines of different CPUs never hands one of
 * them code with instructions it lacks. The cache key is the BLAKE2b of all of it;
 * the .so exports enk_content_hash holding the key, and an entry whose hash does not match,
 * or that dlopen refuses, is rebuilt and replaced, never used. A library compiled again
 * from the same inputs (src/runtime/input_key.c: one digest, one IR) finds the entry of
 * its code through an alias of its inputs' key and emits no C: with the front end, the
 * only work of a cache hit. The compiler runs through
 * posix_spawnp with an argv array (no shell). Nothing is printed: the compiler's output
 * comes back in the error message. */
#include "cpu.h"

#include "../base/cache.h"
#include "../base/blake2b.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define DEFAULT_FLAGS "-O2 -march=native"
/* bump when the generated code's ABI changes, so old cache entries stop matching */
#define ABI_TAG "enigma-cpu-abi-2"

/* run_program's result when argv[0] could not be started at all (no such compiler) */
#define RUN_NOT_STARTED (-2)

/* runs argv, collecting stdout and stderr together; returns the exit status, -1 when it
 * died of a signal or could not be waited for, or RUN_NOT_STARTED */
static int run_program(char *const argv[], en_buf *output) {
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) { /* no other thread's child may hold our pipe open */
        en_buf_printf(output, "pipe: %s", strerror(errno));
        return -1;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_fds[1]);
    if (rc != 0) {
        close(pipe_fds[0]);
        en_buf_printf(output, "cannot run %s: %s", argv[0], strerror(rc));
        if (rc == ENOENT) /* a wheel brings libenigma, never a compiler */
            en_buf_puts(output, " (the cpu backend compiles each kernel with a C compiler at run "
                                "time: install one, e.g. apt-get install gcc, or name it in ENIGMA_CC)");
        return RUN_NOT_STARTED;
    }
    char chunk[4096];
    for (;;) {
        ssize_t n = read(pipe_fds[0], chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        if (output->len < (1u << 20)) en_buf_putn(output, chunk, (size_t)n);
    }
    close(pipe_fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* splits text on white space into argv entries (no quoting: flags and the words of
 * $ENIGMA_CC, such as "ccache gcc", are words); storage holds a copy of text */
static int split_words(const char *text, char *storage, char **argv, int max) {
    int n = 0;
    strcpy(storage, text);
    char *save = NULL;
    for (char *p = strtok_r(storage, " \t\n", &save); p && n < max; p = strtok_r(NULL, " \t\n", &save))
        argv[n++] = p;
    return n;
}

/* what -march=native compiles for: the first processor's identity and feature lines of
 * /proc/cpuinfo (x86's "model name" and "flags", Arm's "CPU part" and "Features"), or of
 * $ENIGMA_CPUINFO (a test points it at another CPU's). Empty where the file is missing:
 * then the host cannot be told apart, as before. */
static void host_cpu_identity(const char *path, en_buf *out) {
    static const char *const keys[] = {"vendor_id", "cpu family", "model", "model name", "flags",
                                       "CPU implementer", "CPU architecture", "CPU variant",
                                       "CPU part", "Features", "isa"};
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[8192];
    while (fgets(line, sizeof line, f) && line[0] != '\n') {  /* the first processor's block */
        const char *colon = strchr(line, ':');
        if (!colon) continue;
        size_t name_len = (size_t)(colon - line);
        while (name_len > 0 && (line[name_len - 1] == ' ' || line[name_len - 1] == '\t')) name_len--;
        for (size_t i = 0; i < EN_COUNT(keys); i++)
            if (strlen(keys[i]) == name_len && strncmp(line, keys[i], name_len) == 0) en_buf_puts(out, line);
    }
    fclose(f);
}

/* what the built code depends on besides its C and flags: `cc --version`, and with
 * native_cpu the host CPU's identity too; each part read once per process (per compiler,
 * per cpuinfo file), since every build, a cache hit too, asks */
static pthread_mutex_t identity_lock = PTHREAD_MUTEX_INITIALIZER;
static char *identity_cc, *identity_text, *cpu_path, *cpu_text;

static char *compiler_identity(const char *cc, bool native_cpu) {
    pthread_mutex_lock(&identity_lock);
    if (!identity_cc || strcmp(identity_cc, cc) != 0) {
        en_buf out = {0};
        char *storage = malloc(strlen(cc) + 1), *argv[18];
        int n = storage ? split_words(cc, storage, argv, 16) : 0;
        argv[n++] = "--version";
        argv[n] = NULL;
        int rc = storage && n > 1 ? run_program(argv, &out) : -1;
        free(storage);
        free(identity_cc);
        free(identity_text);
        identity_cc = strdup(cc);
        identity_text = rc == 0 ? en_buf_take(&out) : strdup("");
        en_buf_free(&out);
    }
    const char *path = getenv("ENIGMA_CPUINFO");
    if (!path || !*path) path = "/proc/cpuinfo";
    if (native_cpu && (!cpu_path || strcmp(cpu_path, path) != 0)) {
        en_buf out = {0};
        host_cpu_identity(path, &out);
        free(cpu_path);
        free(cpu_text);
        cpu_path = strdup(path);
        cpu_text = out.out_of_memory ? NULL : en_buf_take(&out);
        en_buf_free(&out);
    }
    en_buf whole = {0};
    en_buf_puts(&whole, identity_text ? identity_text : "");
    if (native_cpu) en_buf_puts(&whole, cpu_text ? cpu_text : "");
    pthread_mutex_unlock(&identity_lock);
    char *r = whole.out_of_memory ? NULL : en_buf_take(&whole);
    en_buf_free(&whole);
    return r;
}

static enigma_status compile_c_once(const char *cc, const char *flags, const char *c_path,
                                    const char *so_path, en_buf *err) {
    char *storage = malloc(strlen(flags) + 1), *cc_storage = malloc(strlen(cc) + 1);
    char *argv[120];
    int n = 0;
    if (!storage || !cc_storage) {
        free(storage);
        free(cc_storage);
        return ENIGMA_ERROR_OUT_OF_MEMORY;
    }
    n += split_words(cc, cc_storage, argv + n, 16); /* "gcc", or "ccache gcc" */
    if (n == 0) {
        free(storage);
        free(cc_storage);
        en_buf_printf(err, "ENIGMA_CC='%s' names no C compiler", cc);
        return ENIGMA_ERROR_UNAVAILABLE;
    }
    argv[n++] = "-std=gnu11";
    argv[n++] = "-fno-strict-aliasing";
    n += split_words(flags, storage, argv + n, 80);
    argv[n++] = "-shared";
    argv[n++] = "-fPIC";
    argv[n++] = "-o";
    argv[n++] = (char *)so_path;
    argv[n++] = (char *)c_path;
    argv[n++] = "-lm";
    argv[n] = NULL;
    en_buf output = {0};
    int rc = run_program(argv, &output);
    free(storage);
    free(cc_storage);
    enigma_status st = ENIGMA_OK;
    if (rc == RUN_NOT_STARTED) {
        en_buf_printf(err, "%s", output.data ? output.data : "no C compiler");
        st = ENIGMA_ERROR_UNAVAILABLE;
    } else if (rc != 0) {
        en_buf_printf(err, "internal error: generated C failed to compile (this is a bug in enigma)\n"
                           "compiler: %s\n%s", cc, output.data ? output.data : "");
        st = ENIGMA_ERROR_INTERNAL;
    }
    en_buf_free(&output);
    return st;
}

/* The C compiler can crash on correct code: gcc 12 stops with "internal compiler error: in
 * extract_insn" when it vectorises MLX's merge sort (loops over shorts) for AVX-512. Such a
 * crash is the compiler's bug, not the kernel's, so the kernel is built once more with loop
 * vectorisation off, which avoids the crashing code path; the first error is kept if that
 * fails too. */
#define EN_CC_RETRY_FLAGS " -fno-tree-loop-vectorize"

static enigma_status compile_c(const char *cc, const char *flags, const char *c_path, const char *so_path,
                               en_buf *err) {
    en_buf first = {0};
    enigma_status st = compile_c_once(cc, flags, c_path, so_path, &first);
    if (st == ENIGMA_ERROR_INTERNAL && first.data && strstr(first.data, "internal compiler error")) {
        size_t n = strlen(flags) + sizeof EN_CC_RETRY_FLAGS;
        char *safer = malloc(n);
        if (safer) {
            snprintf(safer, n, "%s%s", flags, EN_CC_RETRY_FLAGS);
            en_buf second = {0};
            if (compile_c_once(cc, safer, c_path, so_path, &second) == ENIGMA_OK) st = ENIGMA_OK;
            en_buf_free(&second);
            free(safer);
        }
    }
    if (st != ENIGMA_OK) en_buf_printf(err, "%s", first.data ? first.data : "");
    en_buf_free(&first);
    return st;
}

static bool write_file(const char *path, const char *text, size_t n) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    while (n > 0) {
        ssize_t w = write(fd, text, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            close(fd);
            return false;
        }
        text += w;
        n -= (size_t)w;
    }
    return close(fd) == 0;
}

/* a loaded entry is ours only if it carries our key */
static void *open_verified(const char *path, const char *key) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) return NULL;
    const char *hash = dlsym(h, "enk_content_hash");
    if (!hash || strcmp(hash, key) != 0) {
        dlclose(h);
        return NULL;
    }
    return h;
}

/* compiles into dir (temporary names), publishing to entry_path if non-NULL */
static enigma_status build_into(const char *dir, const char *code, size_t code_len, const char *cc,
                                const char *flags, const char *entry_path, en_buf *so_out, en_buf *err) {
    en_buf c_path = {0}, so_path = {0};
    en_cache_temp_path(dir, ".c", &c_path);
    en_cache_temp_path(dir, ".so", &so_path);
    enigma_status st = ENIGMA_OK;
    if (c_path.out_of_memory || so_path.out_of_memory) st = ENIGMA_ERROR_OUT_OF_MEMORY;
    else if (!write_file(c_path.data, code, code_len)) {
        en_buf_printf(err, "cannot write %s: %s", c_path.data, strerror(errno));
        st = ENIGMA_ERROR_IO;
    } else {
        st = compile_c(cc, flags, c_path.data, so_path.data, err);
    }
    if (c_path.data) unlink(c_path.data);
    if (st == ENIGMA_OK && entry_path) {
        st = en_cache_publish(so_path.data, entry_path, err);
        so_out->len = 0;
        en_buf_puts(so_out, entry_path);
    } else if (st == ENIGMA_OK) {
        so_out->len = 0;
        en_buf_puts(so_out, so_path.data);
    } else if (so_path.data) {
        unlink(so_path.data);
    }
    en_buf_free(&c_path);
    en_buf_free(&so_path);
    return st;
}

/* resolves the module's kernels in p->library, where they are numbered from first_symbol
 * (0, or a kernel's index in the batch an alias led to) */
static enigma_status load_kernels(en_program *p, const ir_module *m, int first_symbol, en_buf *err) {
    p->kernel_count = ir_module_kernel_count(m);
    p->kernels = calloc((size_t)(p->kernel_count ? p->kernel_count : 1), sizeof(cpu_kernel));
    if (!p->kernels) return ENIGMA_ERROR_OUT_OF_MEMORY;
    int index = 0;
    for (int i = 0; i < m->funcs.count; i++) {
        const ir_func *f = m->funcs.items[i];
        if (!f->is_kernel) continue;
        cpu_kernel *k = &p->kernels[index];
        int symbol = first_symbol + index;
        char name[64];
        snprintf(name, sizeof name, "enk_kernel_%d", symbol);
        void *fn = dlsym(p->library, name);
        snprintf(name, sizeof name, "enk_kernel_%d_context", symbol);
        const size_t *context = dlsym(p->library, name);
        snprintf(name, sizeof name, "enk_kernel_%d_tg_static", symbol);
        const size_t *tg_static = dlsym(p->library, name);
        if (!fn || !context || !tg_static) {
            en_buf_printf(err, "internal error: cpu backend: kernel %s missing from its shared object", f->name);
            return ENIGMA_ERROR_INTERNAL;
        }
        memcpy(&k->run, &fn, sizeof fn);
        k->func = f;
        k->context_bytes = *context;
        k->tg_static_bytes = *tg_static;
        snprintf(name, sizeof name, "enk_kernel_%d_deferred", symbol);
        void *deferred = dlsym(p->library, name);
        memcpy(&k->deferred, &deferred, sizeof deferred);
        snprintf(name, sizeof name, "enk_kernel_%d_check_apart", symbol);
        const int *apart = p->checked ? dlsym(p->library, name) : NULL;
        k->check_apart = apart && *apart == 1;
        k->max_threads = CPU_MAX_THREADS;
        if (f->max_total_threads_per_threadgroup && f->max_total_threads_per_threadgroup < k->max_threads)
            k->max_threads = f->max_total_threads_per_threadgroup;
        index++;
    }
    return ENIGMA_OK;
}

/* Every generated file starts with the same head (emit.c: its first line, then the prelude:
 * 29 KB of the 93 KB of bench/kernels/gemm.metal's C). Its digest is taken once per process,
 * and a key hashes that digest in place of the head's text. A cache hit hashes the whole
 * program, which with SHA-256 in portable C (no SHA extensions on the bench machine's Xeon)
 * was 38% of its instructions; BLAKE2b and the head's digest take that to about 8%. */
static pthread_once_t head_once = PTHREAD_ONCE_INIT;
static size_t head_line_len, head_prelude_len;
static uint8_t head_digest[32];

static void hash_head(void) {
    head_line_len = strlen(cpu_code_first_line);
    head_prelude_len = strlen(cpu_prelude);
    en_blake2b h;
    en_blake2b_init(&h);
    en_blake2b_update(&h, cpu_code_first_line, head_line_len);
    en_blake2b_update(&h, cpu_prelude, head_prelude_len);
    en_blake2b_final(&h, head_digest);
}

/* the cache key of C code built by cc with flags (the hex BLAKE2b of all of it, its head
 * by the head's digest) */
static void code_key(const char *cc, const char *identity, const char *flags, const char *code, char key[65]) {
    en_blake2b h;
    en_blake2b_init(&h);
    const char *parts[] = {ABI_TAG, cc, identity, flags};
    for (size_t i = 0; i < EN_COUNT(parts); i++) en_blake2b_update(&h, parts[i], strlen(parts[i]) + 1);
    if (!code) code = "";
    pthread_once(&head_once, hash_head);
    if (!strncmp(code, cpu_code_first_line, head_line_len) && !strncmp(code + head_line_len, cpu_prelude, head_prelude_len)) {
        static const char marker[] = "the head's digest:";
        en_blake2b_update(&h, marker, sizeof marker);
        en_blake2b_update(&h, head_digest, sizeof head_digest);
        code += head_line_len + head_prelude_len;
    }
    en_blake2b_update(&h, code, strlen(code) + 1);
    uint8_t digest[32];
    en_blake2b_final(&h, digest);
    en_digest_hex(digest, key);
}

/* The key of module m's code found without generating it: the digest of the compile's
 * inputs (src/runtime/input_key.c: one digest, one IR), the kernels of m by name and in
 * order (a library builds them alone or in batches), and what the emission and the C
 * compiler take besides the IR: checked mode, ENIGMA_CPU_OUTLINE, the head's digest, cc,
 * its identity and the flags. Its entry is an alias of the code key's (cache.h), written
 * after the code was built or found; a hit through it loads that entry, verified against
 * the code key it names, and emits nothing. */
static void input_key(const ir_module *m, const en_build_options *o, const char *cc, const char *identity,
                      const char *flags, char key[65]) {
    en_blake2b h;
    en_blake2b_init(&h);
    static const char tag[] = "enigma cpu program from inputs 1";
    en_blake2b_update(&h, tag, sizeof tag);
    en_blake2b_update(&h, o->input_digest, sizeof o->input_digest);
    for (int i = 0; i < ir_module_kernel_count(m); i++) {
        const char *name = ir_module_kernel_at(m, i)->name;
        en_blake2b_update(&h, name, strlen(name) + 1);
    }
    const char *outline = getenv("ENIGMA_CPU_OUTLINE");
    const char *parts[] = {"|", o->checked ? "checked" : "unchecked", outline ? outline : "", ABI_TAG, cc, identity, flags};
    for (size_t i = 0; i < EN_COUNT(parts); i++) en_blake2b_update(&h, parts[i], strlen(parts[i]) + 1);
    pthread_once(&head_once, hash_head);
    en_blake2b_update(&h, head_digest, sizeof head_digest);
    uint8_t digest[32];
    en_blake2b_final(&h, digest);
    en_digest_hex(digest, key);
}

/* what write_alias needs besides the kernel */
typedef struct alias_job {
    const char *dir, *cc, *identity, *flags, *batch_key;
    const en_build_options *o;
} alias_job;

/* the key the kernel's code alone has, aliased to the batch. A failure costs a later
 * rebuild, never correctness, so it is dropped. */
static void write_alias(const ir_module *alone, const ir_func *kernel, int index, void *job_) {
    const alias_job *job = job_;
    en_buf code = {0}, ignored = {0};
    if (cpu_emit_module(alone, job->o, &code, &ignored) == ENIGMA_OK && !code.out_of_memory) {
        char key[65];
        code_key(job->cc, job->identity, job->flags, code.data, key);
        en_cache_write_alias(job->dir, key, job->batch_key, index, kernel->name, &ignored);
    }
    en_buf_free(&code);
    en_buf_free(&ignored);
}

/* the library an alias names (a kernel built in a batch, or a program found by its inputs),
 * verified against the key it names (batch_key) and holding symbol *symbol, the first
 * kernel's index there */
static void *open_alias(const char *dir, const char *key, const char *kernel, char batch_key[65], int *symbol) {
    if (!en_cache_read_alias(dir, key, kernel, batch_key, symbol)) return NULL;
    en_buf entry = {0};
    en_cache_entry_path(dir, batch_key, ".so", &entry);
    void *library = entry.out_of_memory ? NULL : open_verified(entry.data, batch_key);
    en_buf_free(&entry);
    char name[64];
    snprintf(name, sizeof name, "enk_kernel_%d", *symbol);
    if (library && !dlsym(library, name)) {
        dlclose(library);
        library = NULL;
    }
    return library;
}

/* a program found by the key of its compile's inputs (input_key), or NULL */
static en_program *open_by_inputs(const char *dir, const ir_module *m, const char *key, bool checked) {
    int kernels = ir_module_kernel_count(m), first_symbol = 0;
    en_program *p = kernels > 0 ? calloc(1, sizeof *p) : NULL;
    if (!p) return NULL;
    p->checked = checked; /* before load_kernels, which looks up checked mode's symbols */
    p->library = open_alias(dir, key, ir_module_kernel_at(m, 0)->name, p->key, &first_symbol);
    en_buf ignored = {0};
    if (!p->library || load_kernels(p, m, first_symbol, &ignored) != ENIGMA_OK) {
        cpu_jit_free(p); /* a stale or foreign alias: the build goes the long way */
        p = NULL;
    }
    en_buf_free(&ignored);
    return p;
}

enigma_status cpu_jit_build(const ir_module *m, const en_build_options *o, en_program **out,
                            en_buf *err) {
    *out = NULL;
    const char *cc = getenv("ENIGMA_CC");
    if (!cc || !*cc) cc = "cc";
    const char *flags = o && o->backend_flags ? o->backend_flags : DEFAULT_FLAGS;
    char *identity = compiler_identity(cc, strstr(flags, "native") != NULL);
    if (!identity) return ENIGMA_ERROR_OUT_OF_MEMORY;
    /* the cache folder, found once: the inputs' alias and the code's entry both live there;
     * a folder that cannot be made fails the build after emission, as before */
    bool use_cache = !(o && o->no_cache);
    en_buf dir = {0}, no_dir = {0};
    enigma_status dir_st = use_cache ? en_cache_dir(&dir, &no_dir) : ENIGMA_OK;
    int kernels = ir_module_kernel_count(m);
    char by_inputs[65] = "";
    if (use_cache && dir_st == ENIGMA_OK && o && o->has_input_digest && kernels > 0) {
        input_key(m, o, cc, identity, flags, by_inputs);
        en_program *found = open_by_inputs(dir.data, m, by_inputs, o->checked);
        if (found) {
            en_buf_free(&dir);
            free(identity);
            *out = found;
            return ENIGMA_OK;
        }
    }

    en_buf code = {0};
    enigma_status st = cpu_emit_module(m, o, &code, err);
    en_program *p = st == ENIGMA_OK ? calloc(1, sizeof *p) : NULL;
    if (!p) {
        en_buf_free(&code);
        en_buf_free(&dir);
        en_buf_free(&no_dir);
        free(identity);
        return st != ENIGMA_OK ? st : ENIGMA_ERROR_OUT_OF_MEMORY;
    }
    code_key(cc, identity, flags, code.data, p->key);
    p->checked = o && o->checked;
    en_buf_printf(&code, "\n/* the cache key of this file, checked when it is loaded */\n"
                         "const char enk_content_hash[] = \"%s\";\n", p->key);
    if (code.out_of_memory) {
        en_buf_free(&code);
        en_buf_free(&dir);
        en_buf_free(&no_dir);
        free(identity);
        free(p);
        return ENIGMA_ERROR_OUT_OF_MEMORY;
    }

    en_buf entry = {0}, so = {0};
    int first_symbol = 0;
    char loaded_key[65]; /* the key of the entry loaded: p->key's, or the batch's of an alias */
    snprintf(loaded_key, sizeof loaded_key, "%s", p->key);
    if (use_cache) {
        st = dir_st;
        if (st != ENIGMA_OK) en_buf_puts(err, no_dir.data ? no_dir.data : "");
        if (st == ENIGMA_OK) {
            en_cache_entry_path(dir.data, p->key, ".so", &entry);
            p->library = open_verified(entry.data, p->key);
            if (!p->library && kernels == 1)
                p->library = open_alias(dir.data, p->key, ir_module_kernel_at(m, 0)->name, loaded_key, &first_symbol);
            if (!p->library) {
                snprintf(loaded_key, sizeof loaded_key, "%s", p->key);
                first_symbol = 0;
                st = build_into(dir.data, code.data, code.len, cc, flags, entry.data, &so, err);
                if (st == ENIGMA_OK) p->library = open_verified(entry.data, p->key);
                if (p->library && kernels > 1) { /* after a batch: each kernel alone finds it (cache.h) */
                    alias_job job = {dir.data, cc, identity, flags, p->key, o};
                    ir_each_kernel_alone(m, write_alias, &job);
                }
            }
        }
    } else {
        const char *tmp = getenv("TMPDIR");
        en_buf_printf(&dir, "%s/enigma-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir.data)) {
            en_buf_printf(err, "cannot create a temporary folder: %s", strerror(errno));
            st = ENIGMA_ERROR_IO;
        } else {
            st = build_into(dir.data, code.data, code.len, cc, flags, NULL, &so, err);
            if (st == ENIGMA_OK) p->library = open_verified(so.data, p->key);
            if (so.data) unlink(so.data);
            rmdir(dir.data);
        }
    }
    free(identity);
    if (st == ENIGMA_OK && !p->library) {
        const char *why = dlerror();
        en_buf_printf(err, "internal error: cpu backend: cannot load the compiled kernels: %s",
                      why ? why : "the entry does not carry its key");
        st = ENIGMA_ERROR_INTERNAL;
    }
    if (st == ENIGMA_OK) st = load_kernels(p, m, first_symbol, err);
    if (st == ENIGMA_OK && use_cache && by_inputs[0]) { /* the next build of these inputs emits nothing */
        en_buf ignored = {0};
        en_cache_write_alias(dir.data, by_inputs, loaded_key, first_symbol, ir_module_kernel_at(m, 0)->name, &ignored);
        en_buf_free(&ignored);
    }
    en_buf_free(&code);
    en_buf_free(&dir);
    en_buf_free(&no_dir);
    en_buf_free(&entry);
    en_buf_free(&so);
    if (st != ENIGMA_OK) {
        cpu_jit_free(p);
        return st;
    }
    *out = p;
    return ENIGMA_OK;
}

void cpu_jit_free(en_program *p) {
    if (!p) return;
    if (p->library) dlclose(p->library);
    free(p->kernels);
    free(p);
}
