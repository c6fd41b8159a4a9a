"""A large Chrome trace for the import benchmark (BENCHMARKS.md, "Opening other tools'
profiles"): 8 threads, each a loop of nested begin/end calls (depth 1 to 12) among 5,000 method
names, one in ten with `args`, until the file holds BYTES; thread names as metadata.
Usage: python3 scripts/corpus/big-chrome.py OUT BYTES"""
import random, sys
random.seed(7)
names = [f"pkg{i%50}.sub{i%7}.Class{i%400}.method{i}" for i in range(5000)]
target = int(sys.argv[2])
with open(sys.argv[1], "w") as f:
    f.write('{"displayTimeUnit":"ns","traceEvents":[\n')
    for tid in range(1, 9):
        f.write(f'{{"ph":"M","pid":1,"tid":{tid},"name":"thread_name","args":{{"name":"worker-{tid}"}}}},\n')
    written = 0
    ts = [1000.0] * 9
    while written < target:
        tid = random.randint(1, 8)
        depth = random.randint(1, 12)
        stack = [random.choice(names) for _ in range(depth)]
        lines = []
        for name in stack:
            ts[tid] += random.random() * 5
            args = ',"args":{"detail":"x%d"}' % random.randint(0, 99) if random.random() < 0.1 else ""
            lines.append(f'{{"ph":"B","pid":1,"tid":{tid},"ts":{ts[tid]:.3f},"name":"{name}"{args}}},\n')
        for name in reversed(stack):
            ts[tid] += random.random() * 5
            lines.append(f'{{"ph":"E","pid":1,"tid":{tid},"ts":{ts[tid]:.3f}}},\n')
        chunk = "".join(lines)
        f.write(chunk)
        written += len(chunk)
    f.write('{"ph":"M","pid":1,"tid":1,"name":"process_name","args":{"name":"big"}}]}\n')
