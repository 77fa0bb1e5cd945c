kernel void k(device int *p [[buffer(0)]]) {
    int a = 1, b = 2, c = 3;
    p[0] = a + b * c - a / b % c;
    p[1] = a << 2 + b >> 1;
    p[2] = a < b == b > c != a <= c >= b;
    p[3] = a & b ^ c | a && b || c;
    p[4] = a ? b : c ? a : b;
    p[5] = (a, b, c);
    a += b -= c *= 2;
    a = b = c;
    p[6] = -~!a + +b;
    p[7] = a++ + ++b - c-- - --a;
    a <<= 1; a >>= 2; a |= 3; a &= 4; a ^= 5; a %= 6; a /= 7;
}
