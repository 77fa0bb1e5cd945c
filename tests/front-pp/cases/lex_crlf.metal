#define A 1
A
b \
c
