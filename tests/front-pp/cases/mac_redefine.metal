#define X 1
#define X 1
#define X  1
X
#define X 2
X
#undef X
X
#undef NEVER_DEFINED
#define M_PI_F 3
M_PI_F
