"""A large JFR recording for the import benchmark (BENCHMARKS.md, "Opening other tools'
profiles"): the chunks of a real recording IN, written again and again one after another, each
copy moved later by the whole recording's duration (its chunks' start times in their headers),
so OUT reads as one long recording of the same program, until it holds BYTES.
IN, for example: java -XX:StartFlightRecording=settings=profile,filename=IN.jfr \\
  -cp /usr/share/java/js.jar org.mozilla.javascript.tools.shell.Main -opt -1 \\
  scripts/corpus/rhino-nbody.js 1400000
Usage: python3 scripts/corpus/big-jfr.py IN OUT BYTES"""
import struct, sys

data = open(sys.argv[1], "rb").read()
target = int(sys.argv[3])
chunks, at = [], 0
while at < len(data):
    assert data[at:at + 4] == b"FLR\0", f"no chunk at byte {at}"
    (size,) = struct.unpack(">q", data[at + 8:at + 16])
    chunks.append(bytearray(data[at:at + size]))
    at += size
# Header (big-endian): magic, version, size, constant pool and metadata offsets, then the start
# time (ns since the epoch) at byte 32 and the duration (ns) at byte 40.
starts = [struct.unpack(">q", c[32:40])[0] for c in chunks]
ends = [s + struct.unpack(">q", c[40:48])[0] for s, c in zip(starts, chunks)]
span_ns = max(ends) - min(starts)
written, copy = 0, 0
with open(sys.argv[2], "wb") as out:
    while written < target:
        for chunk, start in zip(chunks, starts):
            chunk[32:40] = struct.pack(">q", start + copy * span_ns)
            out.write(chunk)
            written += len(chunk)
        copy += 1
print(f"{sys.argv[2]}: {copy} copies of {len(chunks)} chunks, {written} bytes, {copy * span_ns / 3.6e12:.1f} h")
