/* metal_headers.c — what `#include <metal_...>` reads: the <metal_stdlib> family as MSL
 * text, and the refusals for headers that need Apple-only hardware.
 *
 * The functions and types of the Metal standard library (math, simdgroup, atomics, vectors)
 * are built into the checker (builtins.c), because their overloads and address-space rules
 * are not expressible in the MSL enigma parses. What the headers define beyond that —
 * macros such as METAL_FUNC that kernel libraries use as part of their own declarations —
 * is written here as source text, so that it behaves exactly like a header a user wrote:
 * a user may #undef or redefine any of it, and a diagnostic in it points at "<metal_stdlib>".
 *
 * Guarantees: every header of the family reads the same text, once per compile;
 * en_metal_header_refusal names why a header is refused, or is NULL for a header of the
 * family, or for an unknown one (which the caller reports as unknown). */
#include "pp.h"

#include <string.h>

/* the headers whose contents <metal_stdlib> includes, all answered by one text */
static const char *const family[] = {
    "metal_stdlib",   "metal_compute",    "metal_simdgroup", "metal_simdgroup_matrix",
    "metal_atomic",   "metal_math",       "metal_integer",   "metal_common",
    "metal_geometric", "metal_relational", "metal_numeric",  "metal_types",
    "metal_pack",     "metal_limits",     "metal_type_traits", "metal_utility",
    "metal_functional", "metal_array",    "metal_initializer_list",
};

static const char stdlib_text[] =
    /* Apple's headers mark their inline functions this way; kernel libraries (MLX: 455
     * uses) write it on their own functions too */
    "#define METAL_FUNC inline __attribute__((__always_inline__))\n"
    "#define METAL_INTERNAL\n"
    "#define METAL_ASM\n"
    /* the math mode the __metal_* intrinsics take as their last argument: enigma computes
     * math functions precisely whatever the flag, so "maybe fast" is the precise mode */
    "#define __METAL_FAST_MATH__ true\n"
    "#define __METAL_PRECISE_MATH__ false\n"
    "#define __METAL_MAYBE_FAST_MATH__ __METAL_PRECISE_MATH__\n"
    /* memory scopes of atomic_thread_fence, as <metal_atomic> numbers them */
    "#define __METAL_MEMORY_SCOPE_THREAD__ 0\n"
    "#define __METAL_MEMORY_SCOPE_THREADGROUP__ 1\n"
    "#define __METAL_MEMORY_SCOPE_DEVICE__ 2\n"
    "#define __METAL_MEMORY_SCOPE_SYSTEM__ 3\n"
    "#define __METAL_MEMORY_SCOPE_SIMDGROUP__ 4\n"
    "#define __HAVE_BFLOAT__ 1\n"
    /* <metal_type_traits>: the class templates (the value traits, is_same<A, B>::value and
     * is_same_v, are built into the checker, type_traits.c, as they classify enigma's own
     * types); enigma's types carry no top-level cv-qualifiers, so the remove_* traits are
     * the identity */
    "namespace metal {\n"
    "template <typename T, T v> struct integral_constant {\n"
    "  static constexpr constant T value = v;\n"
    "  constexpr operator T() const { return v; }\n"
    "  constexpr T operator()() const { return v; }\n"
    "};\n"
    "template <bool B> using bool_constant = integral_constant<bool, B>;\n"
    "typedef bool_constant<true> true_type;\n"
    "typedef bool_constant<false> false_type;\n"
    "template <bool B, typename T = void> struct enable_if {};\n"
    "template <typename T> struct enable_if<true, T> { typedef T type; };\n"
    "template <bool B, typename T = void> using enable_if_t = typename enable_if<B, T>::type;\n"
    "template <bool B, typename T, typename F> struct conditional { typedef T type; };\n"
    "template <typename T, typename F> struct conditional<false, T, F> { typedef F type; };\n"
    "template <bool B, typename T, typename F> using conditional_t = typename conditional<B, T, F>::type;\n"
    "template <typename T> struct remove_cv { typedef T type; };\n"
    "template <typename T> using remove_cv_t = T;\n"
    "template <typename T> struct remove_const { typedef T type; };\n"
    "template <typename T> using remove_const_t = T;\n"
    "template <typename T> struct remove_volatile { typedef T type; };\n"
    "template <typename T> using remove_volatile_t = T;\n"
    "template <typename T> struct remove_reference { typedef T type; };\n"
    "template <typename T> using remove_reference_t = T;\n"
    "template <typename T> struct type_identity { typedef T type; };\n"
    /* Metal's internal _disjunction/_conjunction (MLX's atomic.h uses them under `#pragma
     * METAL internals`): the traits' values or-ed / and-ed, for up to 8 of them (enigma does
     * not instantiate variadic templates) */
    "template <typename B1 = false_type, typename B2 = false_type, typename B3 = false_type, typename B4 = false_type,\n"
    "          typename B5 = false_type, typename B6 = false_type, typename B7 = false_type, typename B8 = false_type>\n"
    "struct _disjunction : bool_constant<B1::value || B2::value || B3::value || B4::value || B5::value ||\n"
    "                                   B6::value || B7::value || B8::value> {};\n"
    "template <typename B1 = true_type, typename B2 = true_type, typename B3 = true_type, typename B4 = true_type,\n"
    "          typename B5 = true_type, typename B6 = true_type, typename B7 = true_type, typename B8 = true_type>\n"
    "struct _conjunction : bool_constant<B1::value && B2::value && B3::value && B4::value && B5::value &&\n"
    "                                   B6::value && B7::value && B8::value> {};\n"
    /* address spaces are not part of a value's type in enigma's IR */
    "template <typename T> using remove_addrspace_t = T;\n"
    /* uniform<T> (MSL 2.4: a value the compiler may assume the same in every thread of
     * the SIMD group) holds the value itself: uniformity is a hint */
    "template <typename T> using uniform = T;\n"
    "template <typename T> constexpr METAL_FUNC T make_uniform(T x) { return x; }\n"
    "}\n";

bool en_metal_header_known(const char *name) {
    for (size_t i = 0; i < EN_COUNT(family); i++)
        if (strcmp(name, family[i]) == 0) return true;
    return false;
}

const char *en_metal_header_text(void) { return stdlib_text; }

const char *en_metal_header_refusal(const char *name) {
    if (strcmp(name, "metal_graphics") == 0) return "graphics functions are not supported by enigma";
    if (strcmp(name, "metal_texture") == 0) return "textures are not supported by enigma";
    if (strncmp(name, "MetalPerformancePrimitives/", 27) == 0)
        return "not supported: <MetalPerformancePrimitives/...> (Apple's tensor-operation "
               "primitives for the M5 GPU's neural accelerators) has no enigma equivalent";
    if (strcmp(name, "metal_tensor") == 0)
        return "not supported: <metal_tensor> (Metal 4 tensors) has no enigma equivalent";
    return NULL;
}
