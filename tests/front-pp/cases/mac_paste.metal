#define CAT(a, b) a ## b
#define XY 99
#define E
CAT(x, y) CAT(X, Y) CAT(1, 2u) CAT(, z) CAT(w, ) CAT(,) CAT(<<, =) CAT(E,) 
