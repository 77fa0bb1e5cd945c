#include "/dev/zero"
#include "inc"
