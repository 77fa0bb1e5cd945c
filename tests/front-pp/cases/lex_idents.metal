kernel void _x1 x$y
  __enigma_foo   A9
