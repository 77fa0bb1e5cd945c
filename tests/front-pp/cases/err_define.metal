#define
#define 3
#define defined
#define F(x
#define G(x, x) x
#define H(1) 1
#define I(x) #y
#define J ## a
#define K(a) a ##
#define L(x...) x
#define M(__VA_ARGS__) 1
