#define F(a, b) a b
#define G(a) a
#define N() n
F(1) F(1, 2, 3) G(1, 2) N(x) G((1, 2))
F(1,
