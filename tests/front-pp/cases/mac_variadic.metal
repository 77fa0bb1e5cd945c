#define V(...) f(__VA_ARGS__)
#define W(fmt, ...) g(fmt, ## __VA_ARGS__)
V(1, 2) V() W(a) W(a, b, c)
