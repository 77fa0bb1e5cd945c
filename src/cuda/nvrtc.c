/* nvrtc.c — kernels to a cubin for one GPU architecture: their CUDA C (emit.c) through NVRTC
 * and the content-addressed cache on disk (src/base/cache.h).
 *
 * Needs: an inlined module; NVRTC (dl.c) and the CUDA headers folder (for cuda_fp16.h and
 * cuda_bf16.h, which this NVRTC does not carry built in).
 * Guarantees: a cubin compiled for exactly sm_<major><minor> (no PTX, no JIT at load), or
 * ENIGMA_ERROR_INTERNAL with NVRTC's log when the generated code does not compile (a bug
 * in enigma), or ENIGMA_ERROR_UNAVAILABLE when NVRTC or the headers are missing.
 * The cache key covers everything that decides the bytes: the source, NVRTC's version,
 * the options and the architecture. A cache entry that is not an ELF file is ignored.
 * A batch (several kernels in one cubin, as `enigma compile` builds a library) leaves an
 * alias for each of its kernels, under the key that kernel's CUDA C alone has; building
 * that kernel alone later (its pipeline) follows the alias to the batch's cubin, which holds
 * the kernel under the same name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../base/cache.h"
#include "../base/sha256.h"
#include "check.h"
#include "internal.h"

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void en_cuda_offline_arch(int *major, int *minor) {
    *major = 9;
    *minor = 0;
    const char *s = getenv("ENIGMA_CUDA_ARCH");
    if (!s || !*s) return;
    if (strncmp(s, "sm_", 3) == 0 || strncmp(s, "compute_", 8) == 0) s = strchr(s, '_') + 1;
    int a = 0, b = 0;
    if (sscanf(s, "%d.%d", &a, &b) == 2 && a > 0) {
        *major = a;
        *minor = b;
    } else if (sscanf(s, "%d", &a) == 1 && a >= 10) {
        *major = a / 10;
        *minor = a % 10;
    }
}

static bool file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* the folder holding cuda_fp16.h: $CUDA_HOME, $CUDA_PATH, beside libnvrtc, /usr/local/cuda */
static bool find_cuda_include(const en_nvrtc_lib *lib, char *dir, size_t size) {
    const char *roots[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), NULL, "/usr/local/cuda"};
    char beside[512] = "";
    const char *slash = strrchr(lib->path, '/');
    if (slash) { /* <root>/lib64/libnvrtc.so -> <root> */
        snprintf(beside, sizeof beside, "%.*s/..", (int)(slash - lib->path), lib->path);
        roots[2] = beside;
    }
    char probe[640];
    for (size_t i = 0; i < EN_COUNT(roots); i++) {
        if (!roots[i] || !*roots[i]) continue;
        snprintf(probe, sizeof probe, "%s/include/cuda_fp16.h", roots[i]);
        if (file_exists(probe)) {
            snprintf(dir, size, "%s/include", roots[i]);
            return true;
        }
        snprintf(probe, sizeof probe, "%s/targets/x86_64-linux/include/cuda_fp16.h", roots[i]);
        if (file_exists(probe)) {
            snprintf(dir, size, "%s/targets/x86_64-linux/include", roots[i]);
            return true;
        }
    }
    return false;
}

/* splits extra options at spaces into opts[*n...] (they live in `storage`) */
static void split_options(char *storage, const char **opts, int *n, int max) {
    for (char *p = storage; *p && *n < max;) {
        while (*p == ' ' || *p == '\t') *p++ = 0;
        if (!*p) break;
        opts[(*n)++] = p;
        while (*p && *p != ' ' && *p != '\t') p++;
    }
}

