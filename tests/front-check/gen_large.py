#!/usr/bin/env python3
"""gen_large.py [--loops] N [OUT] — writes a tinygrad-style generated compute kernel of N statements.

Generated kernels are straight-line code: thousands of uniquely named locals (val*, alu*),
each read a few times by later statements, a handful of buffer loads and one store. The
front end must compile them in time linear in N; tests/front-check runs this with N = 5000
under a timeout so that a quadratic name lookup or parser table fails CI.
--loops puts the statements into reduction loops of 100 statements each (names declared
inside a loop die with it, so later statements read the accumulators and the names from
before the loop), the shape of tinygrad's reduce kernels.
The output is deterministic (fixed seed), so a failure can be reproduced by rerunning it."""
import random
import sys


def generate(n, loops=False):
    rng = random.Random(20261121)
    out = [
        "#include <metal_stdlib>",
        "using namespace metal;",
        "kernel void r_generated(device float* data0 [[buffer(0)]],",
        "                        const device float* data1 [[buffer(1)]],",
        "                        const device int* data2 [[buffer(2)]],",
        "                        uint3 gid [[threadgroup_position_in_grid]],",
        "                        uint3 lid [[thread_position_in_threadgroup]]) {",
        "  int gidx0 = gid.x;",
        "  int lidx0 = lid.x;",
        "  float acc0 = 0.0f;",
    ]
    names = ["acc0"]
    ints = ["gidx0", "lidx0"]
    ops = ["+", "-", "*"]
    outer_names, outer_ints = None, None
    for i in range(n):
        if loops and i % 100 == 0:
            if outer_names is not None:
                out.append("  }")
                names, ints = outer_names, outer_ints
            out.append("  for (int ridx%d = 0; ridx%d < 4; ridx%d++) {" % (i, i, i))
            outer_names, outer_ints = names, ints
            names, ints = list(names), list(ints) + ["ridx%d" % i]
        kind = rng.randrange(10)
        # pick operands among recent names mostly, sometimes far back (long live ranges)
        def pick(pool):
            if rng.randrange(4) == 0:
                return rng.choice(pool)
            return pool[-1 - rng.randrange(min(len(pool), 8))]
        if kind == 0:
            idx = "(%s*%d+%d)" % (pick(ints), rng.randrange(1, 16), rng.randrange(64))
            name = "val%d" % i
            out.append("  float %s = *(data1+%s);" % (name, idx))
            names.append(name)
        elif kind == 1:
            name = "alu%d" % i
            out.append("  int %s = ((%s*%d)+data2[%s&15]);" % (name, pick(ints), rng.randrange(1, 9),
                                                               pick(ints)))
            ints.append(name)
        elif kind == 2:
            name = "alu%d" % i
            out.append("  float %s = ((%s<%s)?%s:%s);" % (name, pick(names), pick(names),
                                                         pick(names), pick(names)))
            names.append(name)
        elif kind == 3:
            name = "alu%d" % i
            out.append("  float %s = max(%s, (float)(%s));" % (name, pick(names), pick(ints)))
            names.append(name)
        elif kind == 4:
            out.append("  acc0 = (acc0+%s);" % pick(names))
        else:
            name = "alu%d" % i
            out.append("  float %s = (%s%s%s%s%.3ff);" % (name, pick(names), rng.choice(ops),
                                                       pick(names), rng.choice(ops),
                                                       rng.uniform(0.5, 2.0)))
            names.append(name)
    if outer_names is not None:
        out.append("  }")
        names, ints = outer_names, outer_ints
    out.append("  *(data0+gidx0) = (acc0+%s);" % names[-1])
    out.append("}")
    return "\n".join(out) + "\n"


def main():
    args = sys.argv[1:]
    loops = "--loops" in args
    args = [a for a in args if a != "--loops"]
    if not args:
        sys.stderr.write("usage: gen_large.py [--loops] N [OUT]\n")
        return 2
    text = generate(int(args[0]), loops)
    if len(args) > 1:
        with open(args[1], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
