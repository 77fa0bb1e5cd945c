/* pp_builtin.c — the macros every Metal compile starts with: the language version and
 * the constants that <metal_stdlib> defines (Metal Shading Language spec, "Math
 * Functions" and "Integer and floating-point limits").
 *
 * Guarantees: the text is a sequence of #define lines the preprocessor reads as the
 * source "<builtin>" before the user's file, so these definitions behave exactly like
 * user macros (a user may #undef or redefine them). INFINITY and NAN become identifiers
 * the checker knows as float constants, because no literal spells them. */
#include "pp.h"

static const char builtin_text[] =
    "#define __METAL_VERSION__ 310\n"
    "#define __METAL__ 1\n"
    "#define __ENIGMA__ 1\n"
    /* MSL is C++17 (MSL spec 1.1); headers shared with C test it (ggml-common.h) */
    "#define __cplusplus 201703L\n"
    /* float specials */
    "#define INFINITY __enigma_infinity\n"
    "#define NAN __enigma_nan\n"
    "#define HUGE_VALF __enigma_infinity\n"
    "#define MAXFLOAT 0x1.fffffep127f\n"
    "#define FLT_MAX 0x1.fffffep127f\n"
    "#define FLT_MIN 0x1p-126f\n"
    "#define FLT_EPSILON 0x1p-23f\n"
    "#define HALF_MAX 65504.0h\n"
    "#define MAXHALF 65504.0h\n"
    "#define HALF_MIN 0x1p-14h\n"
    "#define HALF_EPSILON 0x1p-10h\n"
    /* integer limits: Metal's int is 32 bits, long 64 */
    "#define CHAR_BIT 8\n"
    "#define CHAR_MAX 127\n"
    "#define CHAR_MIN (-128)\n"
    "#define SCHAR_MAX 127\n"
    "#define SCHAR_MIN (-128)\n"
    "#define UCHAR_MAX 255\n"
    "#define SHRT_MAX 32767\n"
    "#define SHRT_MIN (-32768)\n"
    "#define USHRT_MAX 65535\n"
    "#define INT_MAX 2147483647\n"
    "#define INT_MIN (-2147483647-1)\n"
    "#define UINT_MAX 4294967295u\n"
    "#define LONG_MAX 9223372036854775807l\n"
    "#define LONG_MIN (-9223372036854775807l-1l)\n"
    "#define ULONG_MAX 18446744073709551615ul\n"
    /* math constants, float and half */
#define MATH_CONSTANT(name, digits)                                                       \
    "#define " name "_F " digits "f\n"                                                    \
    "#define " name "_H " digits "h\n"
    MATH_CONSTANT("M_E", "2.71828182845904523536028747135266250")
    MATH_CONSTANT("M_LOG2E", "1.44269504088896340735992468100189214")
    MATH_CONSTANT("M_LOG10E", "0.434294481903251827651128918916605082")
    MATH_CONSTANT("M_LN2", "0.693147180559945309417232121458176568")
    MATH_CONSTANT("M_LN10", "2.30258509299404568401799145468436421")
    MATH_CONSTANT("M_PI", "3.14159265358979323846264338327950288")
    MATH_CONSTANT("M_PI_2", "1.57079632679489661923132169163975144")
    MATH_CONSTANT("M_PI_4", "0.785398163397448309615660845819875721")
    MATH_CONSTANT("M_1_PI", "0.318309886183790671537767526745028724")
    MATH_CONSTANT("M_2_PI", "0.636619772367581343075535053490057448")
    MATH_CONSTANT("M_2_SQRTPI", "1.12837916709551257389615890312154517")
    MATH_CONSTANT("M_SQRT2", "1.41421356237309504880168872420969808")
    MATH_CONSTANT("M_SQRT1_2", "0.707106781186547524400844362104849039")
#undef MATH_CONSTANT
    ;

const char *en_pp_builtin_text(void) { return builtin_text; }