static void cache_key(const char *source, int nv_major, int nv_minor, const char *const *opts,
                      int n, char hex[65]) {
    en_sha256 s;
    en_sha256_init(&s);
    static const char tag[] = "enigma-cuda-cubin-v1";
    en_sha256_update(&s, tag, sizeof tag);
    int version[2] = {nv_major, nv_minor};
    en_sha256_update(&s, version, sizeof version);
    for (int i = 0; i < n; i++) en_sha256_update(&s, opts[i], strlen(opts[i]) + 1);
    en_sha256_update(&s, source, strlen(source));
    uint8_t digest[32];
    en_sha256_final(&s, digest);
    en_digest_hex(digest, hex);
}

static bool looks_like_cubin(const void *data, size_t n) {
    return n > 64 && memcmp(data, "\x7f" "ELF", 4) == 0;
}

/* the cubin of the batch key's alias leads to, when it names this kernel and holds it */
static bool read_alias(const char *dir, const char *key, const char *kernel, en_buf *bytes) {
    char batch_key[65];
    int index;
    if (!en_cache_read_alias(dir, key, kernel, batch_key, &index)) return false;
    en_buf entry = {0};
    en_cache_entry_path(dir, batch_key, ".cubin", &entry);
    bool ok = !entry.out_of_memory && en_cache_read(entry.data, bytes) && looks_like_cubin(bytes->data, bytes->len) &&
              memmem(bytes->data, bytes->len, kernel, strlen(kernel) + 1); /* its name in the symbol table */
    en_buf_free(&entry);
    return ok;
}

/* what write_alias needs besides the kernel */
typedef struct alias_job {
    const char *dir, *batch_key;
    int nv_major, nv_minor, option_count;
    const char *const *options;
} alias_job;

/* the key the kernel's CUDA C alone has, aliased to the batch. A failure costs a later
 * build, never correctness: it is dropped. */
static void write_alias(const ir_module *alone, const ir_func *kernel, int index, void *job_) {
    const alias_job *job = job_;
    en_buf source = {0}, ignored = {0};
    if (en_cuda_emit(alone, &source, &ignored) == ENIGMA_OK && !source.out_of_memory) {
        char key[65];
        cache_key(source.data, job->nv_major, job->nv_minor, job->options, job->option_count, key);
        en_cache_write_alias(job->dir, key, job->batch_key, index, kernel->name, &ignored);
    }
    en_buf_free(&source);
    en_buf_free(&ignored);
}

