/* cli_values.c — numbers on the command line and on the terminal, typed by a kernel
 * parameter: parsing "1.5" / "3,4,5" into the parameter's element type, printing
 * elements for --print, and the half and bfloat conversions both need (round to
 * nearest even, as MSL converts). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

size_t cli_scalar_size(enigma_scalar s) {
    switch (s) {
    case ENIGMA_SCALAR_BOOL: case ENIGMA_SCALAR_I8: case ENIGMA_SCALAR_U8: return 1;
    case ENIGMA_SCALAR_I16: case ENIGMA_SCALAR_U16: case ENIGMA_SCALAR_F16: case ENIGMA_SCALAR_BF16: return 2;
    case ENIGMA_SCALAR_I32: case ENIGMA_SCALAR_U32: case ENIGMA_SCALAR_F32: return 4;
    case ENIGMA_SCALAR_I64: case ENIGMA_SCALAR_U64: return 8;
    default: return 0;
    }
}

const char *cli_scalar_name(enigma_scalar s) {
    static const char *names[] = {
        [ENIGMA_SCALAR_NONE] = "struct", [ENIGMA_SCALAR_BOOL] = "bool", [ENIGMA_SCALAR_I8] = "char",
        [ENIGMA_SCALAR_U8] = "uchar",    [ENIGMA_SCALAR_I16] = "short", [ENIGMA_SCALAR_U16] = "ushort",
        [ENIGMA_SCALAR_I32] = "int",     [ENIGMA_SCALAR_U32] = "uint",  [ENIGMA_SCALAR_I64] = "long",
        [ENIGMA_SCALAR_U64] = "ulong",   [ENIGMA_SCALAR_F16] = "half",  [ENIGMA_SCALAR_BF16] = "bfloat",
        [ENIGMA_SCALAR_F32] = "float",
    };
    return (unsigned)s <= ENIGMA_SCALAR_F32 ? names[s] : "?";
}

bool cli_scalar_dtype(enigma_scalar s, npy_dtype *out) {
    switch (s) {
    case ENIGMA_SCALAR_BOOL: *out = NPY_BOOL; return true;
    case ENIGMA_SCALAR_I8: *out = NPY_I1; return true;
    case ENIGMA_SCALAR_U8: *out = NPY_U1; return true;
    case ENIGMA_SCALAR_I16: *out = NPY_I2; return true;
    case ENIGMA_SCALAR_U16: *out = NPY_U2; return true;
    case ENIGMA_SCALAR_I32: *out = NPY_I4; return true;
    case ENIGMA_SCALAR_U32: *out = NPY_U4; return true;
    case ENIGMA_SCALAR_I64: *out = NPY_I8; return true;
    case ENIGMA_SCALAR_U64: *out = NPY_U8; return true;
    case ENIGMA_SCALAR_F16: *out = NPY_F2; return true;
    case ENIGMA_SCALAR_BF16: *out = NPY_U2; return true;
    case ENIGMA_SCALAR_F32: *out = NPY_F4; return true;
    default: return false;
    }
}

bool cli_dtype_fits(npy_dtype t, enigma_scalar s) {
    if (s == ENIGMA_SCALAR_BF16) return t == NPY_V2 || t == NPY_U2;
    npy_dtype want;
    return cli_scalar_dtype(s, &want) && want == t;
}

/* ---- half and bfloat --------------------------------------------------------------- */
static uint32_t float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float bits_float(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

float cli_half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    if (exp == 0) {
        float v = ldexpf((float)mant, -24); /* zero or subnormal */
        return sign ? -v : v;
    }
    if (exp == 31) return bits_float(sign | 0x7f800000u | (mant << 13));
    return bits_float(sign | (exp - 15 + 127) << 23 | mant << 13);
}

uint16_t cli_float_to_half(float f) {
    uint32_t x = float_bits(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    int exp = (int)((x >> 23) & 0xff);
    uint32_t mant = x & 0x7fffff;
    if (exp == 0xff) return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 : 0));
    int e = exp - 127 + 15;
    if (e >= 31) return (uint16_t)(sign | 0x7c00);
    if (e <= 0) { /* a half subnormal, or zero */
        if (e < -10) return sign;
        mant |= 0x800000;
        int shift = 14 - e;
        uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (h & 1))) h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = (uint32_t)e << 10 | mant >> 13, rem = mant & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++; /* a carry rounds up into the exponent */
    return (uint16_t)(sign | h);
}

