/* cli.h — what the files of the `enigma` command line share. The CLI uses only the
 * public API (include/enigma.h); it decides what to print and which exit code to use. */
#ifndef ENIGMA_CLI_H
#define ENIGMA_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "../include/enigma.h"
#include "npy.h"

enum {
    EXIT_OK = 0,
    EXIT_USAGE = 1,   /* bad command line or inputs that do not fit the kernel */
    EXIT_COMPILE = 2, /* the source has errors */
    EXIT_RUNTIME = 3, /* the library refused or failed a dispatch, or i/o failed */
    EXIT_CHECK = 4,   /* the checked mode found problems */
};

/* subcommands: argv[0] is the subcommand's name */
int cli_run(int argc, char **argv);
int cli_compile(int argc, char **argv);
int cli_info(int argc, char **argv);

/* prints "enigma: " and the message to stderr; returns `code` */
int cli_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* the exit code for a failed library call */
int cli_exit_code(enigma_status s);

/* compile options gathered from -I, -D and --constant */
typedef struct cli_compile_flags {
    const char **include_dirs;
    int include_dir_count;
    const char **defines;
    int define_count;
    const char **constants; /* function constant values, "NAME=VALUE" or "INDEX=VALUE" */
    int constant_count;
    const char *backend_flags; /* --backend-flags: the backend compiler's flags (NULL: its own) */
} cli_compile_flags;
/* consumes -I DIR, -IDIR, -D X, -DX, --constant NAME=VALUE, --backend-flags FLAGS at argv[*i]; returns 1 if it
 * did, 0 if not one of those, -1 on a missing or malformed operand (message printed) */
int cli_take_compile_flag(int argc, char **argv, int *i, cli_compile_flags *f);
void cli_compile_flags_free(cli_compile_flags *f);

/* cli_compile_many.c: builds the named kernels of lib in batches of at most batch_size
 * (0: as enigma_library_plan_batches cuts them; 1: each alone), `jobs` at once, listing
 * every failure by kernel and printing one summary line with the time since `started`
 * (CLOCK_MONOTONIC); EXIT_OK when all built */
int cli_build_kernels(enigma_library *lib, const char *file, const char *backend, bool offline, const char **names,
                      int count, int jobs, int batch_size, struct timespec started);

/* "X[,Y[,Z]]" with every part >= 1 */
bool cli_parse_size3(const char *s, enigma_size3 *out);

/* ---- values typed by a parameter (cli_values.c) ------------------------------------- */
size_t cli_scalar_size(enigma_scalar s);
const char *cli_scalar_name(enigma_scalar s);
/* the .npy dtype that holds elements of scalar s (bfloat: u2) */
bool cli_scalar_dtype(enigma_scalar s, npy_dtype *out);
/* does an .npy array of dtype t fit scalar s? (bfloat: V2 or u2) */
bool cli_dtype_fits(npy_dtype t, enigma_scalar s);
/* parses "1.5" / "3,4,5" into elements of the parameter's type (malloc'ed bytes);
 * false with a message */
bool cli_parse_numbers(const char *text, const enigma_param_info *p, void **bytes, size_t *len, char *err,
                       size_t errlen);
/* prints up to n elements of the parameter's type from `data` */
void cli_print_elements(const char *name, const enigma_param_info *p, const void *data, size_t bytes, size_t n);

float cli_half_to_float(uint16_t h);
uint16_t cli_float_to_half(float f);
float cli_bfloat_to_float(uint16_t b);
uint16_t cli_float_to_bfloat(float f);

#endif
