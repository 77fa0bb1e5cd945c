// references to arrays as parameters (thread T (&v)[N]), N deduced from the argument
template <int N> void sort2(thread float (&v)[N]) { for (int i = 0; i < N; i++) for (int j = i + 1; j < N; j++) if (v[j] < v[i]) { float t = v[i]; v[i] = v[j]; v[j] = t; } }
float sum3(thread float (&v)[3]) { return v[0] + v[1] + v[2]; }
kernel void k(device float* o [[buffer(0)]]) { float a[3] = {3, 1, 2}; sort2(a); o[0] = a[0] * 100 + a[1] * 10 + a[2] + sum3(a) * 1000; }
