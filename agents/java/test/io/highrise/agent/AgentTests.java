package io.highrise.agent;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The Java agent's tests, run by scripts/test-java.sh (no JUnit: a main with assertions).
 * Everything runs against the real listener, {@code highrise-probe}, and real JVMs started with
 * the agent (or attached to later). Usage:
 * {@code AgentTests --probe PATH --jar AGENT.jar --classes TEST_CLASSES --golden DIR [--highrise PATH]}
 */
public final class AgentTests {
    static String probe;
    static String jar;
    static String classes;
    static Path golden;
    static String highrise;
    static final String JAVA = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    static final String APP = "io.highrise.testapp";

    public static void main(String[] args) throws Exception {
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--probe": probe = args[i + 1]; break;
                case "--jar": jar = args[i + 1]; break;
                case "--classes": classes = args[i + 1]; break;
                case "--golden": golden = Paths.get(args[i + 1]); break;
                case "--highrise": highrise = args[i + 1]; break;
                default: throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        List<String> only = new ArrayList<>();
        String filter = System.getenv("HIGHRISE_JAVA_TESTS");
        if (filter != null && !filter.isEmpty()) {
            only.addAll(Arrays.asList(filter.split(",")));
        }
        Map<String, Check> tests = new LinkedHashMap<>();
        tests.put("golden_files_byte_for_byte", AgentTests::goldenFiles);
        tests.put("options_parse", AgentTests::optionsParse);
        tests.put("workload_lossless_exact_counts_and_definitions", AgentTests::workloadExact);
        tests.put("workload_default_mode_balanced_and_filtered", AgentTests::workloadDefault);
        tests.put("small_buffers_drop_and_resync_keep_stacks_right", AgentTests::dropsAndResync);
        tests.put("no_viewer_program_runs_normally", AgentTests::noViewer);
        tests.put("token_for_a_viewer_listening_beyond_loopback", AgentTests::token);
        tests.put("named_module_classes_are_profiled", AgentTests::namedModule);
        tests.put("attach_to_running_jvm", AgentTests::attach);
        tests.put("attached_jvm_survives_viewer_going_away_and_reattaches", AgentTests::viewerGoesAway);
        tests.put("pre_session_rule", AgentTests::preSessionRule);
        tests.put("attach_shows_threads_stuck_since_before_it", AgentTests::attachStuckThreads);
        tests.put("attach_pre_session_frames_that_return_leave_stacks_balanced", () -> attachFramesReturn(false));
        tests.put("attach_pre_session_frames_with_drops_keep_their_base", () -> attachFramesReturn(true));
        int failed = 0;
        for (Map.Entry<String, Check> t : tests.entrySet()) {
            if (!only.isEmpty() && !only.contains(t.getKey())) {
                continue;
            }
            long start = System.nanoTime();
            try {
                t.getValue().run();
                System.out.printf("ok   %s (%d ms)%n", t.getKey(), (System.nanoTime() - start) / 1_000_000);
            } catch (Throwable e) {
                failed++;
                System.out.printf("FAIL %s: %s%n", t.getKey(), e);
                e.printStackTrace(System.out);
            }
        }
        System.out.println(failed == 0 ? "all Java agent tests passed" : failed + " Java agent test(s) FAILED");
        System.exit(failed == 0 ? 0 : 1);
    }

    interface Check {
        void run() throws Exception;
    }

    // ---------------------------------------------------------------- golden files

