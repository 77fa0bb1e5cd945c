/* npy.h — reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0,
 * little-endian, C order), for `enigma run`'s @FILE.npy bindings and -o NAME=FILE.npy.
 *
 * dtypes: bool (b1), i1 u1 i2 u2 i4 u4 i8 u8, f2 f4. bfloat has no NumPy dtype: it is
 * read from 'V2' (raw 2-byte records) or u2 arrays, and written as u2 (view it with
 * ml_dtypes, or shift it into the high half of a float32). */
#ifndef ENIGMA_NPY_H
#define ENIGMA_NPY_H

#include <stdbool.h>
#include <stddef.h>

#define NPY_MAX_DIMS 16

typedef enum npy_dtype {
    NPY_BOOL, NPY_I1, NPY_U1, NPY_I2, NPY_U2, NPY_I4, NPY_U4, NPY_I8, NPY_U8, NPY_F2, NPY_F4,
    NPY_V2, /* raw 2-byte records: bfloat */
    NPY_DTYPE_COUNT
} npy_dtype;

typedef struct npy_array {
    npy_dtype dtype;
    size_t itemsize;
    int ndim;
    size_t shape[NPY_MAX_DIMS];
    size_t count;  /* items: the product of shape */
    void *data;    /* count * itemsize bytes (malloc) */
    size_t bytes;
} npy_array;

/* the .npy descr of a dtype: "<f4", "|b1" ... */
const char *npy_descr(npy_dtype t);
size_t npy_itemsize(npy_dtype t);

/* false with a message in err (naming the file and the problem) on failure */
bool npy_read(const char *path, npy_array *out, char *err, size_t errlen);
void npy_free(npy_array *a);
bool npy_write(const char *path, npy_dtype t, const size_t *shape, int ndim, const void *data, size_t bytes,
               char *err, size_t errlen);

#endif
