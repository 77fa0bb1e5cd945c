#define foo foo + 1
#define a b
#define b a
#define f(x) x + f(x)
foo a b f(f(2))
