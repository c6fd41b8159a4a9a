"""A large sampled speedscope file for the import benchmark (BENCHMARKS.md, "Opening other
tools' profiles"), shaped as py-spy writes them: 2,000 shared frames, 8 threads (one profile
each), samples of stacks 5 to 40 frames deep drawn from 20,000 distinct ones, weights in
seconds, until the file holds BYTES.
Usage: python3 scripts/corpus/big-speedscope.py OUT BYTES"""
import json, random, sys

random.seed(11)
target = int(sys.argv[2])
frames = [{"name": f"handler_{i}", "file": f"/srv/app/pkg{i % 40}/mod{i % 300}.py", "line": i % 500 + 1}
          for i in range(2000)]
stacks = []
for _ in range(20000):
    depth = random.randint(5, 40)
    stacks.append(json.dumps([random.randrange(2000) for _ in range(depth)], separators=(",", ":")))
with open(sys.argv[1], "w") as out:
    out.write('{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":')
    out.write(json.dumps(frames, separators=(",", ":")))
    out.write('},"profiles":[')
    per_thread = max(1, target // 8)
    for thread in range(8):
        out.write("," if thread else "")
        out.write(f'{{"type":"sampled","name":"thread {thread}","unit":"seconds","startValue":0,"samples":[')
        written, count = 0, 0
        while written < per_thread * 0.93:
            stack = random.choice(stacks)
            out.write(("," if count else "") + stack)
            written += len(stack) + 1
            count += 1
        out.write('],"weights":[')
        out.write(",".join(["0.01"] * count))
        out.write(f'],"endValue":{count * 0.01:.2f}}}')
    out.write('],"exporter":"py-spy@0.4.1","name":"big"}\n')
