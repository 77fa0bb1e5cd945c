#include
#include foo
#include <metal_stdlib
#include ""
