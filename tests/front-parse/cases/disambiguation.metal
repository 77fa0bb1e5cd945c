struct Foo { int v; };
typedef int Count;
kernel void k(device int *p [[buffer(0)]]) {
    Foo f;                       // declaration: known struct
    Foo *fp = &f;                // declaration of a pointer
    Count c = 1;                 // typedef name
    int a = 2, b = 3;
    a * b;                       // expression: a is a variable
    a < b;                       // less-than
    float4(1.0f).x;              // functional cast starting an expression statement
    Foo{1}.v;                    // brace construction
    int Count2 = c;
    {
        int Foo = 5;             // a variable now shadows the struct name
        Foo * b;                 // so this is a multiplication
        p[0] = Foo;
    }
    Foo g;                       // the struct again outside the block
    p[1] = a + fp->v + g.v;
}
