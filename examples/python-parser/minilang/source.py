"""The input: `procs` procedures of generated code, seeded so every run with the same arguments
is the same program."""

import random

NAMES = ["a", "b", "c", "d", "e", "f", "g", "h", "k", "m", "n", "p", "q", "r", "s", "t"]


def generate(procs, seed=16):
    rng = random.Random(seed)
    lines = []
    for index in range(procs):
        params = rng.sample(NAMES, rng.randint(0, 3))
        lines.append("proc p%d(%s) {" % (index, ", ".join(params)))
        for _ in range(rng.randint(3, 12)):
            target = rng.choice(NAMES)
            if rng.random() < 0.4 and index > 0:
                callee = "p%d" % rng.randrange(index)
                args = ", ".join(rng.choice(NAMES) for _ in range(rng.randint(0, 3)))
                lines.append("  %s = call %s(%s);" % (target, callee, args))
            else:
                lines.append("  %s = %s + %d * %s;" % (target, rng.choice(NAMES), rng.randint(0, 99), rng.choice(NAMES)))
        lines.append("  print(%s);" % rng.choice(NAMES))
        lines.append("}")
    return "\n".join(lines) + "\n"
