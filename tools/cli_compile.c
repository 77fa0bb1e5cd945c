/* cli_compile.c — `enigma compile`: compile a file and show what a stage made.
 *
 * --emit ir|c|cuda runs the front end and prints the IR or a backend's generated code;
 * it needs no device, so CUDA C can be inspected on a machine without a GPU. Without
 * --emit the file is built for the backend (cpu: through the system C compiler; cuda
 * without a GPU: through NVRTC, enigma_library_build_offline), which is how a build
 * problem shows before a run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static const char compile_help[] =
    "usage: enigma compile FILE.metal [-k KERNEL]... [--emit ir|c|cuda] [--backend cpu|cuda] [-o FILE] [-j N]\n"
    "                      [--batch N]\n"
    "                      [--check] [-I DIR]... [-D NAME[=VALUE]]... [--constant NAME=VALUE]...\n"
    "                      [--backend-flags FLAGS]\n"
    "\n"
    "  --emit ir|c|cuda   print the kernel IR, the cpu backend's C, or the cuda backend's CUDA C\n"
    "                     (needs no device; without --emit the file is built for --backend)\n"
    "  --backend B        cpu (default) or cuda; without a GPU, cuda compiles with NVRTC for\n"
    "                     $ENIGMA_CUDA_ARCH (default sm_90), or only generates the CUDA C where\n"
    "                     NVRTC is missing too\n"
    "  -k KERNEL          only this kernel (by its host name): emitted or built alone, as a\n"
    "                     library of many kernels builds it when its pipeline is made; more\n"
    "                     than one -k builds each of them, in batches\n"
    "  -j, --jobs N       builds at once, when a library of more than 16 kernels (or several\n"
    "                     -k kernels) is built in batches (default: the CPU count)\n"
    "  --batch N          at most N kernels to one build (one C compiler or NVRTC run); by\n"
    "                     default up to 16, fewer where the kernels are large or the jobs\n"
    "                     would get few batches (so a warm cache needs the same -j); 1: each\n"
    "                     kernel alone, as its pipeline builds it\n"
    "  -o FILE            write the emitted text to FILE instead of standard output\n"
    "  --check            compile with checked-mode instrumentation\n"
    "  -I DIR, -D NAME[=VALUE]   include directories and macro definitions\n"
    "  --constant NAME=VALUE     the value of a [[function_constant]] (by name, or by its index:\n"
    "                            --constant 600=4); kernels are specialised to it\n"
    "  --backend-flags FLAGS     the backend compiler's flags in place of its own: cpu, the C\n"
    "                            compiler's (default \"-O2 -march=native\"); cuda, extra NVRTC options\n"
    "\n"
    "Diagnostics go to standard error as FILE:LINE:COL: error: message.\n"
    "exit codes: 0 ok, 1 usage, 2 compile error, 3 runtime error (a backend failed or is missing)\n";

static int write_text(const char *path, const char *text) {
    if (!path) {
        fputs(text, stdout);
        return EXIT_OK;
    }
    FILE *f = fopen(path, "w");
    if (!f) return cli_error(EXIT_RUNTIME, "cannot write %s", path);
    bool ok = fputs(text, f) >= 0;
    if (fclose(f) != 0) ok = false;
    return ok ? EXIT_OK : cli_error(EXIT_RUNTIME, "cannot write %s", path);
}

int cli_compile(int argc, char **argv) {
    const char *file = NULL, *emit = NULL, *backend = NULL, *out = NULL, *kernel = NULL;
    const char **kernels = NULL; /* every -k */
    int kernel_count = 0, jobs = (int)sysconf(_SC_NPROCESSORS_ONLN), batch_size = 0;
    bool checked = false;
    cli_compile_flags flags = {0};
    int code = EXIT_OK;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int took;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(compile_help, stdout);
            cli_compile_flags_free(&flags);
            return EXIT_OK;
        } else if ((took = cli_take_compile_flag(argc, argv, &i, &flags)) != 0) {
            if (took < 0) { code = EXIT_USAGE; goto done; }
        } else if (strcmp(a, "--check") == 0) {
            checked = true;
        } else if (strcmp(a, "--jobs") == 0 || strcmp(a, "-j") == 0) {
            char *end;
            long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
            if (i + 1 >= argc || *end || v < 1 || v > 1024) {
                code = cli_error(EXIT_USAGE, "compile: %s needs a number of builds at once (1 to 1024)", a);
                goto done;
            }
            jobs = (int)v;
            i++;
        } else if (strcmp(a, "--batch") == 0) {
            char *end;
            long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
            if (i + 1 >= argc || *end || v < 1 || v > 100000) {
                code = cli_error(EXIT_USAGE, "compile: --batch needs a number of kernels to one build (1 or more)");
                goto done;
            }
            batch_size = (int)v;
            i++;
        } else if (strcmp(a, "--emit") == 0 || strcmp(a, "--backend") == 0 || strcmp(a, "-o") == 0 ||
                   strcmp(a, "-k") == 0) {
            if (i + 1 >= argc) { code = cli_error(EXIT_USAGE, "compile: %s needs a value", a); goto done; }
            const char *v = argv[++i];
            if (a[1] == 'k') {
                const char **grown = realloc(kernels, sizeof *kernels * (size_t)(kernel_count + 1));
                if (!grown) { code = cli_error(EXIT_RUNTIME, "out of memory"); goto done; }
                kernels = grown;
                kernels[kernel_count++] = kernel = v;
            }
            else if (a[2] == 'e') emit = v;
            else if (a[2] == 'b') backend = v;
            else out = v;
        } else if (a[0] == '-' && a[1]) {
            code = cli_error(EXIT_USAGE, "compile: unknown option '%s' (see enigma compile --help)", a);
            goto done;
        } else if (!file) {
            file = a;
        } else {
            code = cli_error(EXIT_USAGE, "compile: more than one file ('%s' and '%s')", file, a);
            goto done;
        }
    }
    if (!file) { code = cli_error(EXIT_USAGE, "compile: no FILE.metal given (see enigma compile --help)"); goto done; }
    if (emit && strcmp(emit, "ir") != 0 && strcmp(emit, "c") != 0 && strcmp(emit, "cuda") != 0) {
        code = cli_error(EXIT_USAGE, "compile: unknown --emit '%s' (expected ir, c or cuda)", emit);
        goto done;
    }
    if (backend && strcmp(backend, "cpu") != 0 && strcmp(backend, "cuda") != 0) {
        code = cli_error(EXIT_USAGE, "compile: unknown backend '%s' (expected cpu or cuda)", backend);
        goto done;
    }
    if (emit && backend && ((strcmp(emit, "c") == 0 && strcmp(backend, "cpu") != 0) ||
                            (strcmp(emit, "cuda") == 0 && strcmp(backend, "cuda") != 0))) {
        code = cli_error(EXIT_USAGE, "compile: --emit %s is the %s backend's code, not the %s backend's", emit,
                         strcmp(emit, "c") == 0 ? "cpu" : "cuda", backend);
        goto done;
    }
    if (out && !emit) { code = cli_error(EXIT_USAGE, "compile: -o needs --emit ir|c|cuda"); goto done; }
    if (emit && kernel_count > 1) { code = cli_error(EXIT_USAGE, "compile: --emit takes one -k KERNEL"); goto done; }
    if (!backend) backend = emit && strcmp(emit, "cuda") == 0 ? "cuda" : "cpu";

    enigma_compile_options opts = {
        .include_dirs = flags.include_dirs, .include_dir_count = flags.include_dir_count,
        .defines = flags.defines, .define_count = flags.define_count,
        .function_constants = flags.constants, .function_constant_count = flags.constant_count, .checked = checked,
        .backend_flags = flags.backend_flags,
    };
    /* a device only to build for cpu or for a cuda that is present; --emit needs none, and
     * without a GPU the cuda build runs as far as it can (NVRTC to a cubin) */
    enigma_device *dev = NULL;
    bool offline = false;
    char why[512] = "";
    if (!emit) {
        enigma_status st = enigma_device_open(backend, &dev);
        if (st != ENIGMA_OK) {
            if (strcmp(backend, "cpu") == 0) { code = cli_error(cli_exit_code(st), "%s", enigma_last_error()); goto done; }
            snprintf(why, sizeof why, "%s", enigma_last_error());
            offline = true;
            dev = NULL;
        }
    }
    /* the time a build reports is from here: a library of 16 kernels or fewer is built
     * whole when it is made, and the front end is part of any build's time */
    struct timespec started;
    clock_gettime(CLOCK_MONOTONIC, &started);
    enigma_library *lib = NULL;
    enigma_status st = enigma_library_create_from_file(dev, file, &opts, &lib);
    if (lib) fputs(enigma_library_diagnostics_text(lib), stderr);
    int n = enigma_library_kernel_count(lib);
    if (st != ENIGMA_OK) {
        /* a file that cannot be read is the caller's mistake, as in `enigma run` */
        code = st == ENIGMA_ERROR_IO ? EXIT_USAGE : st == ENIGMA_ERROR_INVALID_ARGUMENT ? EXIT_RUNTIME : cli_exit_code(st);
        if (!lib || st != ENIGMA_ERROR_COMPILE) cli_error(code, "%s", enigma_last_error());
    } else if (!emit && (kernel_count > 0 || n > 16) && (offline || dev)) {
        /* in batches: all of them, or those named */
        const char **names = kernel_count ? kernels : malloc(sizeof *names * (size_t)(n ? n : 1));
        if (!names) {
            code = cli_error(EXIT_RUNTIME, "out of memory");
        } else {
            if (!kernel_count)
                for (int k = 0; k < n; k++) names[k] = enigma_library_kernel_name(lib, k);
            /* with a device, a library of 16 kernels or fewer is one program already */
            bool built_whole = dev && n <= 16;
            code = cli_build_kernels(lib, file, backend, offline, names, kernel_count ? kernel_count : n,
                                     built_whole ? 1 : jobs, built_whole ? n : batch_size, started);
            if (!kernel_count) free(names);
        }
    } else if (offline) {
        char *summary = NULL;
        st = enigma_library_build_offline_kernel(lib, backend, kernel, &summary);
        if (st == ENIGMA_OK) {
            printf("%s: %s", file, summary);
            if (!*summary || summary[strlen(summary) - 1] != '\n') printf("\n");
        } else if (st == ENIGMA_ERROR_UNAVAILABLE) {
            /* no compiler for the backend here either: still check the code generation */
            char *text = NULL, nvrtc_why[512];
            snprintf(nvrtc_why, sizeof nvrtc_why, "%s", enigma_last_error());
            st = enigma_library_emit_kernel(lib, "cuda", kernel, &text);
            if (st == ENIGMA_OK)
                printf("%s: %d kernel%s: CUDA C generated, not compiled (%s; %s)\n", file, n, n == 1 ? "" : "s", why,
                       nvrtc_why);
            else
                code = cli_error(EXIT_RUNTIME, "%s", enigma_last_error());
            enigma_free(text);
        } else {
            code = cli_error(st == ENIGMA_ERROR_COMPILE ? EXIT_COMPILE : EXIT_RUNTIME, "%s", enigma_last_error());
        }
        enigma_free(summary);
    } else if (emit) {
        char *text = NULL;
        st = enigma_library_emit_kernel(lib, emit, kernel, &text);
        if (st != ENIGMA_OK) code = cli_error(cli_exit_code(st) == EXIT_USAGE ? EXIT_RUNTIME : cli_exit_code(st), "%s",
                                              enigma_last_error());
        else
            code = write_text(out, text);
        enigma_free(text);
    } else {
        printf("%s: %d kernel%s for %s:", file, n, n == 1 ? "" : "s", backend);
        for (int k = 0; k < n; k++) printf(" %s", enigma_library_kernel_name(lib, k));
        printf("\n");
    }
    enigma_library_destroy(lib);
    enigma_device_close(dev);
done:
    free(kernels);
    cli_compile_flags_free(&flags);
    return code;
}
