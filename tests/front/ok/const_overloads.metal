// const and non-const overloads of a member function: the object's constness decides
struct S { float v[2]; thread float& at(int i) { return v[i]; } const thread float& at(int i) const { return v[i]; } };
float get(const thread S& s) { return s.at(1); }
kernel void k(device float* o [[buffer(0)]]) { S s; s.at(0) = 2.0f; s.at(1) = 3.0f; o[0] = s.at(0) + get(s); }
