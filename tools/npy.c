/* npy.c — the .npy format: a magic string, a version, a header that is a Python dict
 * literal ({'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }), then the raw
 * array. The header is parsed strictly enough to refuse what enigma cannot bind
 * (Fortran order, big-endian or unsupported dtypes, truncated data) with a message that
 * says which, rather than binding wrong bytes. */
#include "npy.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *code; /* without the byte-order character */
    size_t size;
} dtypes[NPY_DTYPE_COUNT] = {
    [NPY_BOOL] = {"b1", 1}, [NPY_I1] = {"i1", 1}, [NPY_U1] = {"u1", 1}, [NPY_I2] = {"i2", 2},
    [NPY_U2] = {"u2", 2},   [NPY_I4] = {"i4", 4}, [NPY_U4] = {"u4", 4}, [NPY_I8] = {"i8", 8},
    [NPY_U8] = {"u8", 8},   [NPY_F2] = {"f2", 2}, [NPY_F4] = {"f4", 4}, [NPY_V2] = {"V2", 2},
};

const char *npy_descr(npy_dtype t) {
    static const char *descr[NPY_DTYPE_COUNT] = {
        [NPY_BOOL] = "|b1", [NPY_I1] = "|i1", [NPY_U1] = "|u1", [NPY_I2] = "<i2", [NPY_U2] = "<u2", [NPY_I4] = "<i4",
        [NPY_U4] = "<u4",   [NPY_I8] = "<i8", [NPY_U8] = "<u8", [NPY_F2] = "<f2", [NPY_F4] = "<f4", [NPY_V2] = "|V2",
    };
    return (unsigned)t < NPY_DTYPE_COUNT ? descr[t] : "?";
}

size_t npy_itemsize(npy_dtype t) { return (unsigned)t < NPY_DTYPE_COUNT ? dtypes[t].size : 0; }

static bool fail(char *err, size_t errlen, const char *path, const char *what) {
    snprintf(err, errlen, "%s: %s", path, what);
    return false;
}

/* the text after 'key': in the header dict, or NULL */
static const char *dict_value(const char *h, const char *key) {
    char quoted[32];
    snprintf(quoted, sizeof quoted, "'%s'", key);
    const char *p = strstr(h, quoted);
    if (!p) {
        snprintf(quoted, sizeof quoted, "\"%s\"", key);
        p = strstr(h, quoted);
    }
    if (!p) return NULL;
    p += strlen(quoted);
    while (*p == ' ') p++;
    if (*p != ':') return NULL;
    p++;
    while (*p == ' ') p++;
    return p;
}

static bool parse_descr(const char *v, npy_dtype *out, char *msg, size_t msglen) {
    if (*v != '\'' && *v != '"') {
        snprintf(msg, msglen, "structured dtypes are not supported");
        return false;
    }
    char q = *v++;
    const char *end = strchr(v, q);
    if (!end || end - v > 15) {
        snprintf(msg, msglen, "malformed descr in the header");
        return false;
    }
    char d[16];
    memcpy(d, v, (size_t)(end - v));
    d[end - v] = 0;
    char order = d[0];
    const char *code = d;
    if (order == '<' || order == '>' || order == '|' || order == '=') code = d + 1;
    else order = '|';
    for (int t = 0; t < NPY_DTYPE_COUNT; t++) {
        if (strcmp(code, dtypes[t].code) != 0) continue;
        if (order == '>' && dtypes[t].size > 1) {
            snprintf(msg, msglen, "big-endian dtype '%s' is not supported (convert with .astype('<%s'))", d, code);
            return false;
        }
        *out = (npy_dtype)t;
        return true;
    }
    if (strcmp(code, "?") == 0) { /* numpy's bool spells itself '|b1'; accept '?' too */
        *out = NPY_BOOL;
        return true;
    }
    snprintf(msg, msglen, "dtype '%s' is not supported (supported: bool, int8/16/32/64, uint8/16/32/64, float16, "
                          "float32, and V2 or uint16 for bfloat)", d);
    return false;
}

static bool parse_shape(const char *v, npy_array *a, char *msg, size_t msglen) {
    if (*v != '(') {
        snprintf(msg, msglen, "malformed shape in the header");
        return false;
    }
    v++;
    a->ndim = 0;
    a->count = 1;
    for (;;) {
        while (*v == ' ' || *v == ',') v++;
        if (*v == ')') break;
        if (a->ndim == NPY_MAX_DIMS) {
            snprintf(msg, msglen, "more than %d dimensions", NPY_MAX_DIMS);
            return false;
        }
        char *end;
        errno = 0;
        unsigned long long n = strtoull(v, &end, 10);
        if (end == v || errno) {
            snprintf(msg, msglen, "malformed shape in the header");
            return false;
        }
        v = end;
        while (*v == 'L') v++; /* Python 2 longs */
        a->shape[a->ndim++] = (size_t)n;
        if (n && a->count > SIZE_MAX / n) {
            snprintf(msg, msglen, "shape too large");
            return false;
        }
        a->count *= (size_t)n;
    }
    return true;
}

