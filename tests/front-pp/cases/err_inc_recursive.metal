#include "err_inc_recursive.metal"