    static void goldenFiles() throws IOException {
        Map<String, byte[]> frames = new LinkedHashMap<>();
        Wire w = new Wire();
        w.hello("highrise-golden 1.0", "tetris", "v1.0", 4242, 1, 1_700_000_000_000_000_000L);
        frames.put("hello", take(w));
        w.defineMethods(new MethodDef[] {
            new MethodDef(0, "main.game", "Board", "rotate", "(I)V", "Board.java", 42),
            new MethodDef(300, "", "Main", "run", null, null, -1),
        }, 0, 2);
        frames.put("define_methods", take(w));
        w.threadStart(1, "main", 900);
        frames.put("thread_start", take(w));
        w.defineClasses(new ClassDef[] {
            new ClassDef(1, "", "(untyped)", ClassDef.UNTYPED),
            new ClassDef(2, "main.game", "Piece", ClassDef.CLASS),
        }, 0, 2);
        frames.put("define_classes", take(w));
        Wire.EventPacker packer = new Wire.EventPacker();
        packer.start(1000);
        packer.push(0, 1000);
        packer.push(300 << 1, 1100);
        packer.push((300 << 1) | 1, 1227);
        packer.push(1, 21227);
        packer.writeTo(w, 1);
        frames.put("events", take(w));
        Wire.RecordPacker records = new Wire.RecordPacker();
        records.start(30_000);
        records.enter(0, 30_000);
        records.memory(2, 30_000, 3, false, 72);
        records.enter(300, 30_100);
        records.memory(1, 30_227, 2, true, 4096);
        records.exit(300, 30_227);
        records.exit(0, 50_227);
        check(records.count() == 6 && records.bytes() == 21, "records packer counts");
        records.writeTo(w, 1);
        frames.put("records", take(w));
        w.heartbeat(70_000);
        frames.put("heartbeat", take(w));
        w.resync(1, 80_000, new int[] {0, 300}, 2);
        frames.put("resync", take(w));
        w.dropped(1_000_000, 3);
        frames.put("dropped", take(w));
        w.memoryDropped(5000, 120_000, 0);
        frames.put("memory_dropped", take(w));
        w.threadEnd(1, 90_000);
        frames.put("thread_end", take(w));
        w.goodbye(100_000);
        frames.put("goodbye", take(w));
        Wire session = new Wire();
        for (Map.Entry<String, byte[]> f : frames.entrySet()) {
            byte[] expected = Files.readAllBytes(golden.resolve(f.getKey() + ".bin"));
            check(Arrays.equals(expected, f.getValue()), f.getKey() + ".bin differs: expected "
                    + hex(expected) + " got " + hex(f.getValue()));
            session.raw(f.getValue(), 0, f.getValue().length);
        }
        check(Arrays.equals(Files.readAllBytes(golden.resolve("session.bin")), session.toByteArray()),
                "session.bin differs");
        // Aside from the session: the same Hello with a token (null or empty: the plain one).
        w.hello("highrise-golden 1.0", "tetris", "v1.0", 4242, 1, 1_700_000_000_000_000_000L,
                "00112233445566778899aabbccddeeff");
        byte[] withToken = take(w);
        check(Arrays.equals(Files.readAllBytes(golden.resolve("hello_token.bin")), withToken),
                "hello_token.bin differs: got " + hex(withToken));
        w.hello("highrise-golden 1.0", "tetris", "v1.0", 4242, 1, 1_700_000_000_000_000_000L, "");
        check(Arrays.equals(frames.get("hello"), take(w)), "an empty token is no token");
        // The viewer's answers: the agent's Reject reader must read golden/reject.bin's reason.
        byte[] reject = Files.readAllBytes(golden.resolve("reject.bin"));
        check(Sender.describeReject(reject, 5, reject.length).equals("bad magic"), "reject reason");
        byte[] rejectToken = Files.readAllBytes(golden.resolve("reject_token.bin"));
        check(Sender.describeReject(rejectToken, 5, rejectToken.length).equals("unauthorized: no token"),
                "token reject reason");
        // Both answers carry the viewer's version (2, this agent's), Welcome also the session id 7.
        byte[] welcome = Files.readAllBytes(golden.resolve("welcome.bin"));
        long[] at = {4};
        check(Sender.readVarint(welcome, at, welcome.length) == 0, "welcome tag");
        check(Sender.readVarint(welcome, at, welcome.length) == 2, "welcome version");
        check(Sender.readVarint(welcome, at, welcome.length) == 7 && at[0] == welcome.length, "welcome session");
        for (byte[] r : new byte[][] {reject, rejectToken}) {
            at[0] = 4;
            check(Sender.readVarint(r, at, r.length) == 1, "reject tag");
            check(Sender.readVarint(r, at, r.length) == 2, "reject version");
        }
        check(Wire.PROTOCOL_VERSION == 2, "protocol version");
        // Every top-level golden file is one of the above (golden/v1/ holds the old session).
        List<String> covered = new ArrayList<>(frames.keySet());
        covered.addAll(Arrays.asList("session", "hello_token", "welcome", "reject", "reject_token"));
        List<String> present = new ArrayList<>();
        try (java.util.stream.Stream<Path> files = Files.list(golden)) {
            files.filter(p -> Files.isRegularFile(p) && p.getFileName().toString().endsWith(".bin"))
                    .forEach(p -> present.add(p.getFileName().toString().replaceFirst("\\.bin$", "")));
        }
        Collections.sort(covered);
        Collections.sort(present);
        check(covered.equals(present), "golden files " + present + " but covered " + covered);
        // Varint and LEB128 examples from SPEC.md.
        checkBytes(v -> v.varint(42), "2a");
        checkBytes(v -> v.varint(250), "fa");
        checkBytes(v -> v.varint(300), "fb 2c 01");
        checkBytes(v -> v.varint(4242), "fb 92 10");
        checkBytes(v -> v.varint(70000), "fc 70 11 01 00");
        checkBytes(v -> v.varint(1L << 40), "fd 00 00 00 00 00 01 00 00");
        checkBytes(v -> v.leb128(0), "00");
        checkBytes(v -> v.leb128(127), "7f");
        checkBytes(v -> v.leb128(128), "80 01");
        checkBytes(v -> v.leb128(600), "d8 04");
        checkBytes(v -> v.leb128(20000), "a0 9c 01");
        // A clock that steps back writes delta 0.
        Wire.EventPacker back = new Wire.EventPacker();
        back.start(100);
        back.push(0, 100);
        back.push(1, 90);
        back.push(2, 95);
        Wire bw = new Wire();
        back.writeTo(bw, 1);
        check(hex(bw.toByteArray()).endsWith("06 00 00 01 00 02 00"), "backwards clock: " + hex(bw.toByteArray()));
        // The same for records, memory records included; large ids, counts and sizes as LEB128.
        Wire.RecordPacker rback = new Wire.RecordPacker();
        rback.start(100);
        rback.enter(0, 100);
        rback.memory(1, 90, 1, false, 0);
        rback.exit(0, 95);
        rback.memory(40, 95, 64, true, 1L << 20);
        Wire rw = new Wire();
        rback.writeTo(rw, 1);
        check(hex(rw.toByteArray()).endsWith("0a 01 64 04 10 00 00 06 00 02 00 01 00 a2 01 00 81 01 80 80 40"),
                "records, backwards clock: " + hex(rw.toByteArray()));
    }

    interface WireOp {
        void apply(Wire w);
    }

    static void checkBytes(WireOp op, String hex) {
        Wire w = new Wire();
        op.apply(w);
        check(hex(w.toByteArray()).equals(hex), "expected " + hex + " got " + hex(w.toByteArray()));
    }

