// ARGS: -Iincdir
#include "other.h"
