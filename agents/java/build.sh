#!/usr/bin/env bash
# Builds the highrise Java agent: agents/java/build/highrise-agent.jar, with ASM (Debian's
# libasm-java) unpacked into it so -javaagent:highrise-agent.jar needs nothing else.
# Also builds build/highrise-api.jar (io.highrise.Highrise: phase marks, what a program compiles
# against) and compiles the tests and the benchmark into build/test-classes (scripts/test-java.sh).
# Needs a JDK 11+ (javac, jar). Usage: agents/java/build.sh
set -euo pipefail
cd "$(dirname "$0")"
ASM_DIR="${ASM_DIR:-/usr/share/java}"
ASM_JARS=("$ASM_DIR/asm.jar" "$ASM_DIR/asm-commons.jar" "$ASM_DIR/asm-tree.jar")
for j in "${ASM_JARS[@]}"; do
    [[ -f "$j" ]] || { echo "build.sh: $j missing (apt-get install libasm-java)" >&2; exit 1; }
done
CP="$(IFS=:; echo "${ASM_JARS[*]}")"
rm -rf build/classes build/test-classes build/highrise-agent.jar.tmp
mkdir -p build/classes build/test-classes
javac --release 11 -nowarn -Xlint:-options -d build/classes -cp "$CP" $(find src -name '*.java')
# The sampled mode's JFR source (RecordingStream is JDK 14+): loaded by name only in that mode, so
# the agent still runs on JDK 11; a JDK older than 17 builds the agent without it.
javac --release 17 -nowarn -d build/classes -cp build/classes $(find src17 -name '*.java') 2>/dev/null ||
    echo "build.sh: JfrSource not built (needs a JDK 17): mode=sampled falls back to the agent's own reader"
# Unpack ASM into the jar (without its module-info and signatures).
(cd build/classes && for j in "${ASM_JARS[@]}"; do jar xf "$j" org; done)
cat > build/MANIFEST.MF <<MF
Premain-Class: io.highrise.agent.Agent
Agent-Class: io.highrise.agent.Agent
Can-Retransform-Classes: true
Can-Redefine-Classes: true
Implementation-Title: highrise-agent-java
Implementation-Version: 0.1.0
MF
jar --create --file build/highrise-agent.jar.tmp --manifest build/MANIFEST.MF -C build/classes .
mv build/highrise-agent.jar.tmp build/highrise-agent.jar
# The API a program compiles against (phase marks): build/highrise-api.jar.
rm -rf build/api-classes && mkdir -p build/api-classes
javac --release 11 -nowarn -Xlint:-options -d build/api-classes $(find api -name '*.java')
jar --create --file build/highrise-api.jar -C build/api-classes .
if [[ -d test ]]; then
    javac --release 11 -nowarn -d build/test-classes -cp build/highrise-agent.jar \
        $(find test -name '*.java' ! -name 'JfrSampler.java')
    # JFR event streaming (the sampled-mode probe) is JDK 14+: built only by a JDK that has it.
    javac --release 17 -nowarn -d build/test-classes test/io/highrise/bench/JfrSampler.java 2>/dev/null ||
        echo "build.sh: JfrSampler not built (needs a JDK 17)"
fi
echo "built $(pwd)/build/highrise-agent.jar"