    static byte[] take(Wire w) {
        byte[] b = w.toByteArray();
        w.clear();
        return b;
    }

    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            if (s.length() > 0) {
                s.append(' ');
            }
            s.append(String.format("%02x", x & 0xFF));
        }
        return s.toString();
    }

    // ---------------------------------------------------------------- options

    static void optionsParse() {
        Options o = Options.parse("addr=10.0.0.2:9000,include=com.shop,include=org.x.Main,exclude=com.shop.gen,"
                + "program=shop,label=abc123,buffer=1000,lossless");
        check(o.host.equals("10.0.0.2") && o.port == 9000, "addr");
        check(o.includes.equals(Arrays.asList("com.shop", "org.x.Main")), "includes " + o.includes);
        check(o.program.equals("shop") && o.label.equals("abc123"), "program/label");
        check(o.bufferEvents == 1024, "buffer rounds up to a power of two: " + o.bufferEvents);
        check(o.lossless, "lossless");
        check(Options.parse("token=abc").token.equals("abc"), "token");
        check(o.warnings.isEmpty(), "warnings " + o.warnings);
        Options.Filter f = o.filter();
        check(f.accepts("com/shop/Cart"), "included package");
        check(f.accepts("com/shop/deep/Cart$Line"), "sub-package");
        check(!f.accepts("com/shopping/Cart"), "a longer name is not under the prefix");
        check(!f.accepts("com/shop/gen/Proto"), "excluded package");
        check(f.accepts("org/x/Main") && f.accepts("org/x/Main$1"), "class and its nested classes");
        check(!f.accepts("org/x/Other"), "not included");
        Options all = Options.parse("");
        Options.Filter everything = all.filter();
        check(everything.accepts("Foo") && everything.accepts("a/b/C"), "no include = everything");
        for (String jdk : new String[] {"java/lang/String", "javax/swing/J", "jdk/internal/X", "sun/misc/U",
            "com/sun/net/H", "io/highrise/agent/Recorder", "org/objectweb/asm/ClassReader"}) {
            check(!everything.accepts(jdk), "built-in exclude " + jdk);
        }
        Options bad = Options.parse("addr=nonsense,buffer=x,frobnicate=1");
        check(bad.warnings.size() == 3, "warnings for bad options: " + bad.warnings);
        check(bad.port == 7878 || System.getenv("HIGHRISE_ADDR") != null, "bad addr keeps the default");
    }

    // ---------------------------------------------------------------- runs against the probe

    /** An address of this machine that is not loopback (where a UDP socket would send from;
     *  nothing is sent), or null. Connecting to it, an agent looks like one on another machine. */
    static String nonLoopbackAddress() {
        for (String target : new String[] {"192.0.2.1", "10.255.255.1"}) {
            try (java.net.DatagramSocket udp = new java.net.DatagramSocket()) {
                udp.connect(java.net.InetAddress.getByName(target), 9);
                java.net.InetAddress local = udp.getLocalAddress();
                if (local != null && !local.isLoopbackAddress() && !local.isAnyLocalAddress()) {
                    return local.getHostAddress();
                }
            } catch (IOException | RuntimeException e) {
                // try the next one
            }
        }
        return null;
    }

    /**
     * A viewer with a token on all interfaces: from "another machine" (this machine's own
     * non-loopback address) the agent gets in with token= (or HIGHRISE_TOKEN), is turned away
     * without it and with a wrong one (the program runs on, told why), and a local agent needs none.
     */
    static void token() throws Exception {
        String ip = nonLoopbackAddress();
        if (ip == null) {
            System.out.println("     (skipped: this machine has no non-loopback address to connect from)");
            return;
        }
        String token = "0123456789abcdef0123456789abcdef";
        try (Probe p = new Probe(4, "0.0.0.0:0", token)) {
            String port = p.addr.substring(p.addr.lastIndexOf(':') + 1);
            String remote = ip + ":" + port;
            String[] workload = {"2", "20"};
            String agent = "-javaagent:" + jar + "=include=" + APP + ",addr=";
            Run right = runJava(Arrays.asList(agent + remote + ",token=" + token), APP + ".Workload", workload);
            Run missing = runJava(Arrays.asList(agent + remote), APP + ".Workload", workload);
            Run wrong = runJava(Arrays.asList(agent + remote + ",token=not-it"), APP + ".Workload", workload);
            Run local = runJava(Arrays.asList(agent + "127.0.0.1:" + port), APP + ".Workload", workload);
            for (Run run : new Run[] {right, missing, wrong, local}) {
                check(run.exit == 0 && run.output.contains("WORKLOAD DONE"), "workload:\n" + run.output);
            }
            check(missing.output.contains("the viewer rejected the session: unauthorized: no token"),
                    "told why:\n" + missing.output);
            check(wrong.output.contains("the viewer rejected the session: unauthorized: wrong token"),
                    "told why:\n" + wrong.output);
            check(!wrong.output.contains(token), "never shows a token");
            List<String> servedFrom = new ArrayList<>();
            List<String> refused = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                Map<String, Object> s = p.session(30);
                String end = String.valueOf(s.get("end"));
                if (end.equals("goodbye")) {
                    check(list(s.get("errors")).isEmpty(), "errors " + s.get("errors"));
                    String peer = String.valueOf(s.get("peer"));
                    servedFrom.add(peer.substring(0, peer.lastIndexOf(':')));
                    Map<String, Object> stats = map(s.get("stats"));
                    allThreadsBalanced(s, num(stats.get("agent_events_dropped")) == 0);
                    check(num(map(s.get("calls")).get(APP + ".Workload.main")) == 1, "calls " + s.get("calls"));
                } else {
                    refused.add(end.split(";")[0]);
                }
            }
            Collections.sort(servedFrom);
            List<String> expectedFrom = new ArrayList<>(Arrays.asList(ip, "127.0.0.1"));
            Collections.sort(expectedFrom);
            check(servedFrom.equals(expectedFrom), "served " + servedFrom);
            Collections.sort(refused);
            check(refused.equals(Arrays.asList("failed: unauthorized: no token", "failed: unauthorized: wrong token")),
                    "refused " + refused);
        }
    }

    static void workloadExact() throws Exception {
        int threads = 4;
        int rounds = 200;
        try (Probe p = new Probe(1)) {
            Run run = runJava(Arrays.asList("-javaagent:" + jar + "=addr=" + p.addr + ",include=" + APP
                    + ",program=workload,label=test-label,lossless"), APP + ".Workload",
                    String.valueOf(threads), String.valueOf(rounds));
            check(run.exit == 0, "workload exit " + run.exit + "\n" + run.output);
            check(run.output.contains("WORKLOAD DONE 3"), "workload output:\n" + run.output);
            check(run.output.contains("UNCAUGHT crasher gave up"), "the crasher thread died uncaught");
            Map<String, Object> s = p.session(30);
            check("workload".equals(s.get("program")), "program " + s.get("program"));
            check("test-label".equals(s.get("version_label")), "label");
            check(String.valueOf(s.get("agent")).startsWith("highrise-agent-java "), "agent " + s.get("agent"));
            check(num(s.get("pid")) == run.pid, "pid " + s.get("pid") + " vs " + run.pid);
            check(num(s.get("clock_unit_ns")) == 1, "clock unit");
            check("goodbye".equals(s.get("end")), "end " + s.get("end"));
            check(list(s.get("errors")).isEmpty(), "errors " + s.get("errors"));
            Map<String, Object> stats = map(s.get("stats"));
            check(num(stats.get("agent_events_dropped")) == 0, "lossless dropped events");
            check(num(stats.get("resyncs")) == 0, "no resyncs");
            check(num(stats.get("duplicate_definitions")) == 0, "duplicate definitions");
            check(num(stats.get("threads_implicit")) == 0, "every thread announced by ThreadStart");
            allThreadsBalanced(s, true);
            List<String> names = new ArrayList<>();
            for (Object t : list(s.get("threads"))) {
                Map<String, Object> th = map(t);
                names.add((String) th.get("name"));
                check(Boolean.TRUE.equals(th.get("started")) && Boolean.TRUE.equals(th.get("ended")),
                        "thread " + th.get("name") + " started and ended");
            }
            for (String n : new String[] {"main", "worker-0", "worker-1", "worker-2", "worker-3", "crasher"}) {
                check(names.contains(n), "thread " + n + " in " + names);
            }
            Map<String, Object> calls = map(s.get("calls"));
            Map<String, Long> expected = io.highrise.testapp.Workload.expected(threads, rounds);
            for (Map.Entry<String, Long> e : expected.entrySet()) {
                check(calls.containsKey(e.getKey()) && num(calls.get(e.getKey())) == e.getValue(),
                        e.getKey() + ": expected " + e.getValue() + " enters, got " + calls.get(e.getKey()));
            }
            long lambdas = calls.keySet().stream().filter(k -> k.startsWith(APP + ".Workload.lambda$"))
                    .mapToLong(k -> num(calls.get(k))).sum();
            // worker threads' bodies (threads), the crasher's handler (1), the lambda in the loop.
            check(lambdas == threads + 1 + (long) threads * rounds, "lambda bodies " + lambdas);
            // Per thread: each worker made the same calls.
            for (Object t : list(s.get("threads"))) {
                Map<String, Object> th = map(t);
                if (String.valueOf(th.get("name")).startsWith("worker-")) {
                    Map<String, Object> c = map(th.get("calls"));
                    check(num(c.get(APP + ".Calc.fib")) == rounds * io.highrise.testapp.Workload.fibCalls(12),
                            "per-thread fib " + c.get(APP + ".Calc.fib"));
                }
                if ("crasher".equals(th.get("name"))) {
                    check(num(th.get("max_depth")) == 5, "crasher depth run+4 deep: " + th.get("max_depth"));
                }
            }
            Map<String, Map<String, Object>> defs = methodsByName(s);
            checkDef(defs, APP + ".Outer$Inner.work", APP, "Outer$Inner", "work", "(I)I");
            checkDef(defs, APP + ".Outer$Inner.<init>", APP, "Outer$Inner", "<init>", "(L" + APP.replace('.', '/') + "/Outer;)V");
            checkDef(defs, APP + ".Outer$Nested.compute", APP, "Outer$Nested", "compute", "([J)J");
            checkDef(defs, APP + ".Workload.main", APP, "Workload", "main", "([Ljava/lang/String;)V");
            checkDef(defs, APP + ".Calc.<clinit>", APP, "Calc", "<clinit>", "()V");
            for (Map<String, Object> d : defs.values()) {
                check("Workload.java".equals(d.get("file")), "file of " + d.get("name") + ": " + d.get("file"));
            }
        }
    }

    static void checkDef(Map<String, Map<String, Object>> defs, String name, String pkg, String cls,
            String method, String signature) {
        Map<String, Object> d = defs.get(name);
        check(d != null, "definition of " + name + " missing; have " + defs.keySet());
        check(pkg.equals(d.get("package")) && cls.equals(d.get("class")) && method.equals(d.get("method"))
                && signature.equals(d.get("signature")), "definition of " + name + ": " + d);
    }

    static void workloadDefault() throws Exception {
        try (Probe p = new Probe(1)) {
            Run run = runJava(Arrays.asList("-javaagent:" + jar + "=addr=" + p.addr + ",include=" + APP
                    + ",exclude=" + APP + ".Outer"), APP + ".Workload", "2", "20");
            check(run.exit == 0 && run.output.contains("WORKLOAD DONE"), "workload:\n" + run.output);
            Map<String, Object> s = p.session(30);
            check("goodbye".equals(s.get("end")) && list(s.get("errors")).isEmpty(), "end/errors " + s.get("end") + s.get("errors"));
            check(s.get("program").equals(APP + ".Workload"), "default program name: " + s.get("program"));
            Map<String, Object> stats = map(s.get("stats"));
            allThreadsBalanced(s, num(stats.get("agent_events_dropped")) == 0);
            for (String name : methodsByName(s).keySet()) {
                check(!name.startsWith(APP + ".Outer"), "excluded class defined: " + name);
            }
            check(methodsByName(s).containsKey(APP + ".Calc.fib"), "included class defined");
        }
    }

    static void dropsAndResync() throws Exception {
        try (Probe p = new Probe(1)) {
            Run run = runJava(Arrays.asList("-javaagent:" + jar + "=addr=" + p.addr + ",include=" + APP
                    + ",buffer=64"), APP + ".Workload", "4", "300");
            check(run.exit == 0 && run.output.contains("WORKLOAD DONE"), "workload:\n" + run.output);
            Map<String, Object> s = p.session(30);
            check("goodbye".equals(s.get("end")) && list(s.get("errors")).isEmpty(), "end/errors " + s.get("end") + s.get("errors"));
            Map<String, Object> stats = map(s.get("stats"));
            check(num(stats.get("agent_events_dropped")) > 0, "64-event buffers must drop: " + stats);
            check(num(stats.get("agent_batches_dropped")) > 0, "gaps counted: " + stats);
            check(num(stats.get("resyncs")) > 0, "resyncs sent: " + stats);
            check(num(stats.get("skipped_records")) == 0, "no event named an undefined method: " + stats);
            allThreadsBalanced(s, false);
        }
    }

    /** Every thread's stack is empty at the end with no mismatched or orphan exits; exact=true also
     * asks enters == exits (only without drops). */
    static void allThreadsBalanced(Map<String, Object> s, boolean exact) {
        for (Object t : list(s.get("threads"))) {
            Map<String, Object> th = map(t);
            String n = String.valueOf(th.get("name"));
            check(list(th.get("open_frames")).isEmpty(), n + " open frames " + th.get("open_frames"));
            check(num(th.get("mismatched_exits")) == 0, n + " mismatched exits " + th.get("mismatched_exits"));
            check(num(th.get("orphan_exits")) == 0, n + " orphan exits " + th.get("orphan_exits"));
            check(num(th.get("backwards_timestamps")) == 0, n + " backwards timestamps");
            if (exact) {
                check(Boolean.TRUE.equals(th.get("balanced")), n + " not balanced: " + th);
            }
        }
    }

    static void noViewer() throws Exception {
        int port;
        try (ServerSocket ss = new ServerSocket(0)) {
            port = ss.getLocalPort();
        }
        Run run = runJava(Arrays.asList("-javaagent:" + jar + "=addr=127.0.0.1:" + port + ",include=" + APP),
                APP + ".Workload", "2", "50");
        check(run.exit == 0 && run.output.contains("WORKLOAD DONE 3"), "workload without a viewer:\n" + run.output);
        check(run.output.contains("cannot connect"), "says it runs unprofiled:\n" + run.output);
    }

    /** A class in a named module must be given a read edge to the agent before it calls it. */
    static void namedModule() throws Exception {
        Path dir = Files.createTempDirectory("highrise-module");
        Path src = dir.resolve("src/demo.mod/org/demo");
        Files.createDirectories(src);
        Files.writeString(dir.resolve("src/demo.mod/module-info.java"), "module demo.mod { }\n");
        Files.writeString(src.resolve("ModMain.java"), "package org.demo;\n"
                + "public class ModMain {\n"
                + "  static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
                + "  public static void main(String[] a) { System.out.println(\"fib \" + fib(15)); }\n"
                + "}\n");
        javax.tools.JavaCompiler javac = javax.tools.ToolProvider.getSystemJavaCompiler();
        check(javac != null, "no system Java compiler (a JRE instead of a JDK?)");
        int rc = javac.run(null, null, null, "-d", dir.resolve("out/demo.mod").toString(),
                dir.resolve("src/demo.mod/module-info.java").toString(), src.resolve("ModMain.java").toString());
        check(rc == 0, "compiling the module");
        try (Probe p = new Probe(1)) {
            List<String> cmd = Arrays.asList(JAVA, "-javaagent:" + jar + "=addr=" + p.addr + ",include=org.demo",
                    "-p", dir.resolve("out").toString(), "-m", "demo.mod/org.demo.ModMain");
            ProcessBuilder builder = new ProcessBuilder(cmd).redirectErrorStream(true);
        builder.environment().remove("HIGHRISE_TOKEN");
        Process pr = builder.start();
            String out = new String(pr.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            check(pr.waitFor(60, TimeUnit.SECONDS) && pr.exitValue() == 0 && out.contains("fib 610"),
                    "modular program:\n" + out);
            Map<String, Object> s = p.session(30);
            check("goodbye".equals(s.get("end")) && list(s.get("errors")).isEmpty(), "end/errors");
            Map<String, Object> calls = map(s.get("calls"));
            check(num(calls.get("org.demo.ModMain.fib")) == io.highrise.testapp.Workload.fibCalls(15),
                    "fib calls " + calls);
            allThreadsBalanced(s, true);
        }
    }

    static void attach() throws Exception {
        Path dir = Files.createTempDirectory("highrise-attach");
        try (Probe p = new Probe(1); Target target = new Target(dir.resolve("stop"))) {
            Thread.sleep(300);
            String how = loadAgent(target.pid, p.addr, "attach-target");
            Thread.sleep(1500);
            Files.createFile(dir.resolve("stop"));
            Run run = target.waitFor();
            check(run.exit == 0 && run.output.contains("DONE") && run.output.contains("checksum-ok"),
                    "target after attach (" + how + "):\n" + run.output);
            Map<String, Object> s = p.session(30);
            check("attach-target".equals(s.get("program")), "program " + s.get("program"));
            check(num(s.get("pid")) == target.pid, "pid");
            check("goodbye".equals(s.get("end")) && list(s.get("errors")).isEmpty(),
                    "end/errors " + s.get("end") + s.get("errors"));
            Map<String, Object> calls = map(s.get("calls"));
            check(calls.containsKey(APP + ".Work.step") && num(calls.get(APP + ".Work.step")) > 0,
                    "steps recorded after attach: " + calls);
            boolean lossFree = num(map(s.get("stats")).get("agent_events_dropped")) == 0;
            check(!lossFree || num(calls.get(APP + ".Work.step")) == num(calls.get(APP + ".Work.inner")),
                    "step and inner called equally often: " + calls);
            allThreadsBalanced(s, lossFree);
            List<String> names = new ArrayList<>();
            for (Object t : list(s.get("threads"))) {
                names.add(String.valueOf(map(t).get("name")));
            }
            check(names.contains("main") && names.contains("helper"), "threads " + names);
            System.out.println("     (attached with " + how + ")");
        }
    }

    static void viewerGoesAway() throws Exception {
        Path dir = Files.createTempDirectory("highrise-attach");
        try (Target target = new Target(dir.resolve("stop"))) {
            try (Probe p = new Probe(1)) {
                Thread.sleep(300);
                loadAgent(target.pid, p.addr, "attach-target");
                Thread.sleep(1500);
            } // the probe is killed here, mid-session
            Thread.sleep(1000);
            check(target.process.isAlive(), "target died with the viewer");
            // Attach again to a new viewer: a fresh session with every definition and balanced streams.
            try (Probe p2 = new Probe(1)) {
                loadAgent(target.pid, p2.addr, "attach-again");
                Thread.sleep(1000);
                Files.createFile(dir.resolve("stop"));
                Run run = target.waitFor();
                check(run.exit == 0 && run.output.contains("checksum-ok"), "target after the viewer went away:\n" + run.output);
                check(run.output.contains("session ended"), "the agent noticed and stopped:\n" + run.output);
                Map<String, Object> s = p2.session(30);
                check("attach-again".equals(s.get("program")) && "goodbye".equals(s.get("end"))
                        && list(s.get("errors")).isEmpty(), "second session " + s.get("program") + " " + s.get("end") + " " + s.get("errors"));
                check(num(map(s.get("calls")).get(APP + ".Work.step")) > 0, "steps in the second session");
                check(num(map(s.get("stats")).get("skipped_records")) == 0, "every id defined again");
                allThreadsBalanced(s, num(map(s.get("stats")).get("agent_events_dropped")) == 0);
            }
        }
    }

    /** PreSession.alive: how many pre-session frames a look at the stacks says still run. */
    static void preSessionRule() {
        List<Integer> none = PreSession.list();
        // base [1,2]: still both running, with recorded frames above them.
        check(PreSession.alive(PreSession.list(1, 2, 7), PreSession.list(1, 2), PreSession.list(7)) == 2, "both run");
        // 2 returned, 1 called 7 (recorded).
        check(PreSession.alive(PreSession.list(1, 7), PreSession.list(1, 2), PreSession.list(7)) == 1, "2 returned");
        // 2 returned and 1 called 2 again: the new 2 is recorded, so only 1 is a base frame.
        check(PreSession.alive(PreSession.list(1, 2), PreSession.list(1, 2), PreSession.list(2)) == 1, "2 called again");
        // A frame just called (its enter not recorded yet) on top: no conclusion about 2 beyond the prefix.
        check(PreSession.alive(PreSession.list(1, 2, 9), PreSession.list(1, 2), none) == 2, "unrecorded frame on top");
        // Everything returned (thread in unprofiled code).
        check(PreSession.alive(none, PreSession.list(1, 2), none) == 0, "all returned");
        // A recorded frame that is not on the stack: a look that does not match.
        check(PreSession.alive(PreSession.list(1, 2), PreSession.list(1, 2), PreSession.list(5)) == -1, "mismatch");
        // Overloads: line ranges pick the method; ambiguity resolves to none (-1).
        String cls = "io.highrise.test.Overloads";
        int a = Methods.reserve("test:" + cls + ".f(I)V");
        int b = Methods.reserve("test:" + cls + ".f(J)V");
        int c = Methods.reserve("test:" + cls + ".g()V");
        Methods.define(new MethodDef(a, "io.highrise.test", "Overloads", "f", "(I)V", null, 10), 10, 14);
        Methods.define(new MethodDef(b, "io.highrise.test", "Overloads", "f", "(J)V", null, 16), 16, 20);
        Methods.define(new MethodDef(c, "io.highrise.test", "Overloads", "g", "()V", null, -1), -1, -1);
        check(Methods.resolve(cls, "f", 12) == a && Methods.resolve(cls, "f", 20) == b, "overloads by line");
        check(Methods.resolve(cls, "f", 15) == -1 && Methods.resolve(cls, "f", -1) == -1, "ambiguous overloads");
        check(Methods.resolve(cls, "g", -1) == c && Methods.resolve(cls, "h", 3) == -1, "single method / unknown");
    }

    /**
     * Test (1) of issue 12 item 8: N threads stuck in a profiled method since before the attach.
     * Each is announced at the attach with a Resync holding Stuck.run and makes no event after:
     * the aggregator reads Stuck.run at 100 % with N threads from the attach on (a frame open
     * from the Resync to the end, at every window).
     */
    static void attachStuckThreads() throws Exception {
        int n = 4;
        Path dir = Files.createTempDirectory("highrise-preattach");
        try (Probe p = new Probe(1);
                Target target = new Target(APP + ".PreAttachTarget", String.valueOf(n),
                        dir.resolve("flag").toString(), dir.resolve("stop").toString())) {
            loadAgent(target.pid, p.addr, "stuck", "verbose");
            Thread.sleep(700);
            Files.createFile(dir.resolve("stop"));
            Run run = target.waitFor();
            check(run.output.contains("BYE"), "target:\n" + run.output);
            Map<String, Object> s = p.session(30);
            check("goodbye".equals(s.get("end")) && list(s.get("errors")).isEmpty(), "end/errors " + s.get("end") + s.get("errors"));
            check(num(map(s.get("stats")).get("skipped_records")) == 0, "every id defined before its Resync");
            int stuck = 0;
            for (Object t : list(s.get("threads"))) {
                Map<String, Object> th = map(t);
                if (String.valueOf(th.get("name")).startsWith("stuck-")) {
                    check(list(th.get("open_frames")).equals(Arrays.asList(APP + ".Stuck.run")),
                            th.get("name") + " open " + th.get("open_frames"));
                    check(num(th.get("resyncs")) == 1 && num(th.get("enters")) == 0 && num(th.get("exits")) == 0,
                            th.get("name") + ": one Resync at the attach and no events: " + th);
                    stuck++;
                }
            }
            check(stuck == n, "threads in Stuck.run: " + stuck);
            check(run.output.contains(" profiled frame(s) already running"), "attach log:\n" + run.output);
            System.out.println("     (" + stuck + " threads read in Stuck.run from the attach on)");
        }
    }

    /**
     * Test (2): frames that began before the attach and return later. {@code phased} returns from
     * waitForFlag into run and goes on calling profiled methods (it settles its own stack in a
     * hook); {@code quiet} returns into run and calls nothing profiled (the sender settles it
     * while it is idle). At the end each stack must be exactly what runs: run, not waitForFlag.
     */
    static void attachFramesReturn(boolean drops) throws Exception {
        Path dir = Files.createTempDirectory("highrise-preattach");
        try (Probe p = new Probe(1);
                Target target = new Target(APP + ".PreAttachTarget", "2",
                        dir.resolve("flag").toString(), dir.resolve("stop").toString())) {
            // lossless: phased's dense calls wait for the sender instead of dropping, and keep its
            // buffer moving during every look from outside, so it settles its frame in a hook.
            // With drops (64-event buffers), each loss Resync must carry the base frames too.
            loadAgent(target.pid, p.addr, "returns", drops ? "verbose,buffer=64" : "verbose,lossless");
            Thread.sleep(800);
            Files.createFile(dir.resolve("flag"));
            target.waitForLine("FLAG SEEN");
            Thread.sleep(1200); // phased: 400 ms of busy(), then idle in run
            Files.createFile(dir.resolve("stop"));
            Run run = target.waitFor();
            Map<String, Object> s = p.session(30);
            check("goodbye".equals(s.get("end")) && list(s.get("errors")).isEmpty(), "end/errors " + s.get("end") + s.get("errors"));
            Map<String, Object> stats = map(s.get("stats"));
            check(num(stats.get("skipped_records")) == 0, "stats " + stats);
            check(!drops || num(stats.get("agent_events_dropped")) > 0, "64-event buffers must drop: " + stats);
            Map<String, List<Object>> open = new LinkedHashMap<>();
            for (Object t : list(s.get("threads"))) {
                Map<String, Object> th = map(t);
                String name = String.valueOf(th.get("name"));
                open.put(name, list(th.get("open_frames")));
                check(num(th.get("mismatched_exits")) == 0 && num(th.get("orphan_exits")) == 0
                        && num(th.get("backwards_timestamps")) == 0, name + " drifted: " + th);
                if (name.equals("phased")) {
                    Map<String, Object> calls = map(th.get("calls"));
                    check(num(calls.get(APP + ".Phased.busy")) > 0 && num(calls.get(APP + ".Phased.poll")) > 0,
                            "phased calls " + calls);
                    check(num(th.get("resyncs")) >= 2, "phased: the attach's Resync and one when waitForFlag returned: " + th);
                }
                if (name.equals("quiet")) {
                    check(num(th.get("resyncs")) == 2 && num(th.get("enters")) == 0,
                            "quiet: the attach's Resync and one when waitForFlag returned: " + th);
                }
            }
            check(Arrays.asList(APP + ".Phased.run").equals(open.get("phased")), "phased open " + open.get("phased"));
            check(Arrays.asList(APP + ".Quiet.run").equals(open.get("quiet")), "quiet open " + open.get("quiet"));
            check(Arrays.asList(APP + ".PreAttachTarget.main").equals(open.get("main")),
                    "main (calls System.exit) open " + open.get("main"));
            for (String name : new String[] {"stuck-0", "stuck-1"}) {
                check(Arrays.asList(APP + ".Stuck.run").equals(open.get(name)), name + " open " + open.get(name));
            }
            java.util.regex.Matcher m = java.util.regex.Pattern
                    .compile("settled by the threads: (\\d+), by the sender: (\\d+)").matcher(run.output);
            check(m.find(), "no summary line:\n" + run.output);
            long byThreads = Long.parseLong(m.group(1));
            long bySender = Long.parseLong(m.group(2));
            check(drops ? byThreads + bySender >= 2 : byThreads >= 1 && bySender >= 1,
                    "phased settles in a hook, quiet by the sender: " + m.group());
            System.out.println("     (" + m.group() + ")");
        }
    }

    /** Loads the agent into pid: `highrise attach` when the binary is there, else jcmd directly. */
    static String loadAgent(long pid, String addr, String program) throws Exception {
        return loadAgent(pid, addr, program, null);
    }

    /** As above; extra agent options (e.g. verbose) always go through jcmd. */
    static String loadAgent(long pid, String addr, String program, String extra) throws Exception {
        List<String> cmd = new ArrayList<>();
        String how;
        if (extra == null && highrise != null && new File(highrise).canExecute()) {
            cmd.addAll(Arrays.asList(highrise, "attach", String.valueOf(pid), "--addr", addr, "--include", APP,
                    "--program", program, "--agent-jar", jar));
            how = "highrise attach";
        } else {
            cmd.addAll(Arrays.asList("jcmd", String.valueOf(pid), "JVMTI.agent_load", new File(jar).getAbsolutePath(),
                    "\"addr=" + addr + ",include=" + APP + ",program=" + program
                    + (extra == null ? "" : "," + extra) + "\""));
            how = "jcmd JVMTI.agent_load";
        }
        Process pr = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(pr.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        check(pr.waitFor(60, TimeUnit.SECONDS) && pr.exitValue() == 0, how + " failed:\n" + out);
        return how;
    }

    // ---------------------------------------------------------------- processes

    static final class Run {
        int exit;
        long pid;
        String output;
    }

    static Run runJava(List<String> jvmArgs, String main, String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(JAVA);
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(classes);
        cmd.add(main);
        cmd.addAll(Arrays.asList(args));
        Process pr = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        Run r = new Run();
        r.pid = pr.pid();
        r.output = new String(pr.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        check(pr.waitFor(120, TimeUnit.SECONDS), "java did not finish: " + cmd);
        r.exit = pr.exitValue();
        return r;
    }

    /** The attach target: a JVM started without the agent. */
    static final class Target implements AutoCloseable {
        final Process process;
        final long pid;
        final BufferedReader out;

        Target(Path stop) throws Exception {
            this(APP + ".AttachTarget", stop.toString());
        }

        Target(String main, String... args) throws Exception {
            List<String> cmd = new ArrayList<>(Arrays.asList(JAVA, "-cp", classes, main));
            cmd.addAll(Arrays.asList(args));
            process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            pid = process.pid();
            out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            String first = out.readLine();
            check(first != null && first.equals("READY " + pid), "target said " + first);
        }

        final StringBuilder seen = new StringBuilder();

        /** Reads the output up to a line equal to {@code line} (kept for {@link #waitFor}). */
        void waitForLine(String line) throws Exception {
            String l;
            while ((l = out.readLine()) != null) {
                seen.append(l).append('\n');
                if (l.equals(line)) {
                    return;
                }
            }
            throw new AssertionError("target ended without printing " + line + ":\n" + seen);
        }

        Run waitFor() throws Exception {
            StringBuilder sb = seen;
            String line;
            while ((line = out.readLine()) != null) {
                sb.append(line).append('\n');
            }
            check(process.waitFor(30, TimeUnit.SECONDS), "target did not exit");
            Run r = new Run();
            r.exit = process.exitValue();
            r.pid = pid;
            r.output = sb.toString();
            return r;
        }

        @Override
        public void close() {
            process.destroyForcibly();
        }
    }

    /** A highrise-probe process: its address and the JSON line of each ended session. */
    static final class Probe implements AutoCloseable {
        final Process process;
        final String addr;
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

        Probe(int sessions) throws Exception {
            this(sessions, "127.0.0.1:0", null);
        }

        /** A probe listening on {@code listen}, asking agents not on loopback for {@code token}. */
        Probe(int sessions, String listen, String token) throws Exception {
            List<String> cmd = new ArrayList<>(Arrays.asList(probe, "--listen", listen, "--sessions",
                    String.valueOf(sessions), "--timeout-s", "120"));
            if (token != null) {
                cmd.add("--token");
                cmd.add(token);
            }
            process = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            String first = r.readLine();
            check(first != null && first.startsWith("LISTENING "), "probe said " + first);
            addr = first.substring("LISTENING ".length()).trim();
            Thread t = new Thread(() -> {
                try {
                    String line;
                    while ((line = r.readLine()) != null) {
                        lines.add(line);
                    }
                } catch (IOException ignored) {
                    // probe gone
                }
            }, "probe-reader");
            t.setDaemon(true);
            t.start();
        }

        Map<String, Object> session(int timeoutS) throws Exception {
            String line = lines.poll(timeoutS, TimeUnit.SECONDS);
            check(line != null, "no session from the probe within " + timeoutS + " s");
            return map(new Json(line).value());
        }

        @Override
        public void close() throws Exception {
            process.destroy();
            process.waitFor(5, TimeUnit.SECONDS);
            process.destroyForcibly();
        }
    }

    // ---------------------------------------------------------------- helpers

    static void check(boolean ok, String message) {
        if (!ok) {
            throw new AssertionError(message);
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        check(o instanceof Map, "expected an object, got " + o);
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object o) {
        check(o instanceof List, "expected an array, got " + o);
        return (List<Object>) o;
    }

    static long num(Object o) {
        check(o instanceof Number, "expected a number, got " + o);
        return ((Number) o).longValue();
    }

    static Map<String, Map<String, Object>> methodsByName(Map<String, Object> s) {
        Map<String, Map<String, Object>> out = new LinkedHashMap<>();
        for (Object m : list(s.get("methods"))) {
            Map<String, Object> d = map(m);
            out.put(String.valueOf(d.get("name")), d);
        }
        return out;
    }

    /** A small JSON reader (objects, arrays, strings, numbers, true/false/null) for the probe's lines. */
    static final class Json {
        final String s;
        int i;

        Json(String s) {
            this.s = s;
        }

        Object value() {
            ws();
            char c = s.charAt(i);
            switch (c) {
                case '{': {
                    i++;
                    Map<String, Object> m = new LinkedHashMap<>();
                    ws();
                    if (s.charAt(i) == '}') {
                        i++;
                        return m;
                    }
                    while (true) {
                        ws();
                        String k = string();
                        ws();
                        expect(':');
                        m.put(k, value());
                        ws();
                        if (s.charAt(i) == ',') {
                            i++;
                        } else {
                            expect('}');
                            return m;
                        }
                    }
                }
                case '[': {
                    i++;
                    List<Object> l = new ArrayList<>();
                    ws();
                    if (s.charAt(i) == ']') {
                        i++;
                        return l;
                    }
                    while (true) {
                        l.add(value());
                        ws();
                        if (s.charAt(i) == ',') {
                            i++;
                        } else {
                            expect(']');
                            return l;
                        }
                    }
                }
                case '"':
                    return string();
                case 't':
                    i += 4;
                    return Boolean.TRUE;
                case 'f':
                    i += 5;
                    return Boolean.FALSE;
                case 'n':
                    i += 4;
                    return null;
                default: {
                    int start = i;
                    while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                        i++;
                    }
                    String n = s.substring(start, i);
                    if (n.contains(".") || n.contains("e") || n.contains("E")) {
                        return Double.parseDouble(n);
                    }
                    return Long.parseLong(n);
                }
            }
        }

        String string() {
            expect('"');
            StringBuilder b = new StringBuilder();
            while (true) {
                char c = s.charAt(i++);
                if (c == '"') {
                    return b.toString();
                }
                if (c == '\\') {
                    char e = s.charAt(i++);
                    switch (e) {
                        case 'n': b.append('\n'); break;
                        case 't': b.append('\t'); break;
                        case 'r': b.append('\r'); break;
                        case 'b': b.append('\b'); break;
                        case 'f': b.append('\f'); break;
                        case 'u': b.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; break;
                        default: b.append(e);
                    }
                } else {
                    b.append(c);
                }
            }
        }

        void ws() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }

        void expect(char c) {
            check(s.charAt(i) == c, "JSON: expected '" + c + "' at " + i);
            i++;
        }
    }
}
