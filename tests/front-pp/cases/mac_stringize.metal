#define S(x) #x
#define XS(x) S(x)
#define V 42
S(a  +   b) S( "q\n" 'c' ) S() XS(V) S(V)
