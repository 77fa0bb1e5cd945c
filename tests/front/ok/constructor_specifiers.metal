template <typename T>
struct cx {
  T re;
  T im;
  constexpr cx(T r, T i) thread : re(r), im(i) {};
  constexpr cx() thread : re(0), im(0) {};
  explicit cx(T r) : re(r), im(0) {}
};
kernel void k(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  cx<float> a(1.0f, o[i]);
  cx<float> b(2.0f);
  o[i] = a.im + b.re;
}
