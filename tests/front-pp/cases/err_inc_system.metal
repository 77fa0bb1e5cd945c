#include <metal_graphics>
#include <metal_texture>
#include <stdio.h>
