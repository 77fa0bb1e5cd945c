#define TWO 2
#define IS(x) ((x) == 2)
#if 1 + 2 * 3 == 7
yes0
#else
no0
#endif
#if (1 + 2) * 3 == 9 && 10 / 3 == 3 && 10 % 3 == 1
yes1
#else
no1
#endif
#if -1 < 0 && !(-1 < 0u)
yes2
#else
no2
#endif
#if (1 << 4) == 16 && (256 >> 4) == 16 && (~0 == -1)
yes3
#else
no3
#endif
#if (5 & 3) == 1 && (5 | 3) == 7 && (5 ^ 3) == 6
yes4
#else
no4
#endif
#if 0 ? 0 : 1
yes5
#else
no5
#endif
#if UNKNOWN_NAME == 0 && !UNKNOWN_NAME
yes6
#else
no6
#endif
#if defined(__METAL__) && defined __ENIGMA__ && !defined(NOPE)
yes7
#else
no7
#endif
#if 'a' == 97 && true && !false
yes8
#else
no8
#endif
#if __METAL_VERSION__ >= 300 && 0x10 == 16 && 010 == 8 && 0b11 == 3
yes9
#else
no9
#endif
#if 0 || 1 && 0
yes10
#else
no10
#endif
#if IS(TWO) && TWO * TWO == 4
yes11
#else
no11
#endif
#if 18446744073709551615u == -1
yes12
#else
no12
#endif
#if (2 || 1/0) && !(0 && 1/0)
yes13
#else
no13
#endif
#if -9223372036854775807 - 1 < 0 && (-8 >> 1) == -4 && 7 / -2 == -3 && -7 % 2 == -1
yes14
#else
no14
#endif
#if 1 ? 2 ? 3 : 4 : 5
yes15
#else
no15
#endif
#if (0 ? 1 : 0) || (1 > 2) || (2 <= 1) || (3 != 3) || (1 >= 2)
yes16
#else
no16
#endif
