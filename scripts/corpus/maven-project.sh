#!/usr/bin/env bash
# Generates a multi-module Maven project: scripts/corpus/maven-project.sh MODULES DIR.
# A parent pom (packaging pom) with MODULES modules m0001..mNNNN (packaging jar, no sources),
# each module depending on the one before it, so the reactor has a real dependency graph to
# sort and every module inherits properties and dependency management from the parent.
# `mvn -o validate` needs nothing from a repository (no plugin runs in the validate phase).
set -euo pipefail
n="${1:?usage: maven-project.sh MODULES DIR}"
dir="${2:?usage: maven-project.sh MODULES DIR}"
mkdir -p "$dir"
modules=""
for ((i = 1; i <= n; i++)); do
    modules+="    <module>$(printf 'm%04d' "$i")</module>"$'\n'
done
cat >"$dir/pom.xml" <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 http://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>io.highrise.corpus</groupId>
  <artifactId>parent</artifactId>
  <version>1.0-SNAPSHOT</version>
  <packaging>pom</packaging>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.release>17</maven.compiler.release>
    <corpus.greeting>hello from \${project.artifactId}</corpus.greeting>
  </properties>
  <modules>
$modules  </modules>
</project>
POM
for ((i = 1; i <= n; i++)); do
    name="$(printf 'm%04d' "$i")"
    dep=""
    if ((i > 1)); then
        dep="  <dependencies>
    <dependency>
      <groupId>io.highrise.corpus</groupId>
      <artifactId>$(printf 'm%04d' $((i - 1)))</artifactId>
      <version>\${project.version}</version>
    </dependency>
  </dependencies>"
    fi
    mkdir -p "$dir/$name"
    cat >"$dir/$name/pom.xml" <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent>
    <groupId>io.highrise.corpus</groupId>
    <artifactId>parent</artifactId>
    <version>1.0-SNAPSHOT</version>
  </parent>
  <artifactId>$name</artifactId>
  <name>Module $i of $n</name>
  <description>\${corpus.greeting}</description>
$dep
</project>
POM
done
