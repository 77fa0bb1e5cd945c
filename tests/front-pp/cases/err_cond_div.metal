#if 1 / 0
a
#endif
#if 5 % (2 - 2)
b
#endif
#if 0 && 1 / 0
c
#endif
