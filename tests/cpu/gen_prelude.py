#!/usr/bin/env python3
"""Regenerates src/cpu/prelude.c from src/cpu/prelude.txt (run from the repository root)."""
src = open('src/cpu/prelude.txt').read().rstrip('\n').split('\n')
out = ['/* prelude.c — GENERATED from src/cpu/prelude.txt by the script in tests/cpu/gen_prelude.py: edit',
       ' * prelude.txt, then rerun it. The C text every generated file starts with: the enk_group',
       ' * ABI, half/bfloat conversions, integer and float helpers with Metal semantics, atomics and',
       ' * simdgroup_matrix arithmetic. Helpers are static inline so gcc/clang inline them into the',
       ' * lane loops (no per-lane calls remain). */',
       '#include "cpu.h"', '', 'const char cpu_prelude[] =']
for line in src:
    out.append('    "' + line.replace('\\', '\\\\').replace('"', '\\"') + '\\n"')
out[-1] += ';'
open('src/cpu/prelude.c', 'w').write('\n'.join(out) + '\n')
