/* enigma.c — STUB: the CLI (owned by the runtime work). */
#include <stdio.h>
#include "../include/enigma.h"
int main(void) { puts("enigma: not built yet"); return 1; }
