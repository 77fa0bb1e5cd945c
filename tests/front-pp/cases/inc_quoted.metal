#include "inc/defs.h"
int x = DEFS_VALUE;
