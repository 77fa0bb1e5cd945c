enum Mode { MODE_A, MODE_B = 4, MODE_C, };
enum class Op : uint { Add = 1, Mul = Add << 1 };
enum struct Small : uchar { X };
kernel void k(device int *p [[buffer(0)]]) {
    Mode m = MODE_B;
    Op o = Op::Mul;
    if (o == Op::Add) p[0] = int(m);
    p[1] = static_cast<int>(Op::Mul);
}
