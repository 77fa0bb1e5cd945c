// ARGS: --flags
a b  c
  d/**/e
#define M x y
f M
