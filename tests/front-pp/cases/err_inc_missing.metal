#include "nope.h"
