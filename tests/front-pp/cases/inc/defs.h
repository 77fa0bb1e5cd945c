#define DEFS_VALUE 7
float in_header;
#include "nested.h"