enigma_status en_nvrtc_compile(const ir_module *m, int major, int minor, const char *extra_options,
                               bool no_cache, en_cubin *out, en_buf *err) {
    memset(out, 0, sizeof *out);
    en_buf source = {0};
    enigma_status st = en_cuda_emit(m, &source, err);
    if (st != ENIGMA_OK) {
        en_buf_free(&source);
        return st;
    }
    const en_nvrtc_lib *lib = en_nvrtc_load(err);
    if (!lib) {
        en_buf_free(&source);
        return ENIGMA_ERROR_UNAVAILABLE;
    }
    char include_dir[600];
    if (!find_cuda_include(lib, include_dir, sizeof include_dir)) {
        en_buf_free(&source);
        en_buf_puts(err, "the CUDA headers (cuda_fp16.h) were not found under $CUDA_HOME/include, "
                         "$CUDA_PATH/include, beside libnvrtc or in /usr/local/cuda/include");
        return ENIGMA_ERROR_UNAVAILABLE;
    }
    /* sm_90 (H100, H200) builds for sm_90a, its arch-specific features: wgmma (wgmma.c). The
     * name is in the options, so in the cache key. */
    bool arch_specific = major == 9 && minor == 0 && en_cuda_wgmma_enabled();
    snprintf(out->arch, sizeof out->arch, "sm_%d%d%s", major, minor, arch_specific ? "a" : "");

    char arch_opt[64], include_opt[640];
    snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=%s", out->arch);
    snprintf(include_opt, sizeof include_opt, "-I%s", include_dir);
    const char *opts[48] = {arch_opt, "-default-device", "--std=c++17", include_opt,
                            /* 177: unused label or variable; 550: set but never used */
                            "-diag-suppress=177,550"};
    int n = 5;
    char *extra = extra_options && *extra_options ? strdup(extra_options) : NULL;
    if (extra) split_options(extra, opts, &n, (int)EN_COUNT(opts));

    int nv_major = 0, nv_minor = 0;
    EN_CU(lib, NULL, nvrtcVersion(&nv_major, &nv_minor));
    char key[65];
    cache_key(source.data, nv_major, nv_minor, opts, n, key);
    int kernels = ir_module_kernel_count(m);

    en_buf dir = {0}, entry = {0}, scratch = {0};
    bool cache_ok = !no_cache && en_cache_dir(&dir, &scratch) == ENIGMA_OK;
    if (cache_ok) {
        en_cache_entry_path(dir.data, key, ".cubin", &entry);
        double t0 = now_ms();
        en_buf bytes = {0};
        if ((en_cache_read(entry.data, &bytes) && looks_like_cubin(bytes.data, bytes.len)) ||
            (kernels == 1 && read_alias(dir.data, key, ir_module_kernel_at(m, 0)->name, &bytes))) {
            out->size = bytes.len;
            out->data = en_buf_take(&bytes);
            out->from_cache = true;
            out->load_ms = now_ms() - t0;
            goto done;
        }
        en_buf_free(&bytes);
    }

    double t0 = now_ms();
    nvrtcProgram prog = NULL;
    if (EN_CU(lib, err, nvrtcCreateProgram(&prog, source.data, "enigma.cu", 0, NULL, NULL))) {
        st = ENIGMA_ERROR_INTERNAL;
        goto done;
    }
    en_buf why = {0};
    if (EN_CU(lib, &why, nvrtcCompileProgram(prog, n, opts))) {
        size_t log_size = 0;
        en_buf_puts(err, "internal error: generated CUDA C failed to compile (this is a bug in enigma): ");
        en_buf_puts(err, why.data ? why.data : "");
        en_buf_free(&why);
        if (lib->nvrtcGetProgramLogSize(prog, &log_size) == 0 && log_size > 1) {
            char *log = malloc(log_size);
            if (log && lib->nvrtcGetProgramLog(prog, log) == 0) {
                en_buf_puts(err, "\nNVRTC log:\n");
                en_buf_puts(err, log);
            }
            free(log);
        }
        lib->nvrtcDestroyProgram(&prog);
        st = ENIGMA_ERROR_INTERNAL;
        goto done;
    }
    size_t size = 0;
    if (EN_CU(lib, err, nvrtcGetCUBINSize(prog, &size)) || size == 0) {
        lib->nvrtcDestroyProgram(&prog);
        st = ENIGMA_ERROR_INTERNAL;
        goto done;
    }
    out->data = malloc(size);
    if (!out->data) {
        lib->nvrtcDestroyProgram(&prog);
        en_buf_puts(err, "out of memory for the cubin");
        st = ENIGMA_ERROR_OUT_OF_MEMORY;
        goto done;
    }
    if (EN_CU(lib, err, nvrtcGetCUBIN(prog, out->data))) {
        lib->nvrtcDestroyProgram(&prog);
        st = ENIGMA_ERROR_INTERNAL;
        goto done;
    }
    out->size = size;
    lib->nvrtcDestroyProgram(&prog);
    out->compile_ms = now_ms() - t0;
    /* a cache that cannot be written costs speed, not correctness: the error is dropped */
    if (cache_ok && en_cache_write(dir.data, entry.data, out->data, out->size, &scratch) == ENIGMA_OK && kernels > 1) {
        alias_job job = {dir.data, key, nv_major, nv_minor, n, opts};
        ir_each_kernel_alone(m, write_alias, &job); /* each kernel alone finds the batch */
    }

done:
    free(extra);
    en_buf_free(&source);
    en_buf_free(&dir);
    en_buf_free(&entry);
    en_buf_free(&scratch);
    if (st != ENIGMA_OK) en_cubin_free(out);
    return st;
}

void en_cubin_free(en_cubin *c) {
    free(c->data);
    c->data = NULL;
    c->size = 0;
}
