/* enigma.c — the `enigma` command: picks the subcommand, and holds what the subcommands
 * share (error printing, exit codes, -I/-D, sizes). Usage errors exit 1, compile errors
 * 2, runtime errors 3, problems found by the checked mode 4. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage_text[] =
    "usage: enigma COMMAND [ARGS]\n"
    "\n"
    "Compile Metal Shading Language compute kernels and run them on the CPU or NVIDIA GPUs.\n"
    "\n"
    "commands:\n"
    "  run FILE.metal ...       compile a kernel, bind its parameters, dispatch it, show results\n"
    "  compile FILE.metal ...   compile and show what a stage made (--emit ir|c|cuda)\n"
    "  info                     backends, devices and their limits\n"
    "\n"
    "enigma CMD --help shows a command's options.\n"
    "exit codes: 0 ok, 1 usage, 2 compile error, 3 runtime error, 4 the checked mode found problems\n";

int cli_error(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("enigma: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

int cli_exit_code(enigma_status s) {
    switch (s) {
    case ENIGMA_OK: return EXIT_OK;
    case ENIGMA_ERROR_COMPILE: return EXIT_COMPILE;
    case ENIGMA_ERROR_CHECK_FAILED: return EXIT_CHECK;
    case ENIGMA_ERROR_INVALID_ARGUMENT: return EXIT_USAGE;
    default: return EXIT_RUNTIME;
    }
}

static bool push(const char ***list, int *count, const char *item) {
    const char **grown = realloc(*list, sizeof **list * (size_t)(*count + 1));
    if (!grown) return false;
    grown[(*count)++] = item;
    *list = grown;
    return true;
}

int cli_take_compile_flag(int argc, char **argv, int *i, cli_compile_flags *f) {
    const char *a = argv[*i];
    if (strcmp(a, "--constant") == 0 || strncmp(a, "--constant=", 11) == 0) {
        const char *value = a[10] == '=' ? a + 11 : NULL;
        if (!value) {
            if (*i + 1 >= argc) {
                cli_error(EXIT_USAGE, "--constant needs NAME=VALUE or INDEX=VALUE");
                return -1;
            }
            value = argv[++*i];
        }
        const char *eq = strchr(value, '=');
        if (!eq || eq == value || !eq[1]) {
            cli_error(EXIT_USAGE, "--constant %s: expected NAME=VALUE or INDEX=VALUE (a function constant's "
                                  "name or [[function_constant]] index, and its value)", value);
            return -1;
        }
        if (!push(&f->constants, &f->constant_count, value)) {
            cli_error(EXIT_RUNTIME, "out of memory");
            return -1;
        }
        return 1;
    }
    if (strcmp(a, "--backend-flags") == 0) {
        if (*i + 1 >= argc) {
            cli_error(EXIT_USAGE, "--backend-flags needs the flags, e.g. --backend-flags \"-O1 -march=native\"");
            return -1;
        }
        f->backend_flags = argv[++*i];
        return 1;
    }
    if (a[0] != '-' || (a[1] != 'I' && a[1] != 'D')) return 0;
    const char *value = a + 2;
    if (!*value) {
        if (*i + 1 >= argc) {
            cli_error(EXIT_USAGE, "%s needs a %s", a, a[1] == 'I' ? "directory" : "NAME or NAME=VALUE");
            return -1;
        }
        value = argv[++*i];
    }
    bool ok = a[1] == 'I' ? push(&f->include_dirs, &f->include_dir_count, value)
                          : push(&f->defines, &f->define_count, value);
    if (!ok) {
        cli_error(EXIT_RUNTIME, "out of memory");
        return -1;
    }
    return 1;
}

void cli_compile_flags_free(cli_compile_flags *f) {
    free(f->include_dirs);
    free(f->defines);
    free(f->constants);
}

bool cli_parse_size3(const char *s, enigma_size3 *out) {
    unsigned long v[3] = {1, 1, 1};
    int n = 0;
    const char *p = s;
    while (n < 3) {
        char *end;
        if (*p < '0' || *p > '9') return false;
        v[n++] = strtoul(p, &end, 10);
        if (v[n - 1] == 0 || v[n - 1] > UINT32_MAX) return false;
        p = end;
        if (*p == 0) break;
        if (*p != ',') return false;
        p++;
    }
    if (*p) return false;
    *out = (enigma_size3){(uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2]};
    return true;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage_text, stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("enigma %s\n", enigma_version());
        return EXIT_OK;
    }
    if (strcmp(cmd, "run") == 0) return cli_run(argc - 1, argv + 1);
    if (strcmp(cmd, "compile") == 0) return cli_compile(argc - 1, argv + 1);
    if (strcmp(cmd, "info") == 0) return cli_info(argc - 1, argv + 1);
    cli_error(EXIT_USAGE, "unknown command '%s' (expected run, compile or info)", cmd);
    fputs(usage_text, stderr);
    return EXIT_USAGE;
}
