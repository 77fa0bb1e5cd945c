#if 1
a
#else
b
#endif
#if 0
c
#elif 2 > 1
d
#elif 1
e
#else
f
#endif
#ifdef __METAL__
g
#endif
#ifndef __METAL__
h
#else
i
#endif
#if 0
# if 1
j
# else
k
# endif
#else
l
#endif
#
