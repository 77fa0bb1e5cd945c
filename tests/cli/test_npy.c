/* test_npy.c — tools/npy.c on its own: every dtype round-trips through npy_write and
 * npy_read with its shape; hand-made files cover what NumPy writes that enigma must
 * read (version 2.0 headers, '|b1', '<' or '=' byte orders) and what it must refuse
 * with a clear message (Fortran order, big-endian, float64, truncated data, no magic). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npy.h"

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

static char dir[256];

static const char *path_of(const char *name) {
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

/* writes a .npy by hand: header dict `dict`, format `major`, then `data` */
static void write_raw(const char *name, int major, const char *dict, const void *data, size_t bytes) {
    FILE *f = fopen(path_of(name), "wb");
    size_t pre = major == 1 ? 10 : 12, len = strlen(dict) + 1;
    size_t total = (pre + len + 63) / 64 * 64, hlen = total - pre;
    fwrite("\x93NUMPY", 1, 6, f);
    fputc(major, f);
    fputc(0, f);
    for (size_t i = 0; i < (major == 1 ? 2u : 4u); i++) fputc((int)((hlen >> (8 * i)) & 0xff), f);
    fputs(dict, f);
    for (size_t i = pre + len; i < total; i++) fputc(' ', f);
    fputc('\n', f);
    if (bytes) fwrite(data, 1, bytes, f);
    fclose(f);
}

static void expect_error(const char *name, const char *needle) {
    npy_array a;
    char err[512] = "";
    CHECK(!npy_read(path_of(name), &a, err, sizeof err));
    if (!strstr(err, needle)) {
        fprintf(stderr, "reading %s: error \"%s\" lacks \"%s\"\n", name, err, needle);
        failures++;
    }
    CHECK(strstr(err, name) != NULL); /* the message names the file */
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/enigma-npy-test-XXXXXX");
    if (!mkdtemp(dir)) return 1;
    char err[512];

    /* every dtype round-trips, with 1-D, 2-D and 0-D shapes */
    for (int t = 0; t < NPY_DTYPE_COUNT; t++) {
        size_t item = npy_itemsize((npy_dtype)t);
        size_t shapes[3][2] = {{7, 0}, {3, 5}, {0, 0}};
        int ndims[3] = {1, 2, 0};
        for (int s = 0; s < 3; s++) {
            size_t count = ndims[s] == 0 ? 1 : ndims[s] == 1 ? shapes[s][0] : shapes[s][0] * shapes[s][1];
            unsigned char *data = malloc(count * item);
            for (size_t i = 0; i < count * item; i++) data[i] = (unsigned char)(rand() & 0xff);
            if (t == NPY_BOOL)
                for (size_t i = 0; i < count; i++) data[i] &= 1;
            CHECK(npy_write(path_of("rt.npy"), (npy_dtype)t, shapes[s], ndims[s], data, count * item, err, sizeof err));
            npy_array a;
            CHECK(npy_read(path_of("rt.npy"), &a, err, sizeof err));
            CHECK(a.dtype == (npy_dtype)t);
            CHECK(a.ndim == ndims[s]);
            for (int d = 0; d < ndims[s]; d++) CHECK(a.shape[d] == shapes[s][d]);
            CHECK(a.count == count && a.bytes == count * item);
            CHECK(a.data && memcmp(a.data, data, count * item) == 0);
            npy_free(&a);
            free(data);
        }
    }

    /* what numpy writes: version 2.0, '=' and '<' orders, '|b1' */
    float f4[3] = {1.5f, -2.25f, 3.0f};
    write_raw("v2.npy", 2, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", f4, sizeof f4);
    npy_array a;
    CHECK(npy_read(path_of("v2.npy"), &a, err, sizeof err));
    CHECK(a.dtype == NPY_F4 && a.count == 3 && memcmp(a.data, f4, sizeof f4) == 0);
    npy_free(&a);
    write_raw("native.npy", 1, "{'descr': '=i4', 'fortran_order': False, 'shape': (1, 3), }", f4, sizeof f4);
    CHECK(npy_read(path_of("native.npy"), &a, err, sizeof err) && a.dtype == NPY_I4 && a.ndim == 2);
    npy_free(&a);
    unsigned char bools[2] = {1, 0};
    write_raw("bool.npy", 1, "{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", bools, 2);
    CHECK(npy_read(path_of("bool.npy"), &a, err, sizeof err) && a.dtype == NPY_BOOL && a.count == 2);
    npy_free(&a);

    /* refused, each with its reason */
    write_raw("fortran.npy", 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (3,), }", f4, sizeof f4);
    expect_error("fortran.npy", "Fortran-order");
    write_raw("big.npy", 1, "{'descr': '>f4', 'fortran_order': False, 'shape': (3,), }", f4, sizeof f4);
    expect_error("big.npy", "big-endian");
    write_raw("f8.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", f4, 8);
    expect_error("f8.npy", "dtype '<f8' is not supported");
    write_raw("short.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", f4, sizeof f4);
    expect_error("short.npy", "truncated: the header promises 16 bytes of data but the file holds 12");
    write_raw("struct.npy", 1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", f4, 4);
    expect_error("struct.npy", "structured dtypes are not supported");
    FILE *f = fopen(path_of("plain.npy"), "wb");
    fputs("not numpy at all", f);
    fclose(f);
    expect_error("plain.npy", "not a .npy file");
    expect_error("missing.npy", "No such file");

    const char *names[] = {"rt.npy", "v2.npy", "native.npy", "bool.npy", "fortran.npy", "big.npy", "f8.npy",
                           "short.npy", "struct.npy", "plain.npy"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) unlink(path_of(names[i]));
    rmdir(dir);
    if (failures) fprintf(stderr, "test_npy: %d check(s) failed\n", failures);
    else printf("test_npy: ok\n");
    return failures ? 1 : 0;
}
