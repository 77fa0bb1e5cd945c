// Static member function templates of a class template's partial specialization: parameters
// written with member alias templates deduce through them, and every overload of the name is
// visible from inside (MLX's attention fragments: mma on fragments calls mma on matrices)
#include <metal_stdlib>
using namespace metal;
template <typename T, int R, int C> struct Frag {};
template <typename T>
struct Frag<T, 8, 8> {
    static constant constexpr const int kR = 8;
    static constant constexpr const int kC = 8;
    typedef metal::simdgroup_matrix<T, kR, kC> mat_type;
    typedef metal::vec<T, 2> frag_type;
    template <typename U> using dtype_mat_t = typename metal::simdgroup_matrix<U, kR, kC>;
    template <typename U> using dtype_frag_t = typename metal::vec<U, 2>;
    template <typename A, typename B, typename Cc>
    METAL_FUNC static constexpr void mma(thread frag_type& D, thread dtype_frag_t<A>& a, thread dtype_frag_t<B>& b,
                                         thread dtype_frag_t<Cc>& c) {
        mat_type Dm; dtype_mat_t<A> am; dtype_mat_t<B> bm; dtype_mat_t<Cc> cm;
        reinterpret_cast<thread dtype_frag_t<A>&>(am.thread_elements()) = a;
        reinterpret_cast<thread dtype_frag_t<B>&>(bm.thread_elements()) = b;
        reinterpret_cast<thread dtype_frag_t<Cc>&>(cm.thread_elements()) = c;
        mma(Dm, am, bm, cm);
        D = reinterpret_cast<thread frag_type&>(Dm.thread_elements());
    }
    template <typename A, typename B, typename Cc>
    METAL_FUNC static constexpr void mma(thread mat_type& D, thread dtype_mat_t<A>& a, thread dtype_mat_t<B>& b,
                                         thread dtype_mat_t<Cc>& c) {
        simdgroup_multiply_accumulate(D, a, b, c);
    }
};
kernel void k(device float2 *o [[buffer(0)]], uint l [[thread_index_in_simdgroup]]) {
    float2 d, a = o[l], b = o[l + 32], c = o[l + 64];
    Frag<float, 8, 8>::mma(d, a, b, c);
    o[l] = d;
}
