__LINE__
  __FILE__ __LINE__
#define L __LINE__
L
