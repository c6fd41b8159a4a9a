#!/usr/bin/env bash
# Lists the methods of the classes in jars, one per line as `package<TAB>class<TAB>method(args)`
# (concrete methods only), the input of `examples/plate_report.rs` for a real program's city.
# Usage: scripts/methods-of-jars.sh JAR... > methods.tsv   (e.g. /usr/share/maven/lib/*.jar)
set -euo pipefail
for jar in "$@"; do
    classes=$(unzip -Z1 "$jar" 2>/dev/null | grep '\.class$' | grep -v 'module-info\|package-info' \
        | sed 's/\.class$//' | tr / .) || continue
    [ -n "$classes" ] || continue
    # shellcheck disable=SC2086 # one argument per class
    javap -p -cp "$jar" $classes 2>/dev/null || true
done | python3 -c '
import re, sys
cls = None
for line in sys.stdin:
    m = re.match(r"^(?:[\w ]*?)(?:class|interface|enum) ([\w.$]+)", line)
    if m and not line.startswith(" "):
        cls = m.group(1)
        continue
    if cls and line.startswith("  ") and "(" in line:
        head = line.split("(")[0]
        if "abstract" in head or "native" in head:
            continue
        name = head.split()[-1]
        package, _, simple = cls.rpartition(".")
        name = "<init>" if name == cls else name
        args = line.split("(")[1].split(")")[0]
        print(f"{package}\t{simple}\t{name}({args})")
'