bool npy_read(const char *path, npy_array *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) return fail(err, errlen, path, strerror(errno));
    unsigned char pre[12];
    char msg[256];
    bool ok = false;
    char *header = NULL;
    size_t n = fread(pre, 1, 10, f);
    if (n < 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        fail(err, errlen, path, "not a .npy file (no \\x93NUMPY magic)");
        goto done;
    }
    int major = pre[6];
    size_t header_len;
    if (major == 1) {
        header_len = (size_t)pre[8] | (size_t)pre[9] << 8;
    } else if (major == 2 || major == 3) {
        if (fread(pre + 10, 1, 2, f) != 2) {
            fail(err, errlen, path, "truncated header");
            goto done;
        }
        header_len = (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    } else {
        snprintf(msg, sizeof msg, ".npy format version %d.%d is not supported (1.0, 2.0, 3.0 are)", major, pre[7]);
        fail(err, errlen, path, msg);
        goto done;
    }
    if (header_len > (1u << 24)) {
        fail(err, errlen, path, "header too large");
        goto done;
    }
    header = malloc(header_len + 1);
    if (!header || fread(header, 1, header_len, f) != header_len) {
        fail(err, errlen, path, header ? "truncated header" : "out of memory");
        goto done;
    }
    header[header_len] = 0;
    const char *descr = dict_value(header, "descr"), *fortran = dict_value(header, "fortran_order"),
               *shape = dict_value(header, "shape");
    if (!descr || !fortran || !shape) {
        fail(err, errlen, path, "header lacks descr, fortran_order or shape");
        goto done;
    }
    if (strncmp(fortran, "True", 4) == 0) {
        fail(err, errlen, path, "Fortran-order arrays are not supported (save np.ascontiguousarray(a))");
        goto done;
    }
    if (!parse_descr(descr, &out->dtype, msg, sizeof msg) || !parse_shape(shape, out, msg, sizeof msg)) {
        fail(err, errlen, path, msg);
        goto done;
    }
    out->itemsize = dtypes[out->dtype].size;
    if (out->count > SIZE_MAX / out->itemsize) {
        fail(err, errlen, path, "shape too large");
        goto done;
    }
    out->bytes = out->count * out->itemsize;
    /* a header may promise more than the file holds: say so before allocating it */
    struct stat st;
    long data_start = ftell(f);
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && data_start >= 0 &&
        (uint64_t)st.st_size - (uint64_t)data_start < out->bytes) {
        snprintf(msg, sizeof msg, "truncated: the header promises %zu bytes of data but the file holds %llu",
                 out->bytes, (unsigned long long)st.st_size - (unsigned long long)data_start);
        fail(err, errlen, path, msg);
        goto done;
    }
    out->data = malloc(out->bytes ? out->bytes : 1);
    if (!out->data) {
        snprintf(msg, sizeof msg, "out of memory for %zu bytes of data", out->bytes);
        fail(err, errlen, path, msg);
        goto done;
    }
    size_t got = fread(out->data, 1, out->bytes, f);
    if (got != out->bytes) {
        snprintf(msg, sizeof msg, "truncated: the header promises %zu bytes of data but the file holds %zu", out->bytes, got);
        fail(err, errlen, path, msg);
        goto done;
    }
    ok = true;
done:
    free(header);
    fclose(f);
    if (!ok) npy_free(out);
    return ok;
}

void npy_free(npy_array *a) {
    free(a->data);
    a->data = NULL;
}

bool npy_write(const char *path, npy_dtype t, const size_t *shape, int ndim, const void *data, size_t bytes,
               char *err, size_t errlen) {
    char dict[512];
    int len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", npy_descr(t));
    for (int i = 0; i < ndim && len < 400; i++)
        len += snprintf(dict + len, sizeof dict - (size_t)len, "%zu%s", shape[i], ndim == 1 ? "," : i + 1 < ndim ? ", " : "");
    len += snprintf(dict + len, sizeof dict - (size_t)len, "), }");
    /* version 1.0: 10 bytes of preamble, header padded with spaces to a multiple of 64, ending in \n */
    size_t total = 10 + (size_t)len + 1;
    size_t padded = (total + 63) / 64 * 64;
    FILE *f = fopen(path, "wb");
    if (!f) return fail(err, errlen, path, strerror(errno));
    size_t header_len = padded - 10;
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(header_len & 0xff),
                             (unsigned char)(header_len >> 8)};
    bool ok = fwrite(pre, 1, 10, f) == 10 && fwrite(dict, 1, (size_t)len, f) == (size_t)len;
    for (size_t i = total; ok && i < padded; i++) ok = fputc(' ', f) != EOF;
    ok = ok && fputc('\n', f) != EOF && fwrite(data, 1, bytes, f) == bytes;
    if (fclose(f) != 0) ok = false;
    if (!ok) return fail(err, errlen, path, "write failed");
    return true;
}
