struct Complex {
    float re, im;
    Complex(float r, float i) { re = r; im = i; }
    Complex operator+(Complex o) const { return Complex(re + o.re, im + o.im); }
    float norm() const thread { return this->re * re + im * this->im; }
    static int count() { return 2; }
};
Complex operator*(Complex a, Complex b) { return Complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re); }
kernel void k(device float *p [[buffer(0)]]) {
    Complex a(1.0f, 2.0f);
    Complex b{3.0f, 4.0f};
    Complex c = a + b * a;
    p[0] = c.norm() + Complex::count();
}
