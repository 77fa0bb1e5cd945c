#define A 1
#define B A + A
#define EMPTY
B EMPTY C
#define C (B)
C