float cli_bfloat_to_float(uint16_t b) { return bits_float((uint32_t)b << 16); }

uint16_t cli_float_to_bfloat(float f) {
    uint32_t x = float_bits(f);
    if ((x & 0x7fffffff) > 0x7f800000) return (uint16_t)((x >> 16) | 0x40); /* quiet NaN */
    return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

/* ---- parsing ------------------------------------------------------------------------ */
static bool parse_scalar(const char *s, enigma_scalar t, void *out, char *err, size_t errlen) {
    char *end;
    errno = 0;
    const char *name = cli_scalar_name(t);
    switch (t) {
    case ENIGMA_SCALAR_BOOL: {
        uint8_t v;
        if (strcmp(s, "true") == 0 || strcmp(s, "1") == 0) v = 1;
        else if (strcmp(s, "false") == 0 || strcmp(s, "0") == 0) v = 0;
        else {
            snprintf(err, errlen, "'%s' is not a bool (true, false, 1 or 0)", s);
            return false;
        }
        memcpy(out, &v, 1);
        return true;
    }
    case ENIGMA_SCALAR_F16: case ENIGMA_SCALAR_BF16: case ENIGMA_SCALAR_F32: {
        double v = strtod(s, &end);
        if (end == s || *end) {
            snprintf(err, errlen, "'%s' is not a number (for %s)", s, name);
            return false;
        }
        float f = (float)v;
        if (t == ENIGMA_SCALAR_F32) memcpy(out, &f, 4);
        else {
            uint16_t h = t == ENIGMA_SCALAR_F16 ? cli_float_to_half(f) : cli_float_to_bfloat(f);
            memcpy(out, &h, 2);
        }
        return true;
    }
    case ENIGMA_SCALAR_I8: case ENIGMA_SCALAR_I16: case ENIGMA_SCALAR_I32: case ENIGMA_SCALAR_I64: {
        long long v = strtoll(s, &end, 0);
        size_t size = cli_scalar_size(t);
        long long lo = size == 8 ? INT64_MIN : -(1ll << (size * 8 - 1)), hi = size == 8 ? INT64_MAX : (1ll << (size * 8 - 1)) - 1;
        if (end == s || *end) {
            snprintf(err, errlen, "'%s' is not an integer (for %s)", s, name);
            return false;
        }
        if (errno == ERANGE || v < lo || v > hi) {
            snprintf(err, errlen, "%s is out of range for %s (%lld to %lld)", s, name, lo, hi);
            return false;
        }
        int8_t i8 = (int8_t)v; int16_t i16 = (int16_t)v; int32_t i32 = (int32_t)v; int64_t i64 = v;
        memcpy(out, size == 1 ? (void *)&i8 : size == 2 ? (void *)&i16 : size == 4 ? (void *)&i32 : (void *)&i64, size);
        return true;
    }
    case ENIGMA_SCALAR_U8: case ENIGMA_SCALAR_U16: case ENIGMA_SCALAR_U32: case ENIGMA_SCALAR_U64: {
        const char *p = s;
        while (*p == ' ') p++;
        unsigned long long v = strtoull(s, &end, 0);
        size_t size = cli_scalar_size(t);
        unsigned long long hi = size == 8 ? UINT64_MAX : (1ull << (size * 8)) - 1;
        if (end == s || *end) {
            snprintf(err, errlen, "'%s' is not an integer (for %s)", s, name);
            return false;
        }
        if (*p == '-' || errno == ERANGE || v > hi) {
            snprintf(err, errlen, "%s is out of range for %s (0 to %llu)", s, name, hi);
            return false;
        }
        uint8_t u8 = (uint8_t)v; uint16_t u16 = (uint16_t)v; uint32_t u32 = (uint32_t)v; uint64_t u64 = v;
        memcpy(out, size == 1 ? (void *)&u8 : size == 2 ? (void *)&u16 : size == 4 ? (void *)&u32 : (void *)&u64, size);
        return true;
    }
    default:
        snprintf(err, errlen, "not a number type");
        return false;
    }
}

bool cli_parse_numbers(const char *text, const enigma_param_info *p, void **bytes, size_t *len, char *err,
                       size_t errlen) {
    *bytes = NULL;
    *len = 0;
    size_t ssize = cli_scalar_size(p->element_scalar);
    int lanes = p->element_lanes > 0 ? p->element_lanes : 1;
    if (!ssize || p->element_size < ssize * (size_t)lanes) {
        snprintf(err, errlen, "parameter '%s' has element type %s, which numbers cannot spell; give its bytes with @FILE",
                 p->name, p->element_type);
        return false;
    }
    size_t count = 1;
    for (const char *c = text; *c; c++) count += *c == ',';
    if (count % (size_t)lanes) {
        snprintf(err, errlen, "parameter '%s' takes %s elements of %d lanes each, but %zu numbers were given", p->name,
                 p->element_type, lanes, count);
        return false;
    }
    size_t elements = count / (size_t)lanes;
    if (p->is_reference && elements != 1) {
        snprintf(err, errlen, "parameter '%s' is a reference to one %s (%d number%s), but %zu numbers were given", p->name,
                 p->element_type, lanes, lanes == 1 ? "" : "s", count);
        return false;
    }
    /* element_size may exceed lanes * scalar size (float3 is 16 bytes): the padding stays zero */
    unsigned char *out = calloc(elements, p->element_size);
    if (!out) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    const char *s = text;
    for (size_t i = 0; i < count; i++) {
        const char *comma = strchr(s, ',');
        size_t n = comma ? (size_t)(comma - s) : strlen(s);
        char item[128];
        if (n >= sizeof item) n = sizeof item - 1;
        memcpy(item, s, n);
        item[n] = 0;
        char msg[200];
        size_t at = (i / (size_t)lanes) * p->element_size + (i % (size_t)lanes) * ssize;
        if (!parse_scalar(item, p->element_scalar, out + at, msg, sizeof msg)) {
            snprintf(err, errlen, "parameter '%s': %s", p->name, msg);
            free(out);
            return false;
        }
        s = comma ? comma + 1 : s + n;
    }
    *bytes = out;
    *len = elements * p->element_size;
    return true;
}

/* ---- printing --------------------------------------------------------------------------- */
static void print_scalar(enigma_scalar t, const unsigned char *at) {
    union { int8_t i8; uint8_t u8; int16_t i16; uint16_t u16; int32_t i32; uint32_t u32; int64_t i64; uint64_t u64; float f; } v;
    memcpy(&v, at, cli_scalar_size(t));
    switch (t) {
    case ENIGMA_SCALAR_BOOL: fputs(v.u8 ? "true" : "false", stdout); break;
    case ENIGMA_SCALAR_I8: printf("%d", v.i8); break;
    case ENIGMA_SCALAR_U8: printf("%u", v.u8); break;
    case ENIGMA_SCALAR_I16: printf("%d", v.i16); break;
    case ENIGMA_SCALAR_U16: printf("%u", v.u16); break;
    case ENIGMA_SCALAR_I32: printf("%" PRId32, v.i32); break;
    case ENIGMA_SCALAR_U32: printf("%" PRIu32, v.u32); break;
    case ENIGMA_SCALAR_I64: printf("%" PRId64, v.i64); break;
    case ENIGMA_SCALAR_U64: printf("%" PRIu64, v.u64); break;
    /* enough digits that the printed value reads back to the same bits */
    case ENIGMA_SCALAR_F16: printf("%.5g", cli_half_to_float(v.u16)); break;
    case ENIGMA_SCALAR_BF16: printf("%.4g", cli_bfloat_to_float(v.u16)); break;
    case ENIGMA_SCALAR_F32: printf("%.9g", v.f); break;
    default: break;
    }
}

void cli_print_elements(const char *name, const enigma_param_info *p, const void *data, size_t bytes, size_t n) {
    const unsigned char *d = data;
    size_t ssize = cli_scalar_size(p->element_scalar);
    size_t esize = p->element_size ? p->element_size : 1;
    size_t total = bytes / esize;
    size_t shown = n < total ? n : total;
    int lanes = p->element_lanes > 0 ? p->element_lanes : 1;
    printf("%s = [", name);
    for (size_t i = 0; i < shown; i++) {
        if (i) fputs(", ", stdout);
        const unsigned char *e = d + i * esize;
        if (!ssize) { /* a struct: its bytes */
            fputs("0x", stdout);
            for (size_t b = 0; b < esize; b++) printf("%02x", e[b]);
            continue;
        }
        if (lanes > 1) putchar('(');
        for (int l = 0; l < lanes; l++) {
            if (l) fputs(", ", stdout);
            print_scalar(p->element_scalar, e + (size_t)l * ssize);
        }
        if (lanes > 1) putchar(')');
    }
    if (shown < total) printf(", ... (%zu more)", total - shown);
    printf("]\n");
}
