"""A large folded-stacks file for the import benchmark (BENCHMARKS.md, "Opening other tools'
profiles"): 200,000 distinct stacks of 10 to 40 frames from 5,000 method names, written again and
again with counts 1 to 500 until the file holds BYTES.
Usage: python3 scripts/corpus/big-folded.py OUT BYTES"""
import random, sys
random.seed(7)
names = [f"pkg{i%50}.sub{i%7}.Class{i%400}.method{i}" for i in range(5000)]
stacks = []
for s in range(200_000):
    depth = random.randint(10, 40)
    stacks.append(";".join(random.choice(names) for _ in range(depth)))
target = int(sys.argv[2])
written = 0
with open(sys.argv[1], "w") as f:
    while written < target:
        for st in stacks:
            line = f"{st} {random.randint(1,500)}\n"
            f.write(line)
            written += len(line)
            if written >= target: break
