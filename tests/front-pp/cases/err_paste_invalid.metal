#define P(a, b) a ## b
P(+, /) P(., .)
