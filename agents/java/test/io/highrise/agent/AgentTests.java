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
 * (examples/java-shapes is found next to the golden files' agent-protocol directory).
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
        tests.put("class_relations_wait_for_their_classes_definitions", AgentTests::relationsWaitForDefinitions);
        tests.put("workload_lossless_exact_counts_and_definitions", AgentTests::workloadExact);
        tests.put("workload_default_mode_balanced_and_filtered", AgentTests::workloadDefault);
        tests.put("small_buffers_drop_and_resync_keep_stacks_right", AgentTests::dropsAndResync);
        tests.put("a_quiet_thread_s_loss_is_settled_by_the_sender", AgentTests::quietLoss);
        tests.put("no_viewer_program_runs_normally", AgentTests::noViewer);
        tests.put("token_for_a_viewer_listening_beyond_loopback", AgentTests::token);
        tests.put("named_module_classes_are_profiled", AgentTests::namedModule);
        tests.put("attach_to_running_jvm", AgentTests::attach);
        tests.put("attached_jvm_survives_viewer_going_away_and_reattaches", AgentTests::viewerGoesAway);
        tests.put("attach_is_sampled_by_default_and_detach_restores", AgentTests::attachSampledThenDetach);
        tests.put("java_21_and_25_class_files_are_instrumented", AgentTests::newerClassFiles);
        tests.put("a_class_that_cannot_be_instrumented_is_named", AgentTests::classNotInstrumented);
        tests.put("parked_virtual_threads_are_threads_of_the_city", AgentTests::virtualThreads);
        tests.put("a_leak_of_virtual_threads_raises_the_stuck_alert", AgentTests::virtualThreadLeak);
        tests.put("short_lived_virtual_threads_are_folded", AgentTests::virtualThreadChurn);
        tests.put("pre_session_rule", AgentTests::preSessionRule);
        tests.put("attach_shows_threads_stuck_since_before_it", AgentTests::attachStuckThreads);
        tests.put("attach_pre_session_frames_that_return_leave_stacks_balanced", () -> attachFramesReturn(false));
        tests.put("attach_pre_session_frames_with_drops_keep_their_base", () -> attachFramesReturn(true));
        tests.put("allocations_exact_per_stack_and_class", AgentTests::allocationsExact);
        tests.put("allocations_off_sends_no_memory_records", AgentTests::allocationsOff);
        tests.put("allocation_drops_lose_counts_never_misattribute", AgentTests::allocationDrops);
        tests.put("java_shapes_paper_example_through_highrise_report", AgentTests::javaShapes);
        tests.put("java_parser_memory_prediction_through_highrise_predict", AgentTests::javaPredict);
        tests.put("phase_marks_through_highrise_classes", AgentTests::phaseMarks);
        tests.put("sampled_mode_through_highrise_report", AgentTests::sampledMode);
        tests.put("auto_mode_drops_its_probes_when_they_cannot_keep_up", AgentTests::autoMode);
        tests.put("auto_mode_gives_passing_frames_classes_their_code_back", AgentTests::passingFrames);
        tests.put("classes_all_defines_the_classes_of_a_jar_that_never_load", AgentTests::classesAll);
        tests.put("auto_mode_leaves_trivial_methods_without_probes", AgentTests::trivialMethods);
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
        w.liveObjects(1, 85_000, 1_048_576, new int[] {0, 2}, new long[] {3, 0}, new long[] {72, 0}, 2);
        frames.put("live_objects", take(w));
        w.classRelations(new int[] {2, 2, 2}, new int[] {2, 1, 2},
                new int[] {Wire.RELATION_FIELD, Wire.RELATION_EXTENDS, Wire.RELATION_FIELD},
                new String[] {"next", "", "rotations"}, new boolean[] {false, false, true}, 3);
        frames.put("class_relations", take(w));
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
        // Aside from the session too: a sampled session's measure, and a notice.
        w.measure(Wire.MEASURE_SAMPLED, 10_000, 0);
        byte[] measure = take(w);
        check(Arrays.equals(Files.readAllBytes(golden.resolve("measure.bin")), measure),
                "measure.bin differs: got " + hex(measure));
        w.notice("not-instrumented", "2 classes not instrumented: big/Huge (method too large)");
        byte[] notice = take(w);
        check(Arrays.equals(Files.readAllBytes(golden.resolve("notice.bin")), notice),
                "notice.bin differs: got " + hex(notice));
        // The viewer's answers: the agent's Reject reader must read golden/reject.bin's reason.
        byte[] reject = Files.readAllBytes(golden.resolve("reject.bin"));
        check(ViewerConnection.describeReject(reject, 5, reject.length).equals("bad magic"), "reject reason");
        byte[] rejectToken = Files.readAllBytes(golden.resolve("reject_token.bin"));
        check(ViewerConnection.describeReject(rejectToken, 5, rejectToken.length).equals("unauthorized: no token"),
                "token reject reason");
        // Both answers carry the viewer's version (2, this agent's), Welcome also the session id 7.
        byte[] welcome = Files.readAllBytes(golden.resolve("welcome.bin"));
        long[] at = {4};
        check(ViewerConnection.readVarint(welcome, at, welcome.length) == 0, "welcome tag");
        check(ViewerConnection.readVarint(welcome, at, welcome.length) == 2, "welcome version");
        check(ViewerConnection.readVarint(welcome, at, welcome.length) == 7 && at[0] == welcome.length, "welcome session");
        for (byte[] r : new byte[][] {reject, rejectToken}) {
            at[0] = 4;
            check(ViewerConnection.readVarint(r, at, r.length) == 1, "reject tag");
            check(ViewerConnection.readVarint(r, at, r.length) == 2, "reject version");
        }
        check(Wire.PROTOCOL_VERSION == 2, "protocol version");
        // Every top-level golden file is one of the above (golden/v1/ holds the old session).
        List<String> covered = new ArrayList<>(frames.keySet());
        covered.addAll(Arrays.asList("session", "hello_token", "measure", "notice", "welcome", "reject", "reject_token"));
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

    /**
     * A relation added after the class definitions were sent (its class reserved since) waits
     * for the next definitions instead of reaching the viewer ahead of its class.
     */
    static void relationsWaitForDefinitions() {
        int start = Relations.count();
        Relations.add(3, 5, 0, "holder", false);
        Relations.add(4, 9, 0, "late", true);
        Relations.add(2, 6, 0, "after", false);
        Wire wire = new Wire();
        int next = Relations.send(wire, start, 100, 9);
        check(next == start + 1, "sent up to the relation naming class 9: " + (next - start));
        int written = wire.length();
        check(written > 0, "the first relation was written");
        check(Relations.send(wire, next, 100, 9) == next && wire.length() == written,
                "nothing more while class 9 is undefined");
        check(Relations.send(wire, next, 100, 10) == start + 3, "all once class 9 is defined");
    }

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
        check(Options.parse("").alloc == Options.DEFAULT_ALLOC, "alloc default");
        check(Options.parse("alloc=off").alloc == false && Options.parse("alloc=on").alloc, "alloc=off|on");
        check(Options.parse("alloc").alloc && !Options.parse("alloc=false").alloc, "alloc alone, alloc=false");
        check(!Options.parse("").stats && Options.parse("stats").stats && !Options.parse("stats=false").stats,
                "stats default off, stats, stats=false");
        Options badAlloc = Options.parse("alloc=maybe");
        check(badAlloc.alloc == Options.DEFAULT_ALLOC && badAlloc.warnings.size() == 1, "alloc=maybe: " + badAlloc.warnings);
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
            String agent = "-javaagent:" + jar + "=mode=exact,include=" + APP + ",addr=";
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
            Run run = runJava(Arrays.asList("-javaagent:" + jar + "=mode=exact,addr=" + p.addr + ",include=" + APP
                    + ",program=workload,label=test-label,lossless,stats"), APP + ".Workload",
                    String.valueOf(threads), String.valueOf(rounds));
            check(run.exit == 0, "workload exit " + run.exit + "\n" + run.output);
            check(run.output.contains("WORKLOAD DONE 3"), "workload output:\n" + run.output);
            check(run.output.contains("UNCAUGHT crasher gave up"), "the crasher thread died uncaught");
            Map<String, Object> s = p.session(30);
            checkStatsLine(run.output, map(s.get("stats")));
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
            Run run = runJava(Arrays.asList("-javaagent:" + jar + "=mode=exact,addr=" + p.addr + ",include=" + APP
                    + ",exclude=" + APP + ".Outer"), APP + ".Workload", "2", "20");
            check(run.exit == 0 && run.output.contains("WORKLOAD DONE"), "workload:\n" + run.output);
            check(!run.output.contains("highrise-agent: sent"), "no stats line without the option:\n" + run.output);
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
            Run run = runJava(Arrays.asList("-javaagent:" + jar + "=mode=exact,addr=" + p.addr + ",include=" + APP
                    + ",buffer=64,stats"), APP + ".Workload", "4", "300");
            check(run.exit == 0 && run.output.contains("WORKLOAD DONE"), "workload:\n" + run.output);
            Map<String, Object> s = p.session(30);
            check("goodbye".equals(s.get("end")) && list(s.get("errors")).isEmpty(), "end/errors " + s.get("end") + s.get("errors"));
            Map<String, Object> stats = map(s.get("stats"));
            check(num(stats.get("agent_events_dropped")) > 0, "64-event buffers must drop: " + stats);
            checkStatsLine(run.output, stats);
            check(num(stats.get("agent_batches_dropped")) > 0, "gaps counted: " + stats);
            check(num(stats.get("resyncs")) > 0, "resyncs sent: " + stats);
            check(num(stats.get("skipped_records")) == 0, "no event named an undefined method: " + stats);
            allThreadsBalanced(s, false);
        }
    }

    /** A thread that lost events and went quiet for good (asleep in code that is not profiled):
     *  the sender reads its stack and sends the loss's Resync, so its stack ends empty instead of
     *  keeping the frames of its last recorded events (burst, tiny) on top to the end. */
    static void quietLoss() throws Exception {
        try (Probe p = new Probe(1)) {
            Run run = runJava(Arrays.asList("-javaagent:" + jar + "=mode=exact,addr=" + p.addr + ",include=" + APP
                    + ",exclude=" + APP + ".QuietSleeper,buffer=64,verbose"), APP + ".QuietLoss", "3000000", "1500");
            check(run.exit == 0 && run.output.contains("QUIET DONE"), "program:\n" + run.output);
            Map<String, Object> s = p.session(30);
            check("goodbye".equals(s.get("end")) && list(s.get("errors")).isEmpty(), "end/errors " + s.get("end") + s.get("errors"));
            check(num(map(s.get("stats")).get("agent_events_dropped")) > 0, "64-event buffers must drop: " + s.get("stats"));
            Map<String, Object> quiet = null;
            for (Object t : list(s.get("threads"))) {
                if ("quiet".equals(map(t).get("name"))) {
                    quiet = map(t);
                }
            }
            check(quiet != null, "a thread named quiet: " + s.get("threads"));
            check(num(quiet.get("resyncs")) >= 1, "the loss was resynced: " + quiet);
            check(list(quiet.get("open_frames")).isEmpty(), "the quiet thread's stack ends empty: " + quiet);
        }
    }

    /** The `stats` option's line (`highrise-agent: sent N events, dropped M`) says exactly what the
     *  session counted: its enter and exit events and the agent's dropped total. */
    static void checkStatsLine(String output, Map<String, Object> stats) {
        java.util.regex.Matcher m = java.util.regex.Pattern
                .compile("(?m)^highrise-agent: sent (\\d+) events, dropped (\\d+)$").matcher(output);
        check(m.find(), "no stats line:\n" + output);
        long sent = Long.parseLong(m.group(1));
        long dropped = Long.parseLong(m.group(2));
        check(!m.find(), "one stats line:\n" + output);
        check(sent > 0 && sent == num(stats.get("events")), "sent " + sent + " but the session counted " + stats);
        check(dropped == num(stats.get("agent_events_dropped")), "dropped " + dropped + " but the session got " + stats);
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
        Run run = runJava(Arrays.asList("-javaagent:" + jar + "=mode=exact,addr=127.0.0.1:" + port + ",include=" + APP),
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
            List<String> cmd = Arrays.asList(JAVA, "-javaagent:" + jar + "=mode=exact,addr=" + p.addr + ",include=org.demo",
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
            // A thread inside step's old code when the class is retransformed calls the new inner
            // once with no step counted: inner may lead by one per thread running steps (two).
            long innerLead = num(calls.get(APP + ".Work.inner")) - num(calls.get(APP + ".Work.step"));
            check(!lossFree || (innerLead >= 0 && innerLead <= 2),
                    "step and inner called equally often (inner one ahead per thread at most): " + calls);
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
                check(run.output.contains("the viewer ended the session: the agent took itself out; original code back in"),
                        "an attached agent whose viewer ends the session takes itself out:\n" + run.output);
                Map<String, Object> s = p2.session(30);
                check("attach-again".equals(s.get("program")) && "goodbye".equals(s.get("end"))
                        && list(s.get("errors")).isEmpty(), "second session " + s.get("program") + " " + s.get("end") + " " + s.get("errors"));
                check(num(map(s.get("calls")).get(APP + ".Work.step")) > 0, "steps in the second session");
                check(num(map(s.get("stats")).get("skipped_records")) == 0, "every id defined again");
                allThreadsBalanced(s, num(map(s.get("stats")).get("agent_events_dropped")) == 0);
            }
        }
    }

    /**
     * `highrise attach` without --mode samples: no class is rewritten, yet the loaded classes'
     * methods are defined (read from their class files) and the threads are described by samples
     * (Resyncs), with no event. `highrise detach` ends the session with its Goodbye. An exact
     * attach afterwards records calls again (the probes come back on), and its detach gives every
     * class its original code back; the program's results never change. Needs --highrise.
     */
    static void attachSampledThenDetach() throws Exception {
        if (highrise == null) {
            System.out.println("     (skipped: no highrise binary given)");
            return;
        }
        Path dir = Files.createTempDirectory("highrise-attach-sampled");
        try (Probe p = new Probe(2); Target target = new Target(dir.resolve("stop"))) {
            String pid = String.valueOf(target.pid);
            Thread.sleep(300);
            String said = runTool(highrise, "attach", pid, "--addr", p.addr, "--include", APP, "--program",
                    "sampled-attach", "--agent-jar", jar);
            check(said.contains("sampled by the JVM's own sampler"), said);
            Thread.sleep(2500); // samples go out 1.5 s after they are taken
            runTool(highrise, "detach", pid, "--agent-jar", jar);
            Map<String, Object> s = p.session(30);
            check("sampled-attach".equals(s.get("program")) && "goodbye".equals(s.get("end"))
                    && list(s.get("errors")).isEmpty(), "sampled session " + s.get("end") + " " + s.get("errors"));
            Map<String, Object> stats = map(s.get("stats"));
            check(num(stats.get("events")) == 0 && num(stats.get("resyncs")) > 0, "samples, no events: " + stats);
            check(methodsByName(s).containsKey(APP + ".Work.step"), "loaded classes defined: " + methodsByName(s).keySet());

            runTool(highrise, "attach", pid, "--addr", p.addr, "--include", APP, "--program", "exact-after-detach",
                    "--agent-jar", jar, "--mode", "exact");
            Thread.sleep(1500);
            runTool(highrise, "detach", pid, "--agent-jar", jar);
            Map<String, Object> exact = p.session(30);
            check("exact-after-detach".equals(exact.get("program")) && "goodbye".equals(exact.get("end")),
                    "exact session " + exact.get("program") + " " + exact.get("end"));
            check(num(map(exact.get("calls")).getOrDefault(APP + ".Work.step", 0)) > 0,
                    "probes back after a detach: " + exact.get("calls"));
            Files.createFile(dir.resolve("stop"));
            Run run = target.waitFor();
            check(run.exit == 0 && run.output.contains("checksum-ok"), "target:\n" + run.output);
            check(run.output.contains("highrise-agent: detached from") && run.output.contains("original code back in"),
                    "the agent said it detached and restored the classes:\n" + run.output);
        }
    }

    /** {@code code} as PKG/Main.java in a new temporary directory; returns the file. */
    static Path mainSource(String pkg, String code) throws IOException {
        Path src = Files.createTempDirectory("highrise-" + pkg).resolve("src").resolve(pkg);
        Files.createDirectories(src);
        return Files.writeString(src.resolve("Main.java"), code);
    }

    /** Compiles {@code source} with that JDK's javac (for {@code release}, else its own). */
    static Path compile(Path jdk, Path source, String release) throws Exception {
        Path out = source.getParent().getParent().resolveSibling("out" + (release == null ? "" : release));
        List<String> javac = new ArrayList<>(Arrays.asList(jdk.resolve("bin/javac").toString(), "-d", out.toString()));
        if (release != null) {
            javac.addAll(Arrays.asList("--release", release));
        }
        javac.add(source.toString());
        runTool(javac.toArray(new String[0]));
        return out;
    }

    /** The newest JDK under /usr/lib/jvm whose release file says 21 or later, else null. */
    static Path newerJdk() throws IOException {
        Path best = null;
        int bestVersion = 20;
        if (!Files.isDirectory(Paths.get("/usr/lib/jvm"))) {
            return null;
        }
        try (java.util.stream.Stream<Path> homes = Files.list(Paths.get("/usr/lib/jvm"))) {
            for (Path home : (Iterable<Path>) homes::iterator) {
                Path release = home.resolve("release");
                if (!Files.isRegularFile(release) || !Files.isExecutable(home.resolve("bin/javac"))) {
                    continue;
                }
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("JAVA_VERSION=\"(\\d+)")
                        .matcher(Files.readString(release));
                if (m.find() && Integer.parseInt(m.group(1)) > bestVersion) {
                    bestVersion = Integer.parseInt(m.group(1));
                    best = home;
                }
            }
        }
        return best;
    }

    /**
     * A small service (8 pool threads, each request sleeps in fetch, then hashes) compiled for
     * Java 21 and for the newest JDK here, run on that JDK in exact and auto modes: every call is
     * recorded, fetch with its 8 threads. (ASM 9.4 refused these class files: the city was empty
     * and nothing said why.) Skipped without a JDK 21 or later under /usr/lib/jvm.
     */
    static void newerClassFiles() throws Exception {
        Path jdk = newerJdk();
        if (jdk == null) {
            System.out.println("     (skipped: no JDK 21 or later under /usr/lib/jvm)");
            return;
        }
        Path main = mainSource("svc", "package svc;\n"
                + "public class Main {\n"
                + "  static byte[] fetch(int i) throws Exception { Thread.sleep(20); return (\"u\" + i).getBytes(); }\n"
                + "  static int hash(byte[] b) { int h = 0; for (byte x : b) h = h * 31 + x; return h; }\n"
                + "  static void handle(int i) { try { hash(fetch(i)); } catch (Exception e) { throw new RuntimeException(e); } }\n"
                + "  public static void main(String[] a) throws Exception {\n"
                + "    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);\n"
                + "    for (int i = 0; i < 400; i++) { final int n = i; pool.submit(() -> handle(n)); }\n"
                + "    pool.shutdown(); pool.awaitTermination(30, java.util.concurrent.TimeUnit.SECONDS);\n"
                + "    System.out.println(\"SERVED 400\"); } }\n");
        String newest = jdk.getFileName().toString();
        for (String release : new String[] {"21", null}) {
            Path out = compile(jdk, main, release);
            for (String mode : new String[] {"exact", "auto"}) {
                try (Probe p = new Probe(1)) {
                    List<String> cmd = Arrays.asList(jdk.resolve("bin/java").toString(), "-javaagent:" + jar + "=mode="
                            + mode + ",addr=" + p.addr + ",include=svc,stats", "-cp", out.toString(), "svc.Main");
                    Process pr = new ProcessBuilder(cmd).redirectErrorStream(true).start();
                    String output = new String(pr.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    check(pr.waitFor(60, TimeUnit.SECONDS) && output.contains("SERVED 400"), output);
                    Map<String, Object> s = p.session(30);
                    String what = (release == null ? newest : "--release " + release) + ", mode=" + mode;
                    check("goodbye".equals(s.get("end")) && list(s.get("errors")).isEmpty(), what + ": " + s.get("end"));
                    Map<String, Object> calls = map(s.get("calls"));
                    check(num(calls.getOrDefault("svc.Main.fetch", 0)) == 400, what + ": fetch calls " + calls);
                    long fetchThreads = 0;
                    for (Object t : list(s.get("threads"))) {
                        if (map(map(t).get("calls")).containsKey("svc.Main.fetch")) {
                            fetchThreads++;
                        }
                    }
                    check(fetchThreads == 8, what + ": fetch on " + fetchThreads + " threads");
                    check(!output.contains("not instrumented"), what + ": " + output);
                }
            }
        }
        System.out.println("     (JDK " + newest + ")");
    }

    /**
     * 5,000 virtual threads parked in one method (exact mode, the newest JDK here): each is a
     * thread of the session and calls park once (serve shows park at 100 %, 5,000 threads), and
     * the heap stays small (a virtual thread's buffer is 1,024 events: with the default 16,384
     * this program used 1.1 GB). Skipped without a JDK 21 or later under /usr/lib/jvm.
     */
    static void virtualThreads() throws Exception {
        Path jdk = newerJdk();
        if (jdk == null) {
            System.out.println("     (skipped: no JDK 21 or later under /usr/lib/jvm)");
            return;
        }
        Path main = mainSource("vt", "package vt;\n"
                + "public class Main {\n"
                + "  static final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);\n"
                + "  static void park() throws InterruptedException { release.await(); }\n"
                + "  static void handle() { try { park(); } catch (InterruptedException e) { } }\n"
                + "  public static void main(String[] a) throws Exception {\n"
                + "    Thread[] ts = new Thread[5000];\n"
                + "    for (int i = 0; i < ts.length; i++) ts[i] = Thread.ofVirtual().start(Main::handle);\n"
                + "    Thread.sleep(1500); System.gc(); Runtime rt = Runtime.getRuntime();\n"
                + "    System.out.println(\"HEAP MB \" + (rt.totalMemory() - rt.freeMemory()) / 1000000);\n"
                + "    release.countDown(); for (Thread t : ts) t.join(); System.out.println(\"VT DONE\"); } }\n");
        VtRun run = runVirtualThreads(jdk, main, "vt", 400);
        check(run.output.contains("VT DONE"), run.output);
        check(num(map(run.session.get("calls")).getOrDefault("vt.Main.park", 0)) == 5000, "park calls " + run.session.get("calls"));
        check(run.threads == 5001, "threads " + run.threads);
        System.out.println("     (heap " + run.heapMb + " MB with 5,000 virtual threads parked)");
    }

    /** A program on the newest JDK and what its exact session said (see runVirtualThreads). */
    static final class VtRun {
        String output;
        Map<String, Object> session;
        int heapMb;
        int threads;
    }

    /**
     * Compiles {@code main} (package {@code pkg}) for 21, runs it on {@code jdk} under the agent
     * (exact, include=pkg) against a probe, and checks it ends with a Goodbye, no error, and a
     * heap it prints as "HEAP MB n" under {@code maxHeapMb}.
     */
    static VtRun runVirtualThreads(Path jdk, Path main, String pkg, int maxHeapMb) throws Exception {
        Path out = compile(jdk, main, "21");
        try (Probe p = new Probe(1)) {
            List<String> cmd = Arrays.asList(jdk.resolve("bin/java").toString(), "-javaagent:" + jar
                    + "=mode=exact,addr=" + p.addr + ",include=" + pkg, "-cp", out.toString(), pkg + ".Main");
            Process pr = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            VtRun run = new VtRun();
            run.output = new String(pr.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            check(pr.waitFor(120, TimeUnit.SECONDS), run.output);
            java.util.regex.Matcher heap = java.util.regex.Pattern.compile("HEAP MB (\\d+)").matcher(run.output);
            check(heap.find() && (run.heapMb = Integer.parseInt(heap.group(1))) < maxHeapMb, "heap: " + run.output);
            run.session = p.session(60);
            check("goodbye".equals(run.session.get("end")) && list(run.session.get("errors")).isEmpty(),
                    "end " + run.session.get("end"));
            run.threads = list(run.session.get("threads")).size();
            return run;
        }
    }

    /**
     * 30,000 short-lived virtual threads (a request each, 3,000 a second, ~20 at once): ended ones
     * are folded into the next ones, so the session has a few dozen threads, not 30,000, every
     * call is counted, and the heap stays small.
     */
    static void virtualThreadChurn() throws Exception {
        Path jdk = newerJdk();
        if (jdk == null) {
            System.out.println("     (skipped: no JDK 21 or later under /usr/lib/jvm)");
            return;
        }
        Path main = mainSource("vtchurn", "package vtchurn;\n"
                + "public class Main {\n"
                + "  static long work(int i) throws InterruptedException { Thread.sleep(5); long h = i; for (int k = 0; k < 500; k++) h = h * 31 + k; return h; }\n"
                + "  static void handle(int i) { try { work(i); } catch (InterruptedException e) { } }\n"
                + "  public static void main(String[] a) throws Exception {\n"
                + "    long maxHeap = 0; Runtime rt = Runtime.getRuntime();\n"
                + "    for (int s = 0; s < 10; s++) {\n"
                + "      for (int b = 0; b < 100; b++) { for (int k = 0; k < 30; k++) { final int n = s * 3000 + b * 30 + k; Thread.ofVirtual().start(() -> handle(n)); } Thread.sleep(10); }\n"
                + "      System.gc(); maxHeap = Math.max(maxHeap, rt.totalMemory() - rt.freeMemory()); }\n"
                + "    Thread.sleep(500); System.out.println(\"HEAP MB \" + maxHeap / 1000000); } }\n");
        VtRun run = runVirtualThreads(jdk, main, "vtchurn", 200);
        check(num(map(run.session.get("calls")).getOrDefault("vtchurn.Main.work", 0)) == 30000,
                "work calls " + run.session.get("calls"));
        check(run.threads >= 10 && run.threads <= 300, "threads " + run.threads + " for 30,000 virtual threads");
        System.out.println("     (30,000 virtual threads as " + run.threads + " threads of the session, heap "
                + run.heapMb + " MB)");
    }

    /**
     * The paper's thread leak with virtual threads: a service whose requests (virtual threads)
     * mostly finish, but a few each second wait for good in {@code leak}; `highrise report` raises
     * the stuck alert on it, with the parked threads rising, in the default mode.
     */
    static void virtualThreadLeak() throws Exception {
        Path jdk = newerJdk();
        if (jdk == null || highrise == null) {
            System.out.println("     (skipped: no JDK 21 or later under /usr/lib/jvm, or no --highrise)");
            return;
        }
        Path main = mainSource("vtleak", "package vtleak;\n"
                + "public class Main {\n"
                + "  static final Object never = new Object();\n"
                + "  static void leak() throws InterruptedException { synchronized (never) { never.wait(); } }\n"
                + "  static long work(int i) { long h = i; for (int k = 0; k < 2000; k++) h = h * 31 + k; return h; }\n"
                + "  static void handle(int i) { work(i); if (i % 25 == 0) { try { leak(); } catch (InterruptedException e) { } } }\n"
                + "  public static void main(String[] a) throws Exception {\n"
                + "    long end = System.nanoTime() + 13_000_000_000L; int i = 0;\n"
                + "    while (System.nanoTime() < end) { for (int k = 0; k < 10; k++) { final int n = i++; Thread.ofVirtual().start(() -> handle(n)); } Thread.sleep(20); }\n"
                + "    System.out.println(\"VT LEAK DONE \" + i); System.exit(0); } }\n");
        Path out = compile(jdk, main, "21");
        Recorded run = recordProgram(Files.createTempDirectory("highrise-vt-leak"), addr -> Arrays.asList(
                jdk.resolve("bin/java").toString(), "-javaagent:" + jar + "=addr=" + addr + ",include=vtleak",
                "-cp", out.toString(), "vtleak.Main"));
        check(run.output.contains("VT LEAK DONE"), run.output);
        Map<String, Object> report = map(new Json(runTool(highrise, "report", "--json", run.hrec.toString())).value());
        List<Object> alerts = report.get("alerts") == null ? List.of() : list(report.get("alerts"));
        Map<String, Object> stuck = alerts.stream().map(AgentTests::map)
                .filter(alert -> "stuck".equals(alert.get("kind"))).findFirst().orElse(null);
        check(stuck != null && "vtleak.Main.leak".equals(stuck.get("method")), "alerts " + alerts);
        check(num(stuck.get("parked_now")) > num(stuck.get("parked_then")), "parked " + stuck);
        System.out.println("     (" + stuck.get("text") + ")");
    }

    /**
     * A class the agent cannot rewrite (a method whose allocation hooks would take it past the
     * JVM's 64 KiB of code) runs as it was and is named on stderr with why; the session's end counts it.
     */
    static void classNotInstrumented() throws Exception {
        Path dir = Files.createTempDirectory("highrise-not-instrumented");
        Path src = dir.resolve("src/big");
        Files.createDirectories(src);
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < 7000; i++) {
            body.append("    new Object();\n"); // 8 bytes of code; each allocation hook adds more
        }
        Files.writeString(src.resolve("Huge.java"), "package big;\n"
                + "public class Huge {\n"
                + "  static long run(long x) {\n" + body + "    return x; }\n"
                + "  public static void main(String[] a) { System.out.println(\"HUGE \" + run(a.length)); } }\n");
        Path out = dir.resolve("out");
        compileTree(dir.resolve("src"), out, "a method near 64 KiB");
        try (Probe p = new Probe(1)) {
            List<String> cmd = Arrays.asList(JAVA, "-javaagent:" + jar + "=mode=exact,addr=" + p.addr
                    + ",include=big,stats", "-cp", out.toString(), "big.Huge");
            Process pr = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String output = new String(pr.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            check(pr.waitFor(60, TimeUnit.SECONDS) && output.contains("HUGE 0"), output);
            check(output.contains("big/Huge not instrumented (left unchanged)")
                    && output.contains("1 classes not instrumented"), "named and counted:\n" + output);
            // The session says it too (panel, serve, report): the agent's notice.
            Map<String, Object> s = p.session(30);
            List<Object> notices = list(s.get("notices"));
            check(notices.size() == 1 && "not-instrumented".equals(map(notices.get(0)).get("key"))
                    && "1 class not instrumented: big.Huge (left unchanged)".equals(map(notices.get(0)).get("text")),
                    "notices " + notices);
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
     * Attach, test (1): N threads stuck in a profiled method since before the attach.
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
                    "--program", program, "--agent-jar", jar, "--mode", "exact"));
            how = "highrise attach";
        } else {
            cmd.addAll(Arrays.asList("jcmd", String.valueOf(pid), "JVMTI.agent_load", new File(jar).getAbsolutePath(),
                    "\"mode=exact,addr=" + addr + ",include=" + APP + ",program=" + program
                    + (extra == null ? "" : "," + extra) + "\""));
            how = "jcmd JVMTI.agent_load";
        }
        Process pr = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(pr.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        check(pr.waitFor(60, TimeUnit.SECONDS) && pr.exitValue() == 0, how + " failed:\n" + out);
        return how;
    }

    // ---------------------------------------------------------------- allocation counting

    /** (stack, class) -> {count, bytes}, keyed "a > b > c | class". */
    static final class Allocations {
        final Map<String, long[]> counts = new java.util.TreeMap<>();

        void add(List<String> stack, String cls, long count, long bytesEach) {
            long[] c = counts.computeIfAbsent(String.join(" > ", stack) + " | " + cls, k -> new long[2]);
            c[0] += count;
            c[1] += count * bytesEach;
        }

        /** What the probe received for one thread. */
        static Allocations of(Map<String, Object> thread) {
            Allocations a = new Allocations();
            for (Object o : list(thread.get("allocations"))) {
                Map<String, Object> e = map(o);
                List<String> stack = new ArrayList<>();
                for (Object n : list(e.get("stack"))) {
                    stack.add(String.valueOf(n));
                }
                check(num(e.get("frees")) == 0 && num(e.get("freed_bytes")) == 0, "Java counts no frees: " + e);
                long[] c = a.counts.computeIfAbsent(String.join(" > ", stack) + " | " + e.get("class"), k -> new long[2]);
                c[0] += num(e.get("count"));
                c[1] += num(e.get("bytes"));
            }
            return a;
        }

        long[] total() {
            long[] t = new long[2];
            for (long[] c : counts.values()) {
                t[0] += c[0];
                t[1] += c[1];
            }
            return t;
        }

        String diff(Allocations expected) {
            StringBuilder b = new StringBuilder();
            java.util.Set<String> keys = new java.util.TreeSet<>(counts.keySet());
            keys.addAll(expected.counts.keySet());
            for (String k : keys) {
                long[] got = counts.getOrDefault(k, new long[2]);
                long[] want = expected.counts.getOrDefault(k, new long[2]);
                if (!Arrays.equals(got, want)) {
                    b.append("\n  ").append(k).append(": got ").append(Arrays.toString(got)).append(" expected ")
                            .append(Arrays.toString(want));
                }
            }
            return b.toString();
        }
    }

    /**
     * getObjectSize of real instances, in a JVM of its own with no highrise agent: a
     * manifest-only agent jar names {@code io.highrise.testapp.SizeOf} as its Premain-Class.
     */
    static Map<String, Long> sizesOf(String classpath, String... specs) throws Exception {
        Path dir = Files.createTempDirectory("highrise-sizeof");
        Path agentJar = dir.resolve("sizeof.jar");
        java.util.jar.Manifest manifest = new java.util.jar.Manifest();
        manifest.getMainAttributes().put(java.util.jar.Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().putValue("Premain-Class", APP + ".SizeOf");
        try (java.util.jar.JarOutputStream out = new java.util.jar.JarOutputStream(Files.newOutputStream(agentJar), manifest)) {
            // the manifest is all it needs: the class comes from the class path
        }
        List<String> cmd = new ArrayList<>(Arrays.asList(JAVA, "-javaagent:" + agentJar, "-cp", classpath, APP + ".SizeOf"));
        cmd.addAll(Arrays.asList(specs));
        Process pr = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(pr.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        check(pr.waitFor(60, TimeUnit.SECONDS) && pr.exitValue() == 0, "SizeOf:\n" + out);
        Map<String, Long> sizes = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            String[] f = line.trim().split(" ");
            if (f.length == 3 && f[0].equals("SIZE")) {
                sizes.put(f[1], Long.parseLong(f[2]));
            }
        }
        check(sizes.size() == specs.length, "sizes " + sizes + " from:\n" + out);
        return sizes;
    }

    static final String[] ALLOC_SIZE_SPECS = {
        APP + ".Point", APP + ".Fragile", APP + ".Sub", APP + ".Failure", "java.lang.Thread",
        "int[]:4", "int[]:2", "int[]:10", "java.lang.String[]:3", "long[]:0", "long[]:3", "boolean[]:5",
        "char[]:7", "double[]:1", "short[]:3", "byte[]:9", "float[]:2", APP + ".Point[][]:2", "long[][]:2",
        "byte[][][]:3", "byte[][]:0", "java.lang.Object[][][]:2", "java.lang.Object[][]:2",
        "java.lang.Object[]:2", "long[][]:1", "long[]:2", "char[]:3",
    };

    /** What one Allocs worker thread creates in {@code rounds} rounds, by stack and class (see Allocs). */
    static Allocations allocTruth(int rounds, Map<String, Long> size) {
        Allocations a = new Allocations();
        String p = APP + ".";
        List<String> w = Arrays.asList(p + "Allocs.lambda$main$0", p + "Allocs.work");
        java.util.function.Function<String[], List<String>> under = names -> {
            List<String> l = new ArrayList<>(w);
            l.addAll(Arrays.asList(names));
            return l;
        };
        long r = rounds;
        // work itself: the Fragile whose constructor throws, the Sub, and what Sub's constructor
        // makes before super() (its frame is not entered yet: the caller's): a point, a
        // long[1][2] (one long[][] and one long[2]), a char[3] and the varargs Object[2].
        a.add(w, p + "Fragile", r, size.get(p + "Fragile"));
        a.add(w, p + "Sub", r, size.get(p + "Sub"));
        a.add(w, p + "Point", r, size.get(p + "Point"));
        a.add(w, "long[][]", r, size.get("long[][]:1"));
        a.add(w, "long[]", r, size.get("long[]:2"));
        a.add(w, "char[]", r, size.get("char[]:3"));
        a.add(w, "java.lang.Object[]", r, size.get("java.lang.Object[]:2"));
        a.add(under.apply(new String[] {p + "Allocs.make"}), p + "Point", 3 * r, size.get(p + "Point"));
        // catcher: the callee's two points, int[4] and Failure stay with the callee that threw;
        // the point made in the catch block is catcher's.
        List<String> thrower = under.apply(new String[] {p + "Allocs.catcher", p + "Allocs.allocThenThrow"});
        a.add(thrower, p + "Point", 2 * r, size.get(p + "Point"));
        a.add(thrower, "int[]", r, size.get("int[]:4"));
        a.add(thrower, p + "Failure", r, size.get(p + "Failure"));
        a.add(under.apply(new String[] {p + "Allocs.catcher"}), p + "Point", r, size.get(p + "Point"));
        // The constructor that throws after making a point and the Failure.
        List<String> fragile = under.apply(new String[] {p + "Fragile.<init>"});
        a.add(fragile, p + "Point", r, size.get(p + "Point"));
        a.add(fragile, p + "Failure", r, size.get(p + "Failure"));
        // Sub's field initialiser (after super()).
        a.add(under.apply(new String[] {p + "Sub.<init>"}), "int[]", r, size.get("int[]:2"));
        // Recursion: one point per level, each level its own stack.
        List<String> rec = new ArrayList<>(w);
        for (int d = 0; d < io.highrise.testapp.Allocs.DEPTH; d++) {
            rec.add(p + "Allocs.recurse");
            a.add(rec, p + "Point", r, size.get(p + "Point"));
        }
        List<String> arr = under.apply(new String[] {p + "Allocs.arrays"});
        a.add(arr, "int[]", r, size.get("int[]:10"));
        a.add(arr, "java.lang.String[]", r, size.get("java.lang.String[]:3"));
        a.add(arr, "long[]", r, size.get("long[]:0"));
        a.add(arr, "boolean[]", r, size.get("boolean[]:5"));
        a.add(arr, "char[]", r, size.get("char[]:7"));
        a.add(arr, "double[]", r, size.get("double[]:1"));
        a.add(arr, "short[]", r, size.get("short[]:3"));
        a.add(arr, "byte[]", r, size.get("byte[]:9"));
        a.add(arr, "float[]", r, size.get("float[]:2"));
        a.add(arr, p + "Point[][]", r, size.get(p + "Point[][]:2"));
        // new long[2][3]: the outer array and two long[3].
        a.add(arr, "long[][]", r, size.get("long[][]:2"));
        a.add(arr, "long[]", 2 * r, size.get("long[]:3"));
        // new byte[3][0][]: the outer array and three empty byte[][] (the third level is null).
        a.add(arr, "byte[][][]", r, size.get("byte[][][]:3"));
        a.add(arr, "byte[][]", 3 * r, size.get("byte[][]:0"));
        // new Object[2][2][2]: 1 + 2 + 4 arrays.
        a.add(arr, "java.lang.Object[][][]", r, size.get("java.lang.Object[][][]:2"));
        a.add(arr, "java.lang.Object[][]", 2 * r, size.get("java.lang.Object[][]:2"));
        a.add(arr, "java.lang.Object[]", 4 * r, size.get("java.lang.Object[]:2"));
        return a;
    }

    static Allocations mainTruth(int threads, Map<String, Long> size) {
        Allocations a = new Allocations();
        List<String> main = Arrays.asList(APP + ".Allocs.main");
        a.add(main, "java.lang.Thread[]", 1, size.get("java.lang.Thread[]:" + threads));
        a.add(main, "java.lang.Thread", threads, size.get("java.lang.Thread"));
        return a;
    }

    static Map<String, Long> allocSizes(int threads) throws Exception {
        List<String> specs = new ArrayList<>(Arrays.asList(ALLOC_SIZE_SPECS));
        specs.add("java.lang.Thread[]:" + threads);
        return sizesOf(classes, specs.toArray(new String[0]));
    }

    /**
     * alloc=on, lossless: every thread's allocations, by stack and class, are exactly what Allocs
     * creates (counts, and bytes = count x getObjectSize measured in a JVM of its own): across 4
     * threads, an exception thrown after allocating (counts stay with the frame that threw; the
     * catch block's with the catcher), a constructor that throws after its object was created, an
     * allocation before super(), recursion 50 deep, and every array instruction.
     */
    static void allocationsExact() throws Exception {
        int threads = 4;
        int rounds = 30;
        Map<String, Long> size = allocSizes(threads);
        try (Probe p = new Probe(1)) {
            Run run = runJava(Arrays.asList("-javaagent:" + jar + "=mode=exact,addr=" + p.addr + ",include=" + APP
                    + ",lossless,alloc=on"), APP + ".Allocs", String.valueOf(threads), String.valueOf(rounds));
            check(run.exit == 0 && run.output.contains("ALLOCS DONE"), "allocs:\n" + run.output);
            Map<String, Object> s = p.session(30);
            check("goodbye".equals(s.get("end")) && list(s.get("errors")).isEmpty(), "end/errors " + s.get("end") + s.get("errors"));
            Map<String, Object> stats = map(s.get("stats"));
            check(num(stats.get("agent_allocations_dropped")) == 0 && num(stats.get("agent_events_dropped")) == 0,
                    "lossless: nothing dropped " + stats);
            check(num(stats.get("skipped_records")) == 0, "no record named an undefined class or method " + stats);
            check(num(stats.get("memory_records")) > 0 && num(stats.get("class_definitions")) > 0, "memory records " + stats);
            allThreadsBalanced(s, true);
            Allocations worker = allocTruth(rounds, size);
            int workers = 0;
            long received = 0;
            for (Object t : list(s.get("threads"))) {
                Map<String, Object> th = map(t);
                String name = String.valueOf(th.get("name"));
                Allocations got = Allocations.of(th);
                received += got.total()[0];
                if (name.startsWith("alloc-")) {
                    workers++;
                    String diff = got.diff(worker);
                    check(diff.isEmpty(), name + " allocations differ:" + diff);
                } else if (name.equals("main")) {
                    String diff = got.diff(mainTruth(threads, size));
                    check(diff.isEmpty(), "main allocations differ:" + diff);
                }
            }
            check(workers == threads, "worker threads " + workers);
            check(received == num(stats.get("allocations")), "probe's total " + stats.get("allocations") + " vs " + received);
            check(received == threads * worker.total()[0] + threads + 1, "total " + received);
            // Classes: arrays are kind Array, named as SPEC says.
            Map<String, String> kinds = new LinkedHashMap<>();
            for (Object c : list(s.get("classes"))) {
                Map<String, Object> d = map(c);
                kinds.put(String.valueOf(d.get("display")), String.valueOf(d.get("kind")));
                if (d.get("display").equals("java.lang.String[]")) {
                    check(d.get("package").equals("java.lang") && d.get("name").equals("String[]"), "String[] def " + d);
                }
                if (d.get("display").equals("byte[][][]")) {
                    check(d.get("package").equals("") && d.get("name").equals("byte[][][]"), "byte[][][] def " + d);
                }
            }
            check("Array".equals(kinds.get("long[][]")) && "Class".equals(kinds.get(APP + ".Point")), "kinds " + kinds);
            System.out.printf("     (%d threads x %d rounds: %d (stack, class) pairs per worker, %d objects in all, exact)%n",
                    threads, rounds, worker.counts.size(), received);
        }
    }

    /** alloc=off: the same program sends Events, no class and no memory record; calls unchanged. */
    static void allocationsOff() throws Exception {
        try (Probe p = new Probe(1)) {
            Run run = runJava(Arrays.asList("-javaagent:" + jar + "=mode=exact,addr=" + p.addr + ",include=" + APP
                    + ",lossless,alloc=off"), APP + ".Allocs", "2", "10");
            check(run.exit == 0 && run.output.contains("ALLOCS DONE"), "allocs:\n" + run.output);
            Map<String, Object> s = p.session(30);
            check("goodbye".equals(s.get("end")) && list(s.get("errors")).isEmpty(), "end/errors " + s.get("end") + s.get("errors"));
            Map<String, Object> stats = map(s.get("stats"));
            check(num(stats.get("memory_records")) == 0 && num(stats.get("allocations")) == 0
                    && num(stats.get("class_definitions")) == 0, "alloc=off sent memory: " + stats);
            check(list(s.get("classes")).isEmpty(), "classes " + s.get("classes"));
            for (Object t : list(s.get("threads"))) {
                check(list(map(t).get("allocations")).isEmpty(), "allocations " + map(t).get("allocations"));
            }
            allThreadsBalanced(s, true);
            check(num(map(s.get("calls")).get(APP + ".Allocs.make")) == 20, "calls " + s.get("calls"));
            check(num(map(s.get("calls")).get(APP + ".Allocs.recurse")) == 20L * io.highrise.testapp.Allocs.DEPTH,
                    "recursion calls " + s.get("calls"));
        }
    }

    /**
     * 128-slot buffers that overflow: counts are lost, never moved. Every (stack, class) received
     * is one the program has, with at most its true count and bytes; received plus the agent's
     * MemoryDropped totals is exactly what the program created.
     */
    static void allocationDrops() throws Exception {
        int threads = 4;
        int rounds = 150;
        Map<String, Long> size = allocSizes(threads);
        try (Probe p = new Probe(1)) {
            Run run = runJava(Arrays.asList("-javaagent:" + jar + "=mode=exact,addr=" + p.addr + ",include=" + APP
                    + ",buffer=128,alloc=on"), APP + ".Allocs", String.valueOf(threads), String.valueOf(rounds));
            check(run.exit == 0 && run.output.contains("ALLOCS DONE"), "allocs:\n" + run.output);
            Map<String, Object> s = p.session(30);
            check("goodbye".equals(s.get("end")) && list(s.get("errors")).isEmpty(), "end/errors " + s.get("end") + s.get("errors"));
            Map<String, Object> stats = map(s.get("stats"));
            long dropped = num(stats.get("agent_allocations_dropped"));
            long bytesDropped = num(stats.get("agent_allocation_bytes_dropped"));
            check(dropped > 0 && num(stats.get("agent_events_dropped")) > 0, "128-slot buffers must drop: " + stats);
            check(num(stats.get("skipped_records")) == 0, "no record named an undefined class or method " + stats);
            allThreadsBalanced(s, false);
            Allocations worker = allocTruth(rounds, size);
            Allocations main = mainTruth(threads, size);
            long[] received = new long[2];
            for (Object t : list(s.get("threads"))) {
                Map<String, Object> th = map(t);
                String name = String.valueOf(th.get("name"));
                Allocations truth = name.startsWith("alloc-") ? worker : main;
                for (Map.Entry<String, long[]> e : Allocations.of(th).counts.entrySet()) {
                    long[] want = truth.counts.get(e.getKey());
                    check(want != null, name + ": " + e.getKey() + " received but never made there");
                    check(e.getValue()[0] <= want[0] && e.getValue()[1] <= want[1],
                            name + ": " + e.getKey() + " got " + Arrays.toString(e.getValue()) + ", made " + Arrays.toString(want));
                    received[0] += e.getValue()[0];
                    received[1] += e.getValue()[1];
                }
            }
            long[] made = {threads * worker.total()[0] + main.total()[0], threads * worker.total()[1] + main.total()[1]};
            check(received[0] + dropped == made[0], "objects: received " + received[0] + " + dropped " + dropped + " != made " + made[0]);
            check(received[1] + bytesDropped == made[1], "bytes: received " + received[1] + " + dropped " + bytesDropped + " != made " + made[1]);
            System.out.printf("     (received %d + dropped %d = %d objects; %d + %d = %d bytes)%n",
                    received[0], dropped, made[0], received[1], bytesDropped, made[1]);
        }
    }

    /**
     * The paper's running example (examples/java-shapes) through the real pipeline: `highrise
     * record` on a real socket, the program with the agent (alloc on by default), then `highrise
     * report --json`: objects per method and class, bytes, and the three branches of the
     * allocation-site tree (Fernandez Blanco et al. 2018, Figure 1). Needs --highrise.
     */
    /**
     * mode=sampled (JFR where the JVM has it): the session says it is sampled every 10 ms; no
     * event is sent; the spinning main thread's `hot` gets about three times `cool`'s share
     * (each within the report's own error), and the thread parked in `stuck`, which JFR never
     * samples, is there at full elevation, parked.
     */
    static void sampledMode() throws Exception {
        if (highrise == null) {
            System.out.println("     (skipped: no highrise binary given)");
            return;
        }
        Path dir = Files.createTempDirectory("highrise-java-sampled");
        Recorded run = recordProgram(dir, addr -> Arrays.asList(JAVA, "-javaagent:" + jar + "=mode=exact,addr=" + addr
                + ",include=" + APP + ".Sampled,mode=sampled,stats", "-cp", classes, APP + ".Sampled", "4"));
        check(run.output.contains("SAMPLED DONE"), run.output);
        check(run.output.contains("sent 0 events"), "no events in the sampled mode:\n" + run.output);
        Map<String, Object> report = map(new Json(runTool(highrise, "report", "--json", run.hrec.toString())).value());
        Map<String, Object> measure = map(report.get("measure"));
        check("sampled".equals(measure.get("mode")) && num(measure.get("sample_period_ms")) == 10
                && Boolean.FALSE.equals(measure.get("calls_counted")), "measure " + measure);
        check(num(report.get("events")) == 0 && list(report.get("errors")).isEmpty(), "events/errors " + report);
        Map<String, Map<String, Object>> methods = methodsByName(report);
        Map<String, Object> hot = methods.get(APP + ".Sampled.hot");
        Map<String, Object> cool = methods.get(APP + ".Sampled.cool");
        Map<String, Object> stuck = methods.get(APP + ".Sampled.stuck");
        check(hot != null && cool != null && stuck != null, "methods " + methods.keySet());
        double hotPct = ((Number) hot.get("mean_elevation_pct")).doubleValue();
        double coolPct = ((Number) cool.get("mean_elevation_pct")).doubleValue();
        check(hotPct > 30 && coolPct > 8 && hotPct / coolPct > 2 && hotPct / coolPct < 4.5,
                "hot " + hotPct + " % vs cool " + coolPct + " % (3:1 spun)");
        check(num(hot.get("calls")) == 0 && hot.get("max_elevation_error_pct") != null, "hot " + hot);
        check(((Number) stuck.get("max_elevation_pct")).doubleValue() > 99 && num(stuck.get("max_parked_threads")) == 1,
                "the parked thread counts in stuck: " + stuck);
        String text = runTool(highrise, "report", run.hrec.toString());
        check(text.contains("measured: sampled every 10 ms"), text);
    }

    /**
     * classes=all: a program in a jar runs one class of two; the session defines the methods of
     * the class that never loaded too (read from the jar in the background), and only with the
     * option. Needs --highrise.
     */
    static void classesAll() throws Exception {
        if (highrise == null) {
            System.out.println("     (skipped: no highrise binary given)");
            return;
        }
        Path dir = Files.createTempDirectory("highrise-java-classes-all");
        Path src = dir.resolve("src/jarapp");
        Files.createDirectories(src);
        Files.writeString(src.resolve("Main.java"), "package jarapp;\n"
                + "public class Main { public static void main(String[] a) throws Exception {\n"
                + "  System.out.println(Used.twice(21)); Thread.sleep(300); } }\n");
        Files.writeString(src.resolve("Used.java"),
                "package jarapp;\npublic class Used { static int twice(int x) { return 2 * x; } }\n");
        Files.writeString(src.resolve("Unused.java"), "package jarapp;\n"
                + "public class Unused { int neverCalled() { return 7; } static void alsoNot() {} }\n");
        Path out = dir.resolve("out");
        compileTree(dir.resolve("src"), out, "the jar program");
        Path jarFile = dir.resolve("app.jar");
        try (java.util.jar.JarOutputStream jarOut = new java.util.jar.JarOutputStream(Files.newOutputStream(jarFile))) {
            for (String name : new String[] {"Main", "Used", "Unused"}) {
                jarOut.putNextEntry(new java.util.jar.JarEntry("jarapp/" + name + ".class"));
                jarOut.write(Files.readAllBytes(out.resolve("jarapp/" + name + ".class")));
                jarOut.closeEntry();
            }
        }
        for (boolean all : new boolean[] {true, false}) {
            Path runDir = dir.resolve(all ? "all" : "loaded");
            Files.createDirectories(runDir);
            String option = all ? ",classes=all" : "";
            Recorded run = recordProgram(runDir, addr -> Arrays.asList(JAVA, "-javaagent:" + jar + "=addr=" + addr
                    + ",include=jarapp" + option, "-cp", jarFile.toString(), "jarapp.Main"));
            check(run.output.contains("42"), run.output);
            Map<String, Map<String, Object>> methods =
                    methodsByName(map(new Json(runTool(highrise, "report", "--json", run.hrec.toString())).value()));
            check(methods.containsKey("jarapp.Used.twice"), "the loaded class: " + methods.keySet());
            boolean unusedDefined = methods.containsKey("jarapp.Unused.neverCalled")
                    && methods.containsKey("jarapp.Unused.alsoNot");
            check(unusedDefined == all, (all ? "classes=all defines" : "by default no definition of")
                    + " the class that never loaded: " + methods.keySet());
        }
    }

    /**
     * The default mode (auto) on a program that makes far more events than can be sent: at the
     * first full ring every probe stops and the session goes on sampled. The agent says so; the
     * session is adaptive with every method sampled; no event was dropped and no alert raised; the
     * samples carry on (the busy loop is on top), and the session ends with its goodbye.
     */
    static void autoMode() throws Exception {
        if (highrise == null) {
            System.out.println("     (skipped: no highrise binary given)");
            return;
        }
        Path dir = Files.createTempDirectory("highrise-java-auto");
        Recorded run = recordProgram(dir, addr -> Arrays.asList(JAVA, "-javaagent:" + jar + "=addr=" + addr
                + ",include=" + APP + ".Busy,stats", "-cp", classes, APP + ".Busy", "4"));
        check(run.output.contains("BUSY DONE") && run.output.contains("mode=auto: the program made events faster"),
                run.output);
        Map<String, Object> report = map(new Json(runTool(highrise, "report", "--json", run.hrec.toString())).value());
        Map<String, Object> measure = map(report.get("measure"));
        check("adaptive".equals(measure.get("mode")) && num(measure.get("sampled_methods")) >= 2, "measure " + measure);
        // The switch loses nothing: events stop by design, not by overflow (no "dropping" alert).
        check(num(report.get("events_dropped")) == 0 && report.get("alerts") == null,
                "dropped " + report.get("events_dropped") + ", alerts " + report.get("alerts"));
        check("goodbye".equals(report.get("end")) && list(report.get("errors")).isEmpty(), "end/errors " + report);
        double busy = 0;
        for (Map.Entry<String, Map<String, Object>> method : methodsByName(report).entrySet()) {
            if (method.getKey().startsWith(APP + ".Busy.")) {
                busy += ((Number) method.getValue().get("mean_elevation_pct")).doubleValue();
            }
        }
        check(busy > 50, "the busy loop's methods on top after the switch: " + busy + " %");
    }

    /**
     * mode=auto's switch keeps the idle probes of every class with a frame running then; a moment
     * later, those whose frames were only passing through get their original code back. A frame
     * still in place (same methods below it) is left alone, whether a loop, a frame waiting for
     * one, or a hot helper caught in both readings (as Busy's step would be).
     */
    /**
     * mode=auto's rewrite leaves trivial methods as they were (defined, no probe); every other
     * method, and every method in exact mode, gets its probes. Read back from the rewritten class.
     */
    static void trivialMethods() throws Exception {
        String name = "io/highrise/testapp/Trivial";
        byte[] original;
        try (java.io.InputStream in = AgentTests.class.getClassLoader().getResourceAsStream(name + ".class")) {
            original = in.readAllBytes();
        }
        Map<String, Integer> lengths = TrivialMethods.codeBytes(new org.objectweb.asm.ClassReader(original));
        check(lengths.get("getter()I") == 5 && lengths.get("big(I)J") > TrivialMethods.TRIVIAL_CODE_BYTES
                && lengths.get("allocates()[I") == 4 && lengths.size() == 9, "code lengths " + lengths);
        List<String> all = Arrays.asList("getter", "calls", "allocates", "loop", "locked", "sleeps", "waits", "big");
        for (int pass = 0; pass < 3; pass++) {
            boolean alloc = pass == 1;
            boolean skipTrivial = pass < 2;
            byte[] out = Transformer.instrument(AgentTests.class.getClassLoader(), name, original, alloc, null,
                    skipTrivial);
            java.util.Set<String> probed = new java.util.TreeSet<>();
            new org.objectweb.asm.ClassReader(out).accept(new org.objectweb.asm.ClassVisitor(org.objectweb.asm.Opcodes.ASM9) {
                @Override
                public org.objectweb.asm.MethodVisitor visitMethod(int access, String method, String desc,
                        String signature, String[] exceptions) {
                    return new org.objectweb.asm.MethodVisitor(org.objectweb.asm.Opcodes.ASM9) {
                        @Override
                        public void visitMethodInsn(int op, String owner, String called, String d, boolean itf) {
                            if (owner.equals(ProbeMethodAdapter.RECORDER) && called.equals("enter")) {
                                probed.add(method);
                            }
                        }
                    };
                }
            }, 0);
            java.util.Set<String> expected = new java.util.TreeSet<>(skipTrivial
                    ? Arrays.asList("loop", "locked", "sleeps", "waits", "big") : all);
            if (alloc) {
                expected.add("allocates");
            }
            probed.retainAll(all);
            check(probed.equals(expected), "alloc " + alloc + ", trivial skipped " + skipTrivial + ": probed "
                    + probed + ", expected " + expected);
        }
    }

    static void passingFrames() {
        Thread main = new Thread(() -> { });
        Thread worker = new Thread(() -> { });
        // Innermost first, as Thread.getAllStackTraces gives them.
        java.util.function.Function<String[], StackTraceElement[]> stack = frames -> {
            StackTraceElement[] out = new StackTraceElement[frames.length];
            for (int i = 0; i < frames.length; i++) {
                String[] cm = frames[frames.length - 1 - i].split("#");
                out[i] = new StackTraceElement(cm[0], cm[1], "F.java", i + 1);
            }
            return out;
        };
        Map<Thread, StackTraceElement[]> then = new java.util.HashMap<>();
        Map<Thread, StackTraceElement[]> now = new java.util.HashMap<>();
        // Outermost first here: main's loop in Interp.loop, which called Slots.get, then Slots.put.
        then.put(main, stack.apply(new String[] {"Main#main", "Runtime#top", "Interp#loop", "Slots#get", "Map#find"}));
        now.put(main, stack.apply(new String[] {"Main#main", "Runtime#top", "Interp#loop", "Slots#put"}));
        // A busy loop whose helper both readings caught: nothing passing.
        then.put(worker, stack.apply(new String[] {"Busy#main", "Step#step"}));
        now.put(worker, stack.apply(new String[] {"Busy#main", "Step#step"}));
        check(Agent.passingClasses(then, now).equals(new java.util.HashSet<>(Arrays.asList("Slots", "Map"))),
                "passing: " + Agent.passingClasses(then, now));
        // A thread gone since: its frames all passed.
        now.remove(worker);
        check(Agent.passingClasses(then, now).containsAll(Arrays.asList("Busy", "Step", "Slots", "Map"))
                && !Agent.passingClasses(then, now).contains("Interp"), "a thread gone: " + Agent.passingClasses(then, now));
        // A class with a frame in place on one thread keeps its probes even if it passed on another.
        then.put(worker, stack.apply(new String[] {"Busy#main", "Slots#get"}));
        now.put(worker, stack.apply(new String[] {"Busy#main", "Slots#get"}));
        check(Agent.passingClasses(then, now).equals(new java.util.HashSet<>(Arrays.asList("Map"))),
                "in place somewhere: " + Agent.passingClasses(then, now));
    }

    static void javaShapes() throws Exception {
        if (highrise == null) {
            System.out.println("     (skipped: no highrise binary given)");
            return;
        }
        final int runs = 3;
        Path src = golden.toAbsolutePath().getParent().getParent().resolve("examples/java-shapes/src");
        check(Files.isDirectory(src), "no " + src);
        Path dir = Files.createTempDirectory("highrise-java-shapes");
        Path out = dir.resolve("classes");
        compileTree(src, out, "java-shapes");
        Map<String, Long> size = sizesOf(out + File.pathSeparator + classes,
                "shapes.Circle", "shapes.Box", "shapes.Canvas", "shapes.ShapeFactory", "java.util.ArrayList");
        Recorded run = recordProgram(Files.createDirectories(dir.resolve("recordings")),
                addr -> Arrays.asList(JAVA, "-javaagent:" + jar + "=mode=exact,addr=" + addr + ",include=shapes",
                        "-cp", out.toString(), "shapes.Canvas", "--repeat", String.valueOf(runs)));
        check(run.output.contains("shapes: " + 46 * runs + " shapes made in " + runs + " run(s)"), run.output);
        String json = runTool(highrise, "report", "--json", run.hrec.toString());
        String text = runTool(highrise, "report", run.hrec.toString());
        Map<String, Object> report = map(new Json(json).value());
        Map<String, Map<String, Object>> methods = methodsByName(report);
        // Per method: the classes it created itself, with counts and bytes.
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("shapes.ShapeFactory.create", "shapes.Circle " + 30 * runs + " " + 30 * runs * size.get("shapes.Circle")
                + ", shapes.Box " + 16 * runs + " " + 16 * runs * size.get("shapes.Box"));
        expected.put("shapes.Canvas.<init>", "java.util.ArrayList " + runs + " " + runs * size.get("java.util.ArrayList")
                + ", shapes.ShapeFactory " + runs + " " + runs * size.get("shapes.ShapeFactory"));
        expected.put("shapes.Canvas.main", "shapes.Canvas " + runs + " " + runs * size.get("shapes.Canvas"));
        for (String quiet : new String[] {"shapes.Canvas.add", "shapes.Canvas.createShape", "shapes.Canvas.createCircles",
            "shapes.Canvas.createBoxes", "shapes.Circle.<init>", "shapes.Box.<init>", "shapes.Shape.<init>",
            "shapes.ShapeFactory.<init>"}) {
            expected.put(quiet, "");
        }
        for (Map.Entry<String, String> e : expected.entrySet()) {
            Map<String, Object> m = methods.get(e.getKey());
            check(m != null, e.getKey() + " not in the report: " + methods.keySet());
            List<String> got = new ArrayList<>();
            if (m.get("allocations") != null) {
                for (Object c : list(m.get("allocations"))) {
                    Map<String, Object> a = map(c);
                    got.add(a.get("class") + " " + num(a.get("count")) + " " + num(a.get("bytes")));
                }
            }
            check(String.join(", ", got).equals(e.getValue()), e.getKey() + ": " + got + ", expected " + e.getValue());
        }
        check(num(map(methods.get("shapes.ShapeFactory.create").get("allocations_total")).get("count")) == 46 * runs, "create total");
        check(num(methods.get("shapes.Canvas.createShape").get("calls")) == 4 * runs, "createShape calls");
        Map<String, Object> memory = map(report.get("memory"));
        check(num(memory.get("allocations_dropped")) == 0, "dropped " + memory.get("allocations_dropped"));
        check(num(map(memory.get("outside")).get("count")) == 0, "outside " + memory.get("outside"));
        List<String> classList = new ArrayList<>();
        for (Object c : list(memory.get("classes"))) {
            Map<String, Object> a = map(c);
            check("class".equals(a.get("kind")), "kind " + a);
            classList.add(a.get("class") + " " + num(a.get("count")));
        }
        check(classList.equals(Arrays.asList("shapes.Circle " + 30 * runs, "shapes.Box " + 16 * runs,
                "java.util.ArrayList " + runs, "shapes.Canvas " + runs, "shapes.ShapeFactory " + runs)),
                "class list " + classList);
        // The allocation-site tree: main at the root, then its contexts in order of first call;
        // `create` in three branches (the paper's three D nodes).
        List<Object> tree = list(memory.get("allocation_tree"));
        check(tree.size() == 1, "one root: " + tree);
        Map<String, Object> root = map(tree.get(0));
        check("shapes.Canvas.main(String[])".equals(root.get("method")) && num(root.get("calls")) == 1, "root " + root.get("method"));
        check(num(root.get("count")) == (1 + 2 + 46) * runs, "root count " + root.get("count"));
        List<Object> branches = list(root.get("children"));
        List<String> names = new ArrayList<>();
        for (Object b : branches) {
            names.add(String.valueOf(map(b).get("method")));
        }
        check(names.equals(Arrays.asList("shapes.Canvas.Canvas()", "shapes.Canvas.createCircles(int)",
                "shapes.Canvas.createBoxes(int)", "shapes.Canvas.createShape(int, String)")), "branches " + names);
        Map<String, Object> init = map(branches.get(0));
        check(num(init.get("calls")) == runs && num(init.get("count")) == 2L * runs, "Canvas() " + init);
        for (Object c : list(init.get("classes"))) {
            check(Boolean.TRUE.equals(map(c).get("direct")), "Canvas() makes its classes itself: " + c);
        }
        check(Arrays.equals(createUnder(branches.get(1)), new long[] {15 * runs, 15 * runs}), "createCircles branch");
        check(Arrays.equals(createUnder(branches.get(2)), new long[] {8 * runs, 8 * runs}), "createBoxes branch");
        Map<String, Object> direct = map(branches.get(3));
        check(num(direct.get("calls")) == 2 * runs, "main -> createShape calls " + direct.get("calls"));
        check(Arrays.equals(createUnder(direct), new long[] {23 * runs, 23 * runs}), "createShape branch");
        Map<String, Object> first = map(list(direct.get("classes")).get(0));
        check("shapes.Circle".equals(first.get("class")) && num(first.get("count")) == 15 * runs
                && Boolean.FALSE.equals(first.get("direct")), "createShape's classes " + direct.get("classes"));
        check(text.contains("Allocation sites") && text.contains("shapes.ShapeFactory.create"), text);
        System.out.printf("     (%d runs: create Circle %d + Box %d in 3 branches, Canvas() ArrayList %d + ShapeFactory %d, main Canvas %d)%n",
                runs, 30 * runs, 16 * runs, runs, runs, runs);
    }

    /** Follows a branch's first children down to `create`: {calls, count} there. */
    static long[] createUnder(Object branch) {
        Map<String, Object> node = map(branch);
        while (!list(node.get("children")).isEmpty()) {
            node = map(list(node.get("children")).get(0));
        }
        check("shapes.ShapeFactory.create(String)".equals(node.get("method")), "leaf " + node.get("method"));
        return new long[] {num(node.get("calls")), num(node.get("count"))};
    }

    /**
     * Memory prediction (Murphy & Saenko 1998) on examples/java-parser, a toy compiler
     * front end with the phases Parser.parse and Resolver.resolve: recorded at 50, 100 and 200
     * procedures and at 400, through `highrise record` on a real socket (the agent lossless, so
     * nothing is dropped); `highrise classes --json` counts each phase's objects as the program
     * made them, and `highrise predict --json --vs-measured` predicts the large run from the
     * small ones by the paper's ratio method and the linear fit. Needs --highrise.
     */
    static void javaPredict() throws Exception {
        if (highrise == null) {
            System.out.println("     (skipped: no highrise binary given)");
            return;
        }
        Path src = golden.toAbsolutePath().getParent().getParent().resolve("examples/java-parser/src");
        check(Files.isDirectory(src), "no " + src);
        Path dir = Files.createTempDirectory("highrise-java-parser");
        Path out = dir.resolve("classes");
        compileTree(src, out, "java-parser");
        int[] sizes = {50, 100, 200, 400};
        Map<Integer, String> recordings = new LinkedHashMap<>();
        Map<Integer, Map<String, Long>> made = new LinkedHashMap<>();
        for (int procs : sizes) {
            Recorded run = recordProgram(Files.createDirectories(dir.resolve("runs-" + procs)),
                    addr -> Arrays.asList(JAVA, "-javaagent:" + jar + "=mode=exact,addr=" + addr + ",include=minilang,lossless",
                            "-cp", out.toString(), "minilang.Main", "--procs", String.valueOf(procs)));
            // "minilang: 50 procs, 150 calls, 50 scopes, 1277 references"
            String line = run.output.lines().filter(l -> l.startsWith("minilang: ")).findFirst().orElse("");
            String[] words = line.substring(line.indexOf(':') + 1).replace(",", " ").trim().split("\\s+");
            check(words.length == 8, "java-parser said " + run.output);
            Map<String, Long> counts = new LinkedHashMap<>();
            for (int i = 0; i + 1 < words.length; i += 2) {
                counts.put(words[i + 1], Long.parseLong(words[i]));
            }
            made.put(procs, counts);
            recordings.put(procs, run.hrec.toString());
        }

        // The class table: each phase's objects, as the program made them.
        Map<String, Object> table = map(new Json(runTool(highrise, "classes", "--phase", "Parser.parse",
                "--phase", "Resolver.resolve", "--json", recordings.get(100))).value());
        check(list(table.get("unknown_phases")).isEmpty(), "unknown phases " + table);
        check(num(table.get("events_dropped")) == 0 && num(table.get("allocations_dropped")) == 0, "lossless run dropped " + table);
        Map<String, Map<String, Long>> created = new LinkedHashMap<>();
        for (Object run : list(table.get("phases"))) {
            Map<String, Long> byClass = new LinkedHashMap<>();
            for (Object c : list(map(run).get("classes"))) {
                byClass.put((String) map(c).get("class"), num(map(c).get("created")));
            }
            check(created.put((String) map(run).get("phase"), byClass) == null, "one run per phase: " + table);
        }
        Map<String, Long> parse = created.get("minilang.Parser.parse");
        Map<String, Long> resolve = created.get("minilang.Resolver.resolve");
        check(parse != null && resolve != null, "phases " + created.keySet());
        Map<String, Long> hundred = made.get(100);
        check(parse.get("minilang.Tree.Call") == (long) hundred.get("calls"), "calls " + parse + " vs " + hundred);
        check(parse.get("minilang.Tree.Proc") == (long) hundred.get("procs"), "procs " + parse);
        check(parse.get("minilang.Tree.Program") == 1L, "program " + parse);
        check(resolve.get("minilang.Resolver.Scope") == hundred.get("scopes") + 2, "scopes " + resolve);
        check(resolve.get("minilang.Resolver.Reference") == (long) hundred.get("references"), "references " + resolve);
        check(!resolve.containsKey("minilang.Tree.Call"), "resolve makes no calls " + resolve);

        // The class diagram, from bytecode: supertypes, fields (generic element types: many),
        // and the objects made with each owner (Murphy & Saenko's section 5.2).
        Map<String, Map<String, Object>> relations = new LinkedHashMap<>();
        for (Object r : list(map(table.get("diagram")).get("relations"))) {
            Map<String, Object> relation = map(r);
            relations.put(relation.get("from") + " " + relation.get("kind") + " " + relation.get("field") + " "
                    + relation.get("to"), relation);
        }
        Map<String, Object> procs = relations.get("minilang.Tree.Program field procs minilang.Tree.Proc");
        check(procs != null && Boolean.TRUE.equals(procs.get("many")), "Program.procs " + relations.keySet());
        check(num(procs.get("owners")) == 1 && num(procs.get("parts")) == (long) hundred.get("procs"), "procs per program " + procs);
        check(relations.containsKey("minilang.Tree.Call implements  minilang.Tree.Node"), "Call implements Node " + relations.keySet());
        Map<String, Object> symbols = relations.get("minilang.Resolver$Scope field symbols minilang.Resolver$Symbol".replace('$', '.'));
        check(symbols != null && Boolean.TRUE.equals(symbols.get("many")), "Map<String, Symbol> holds many symbols " + relations.keySet());
        Map<String, Object> body = relations.get("minilang.Tree.Proc field body minilang.Tree.Node");
        check(body != null && num(body.get("owners")) == (long) hundred.get("procs") && num(body.get("parts")) > 0,
                "a List<Node> counts its implementations " + body);
        Map<String, Object> name = relations.get("minilang.Tree.Assign field target minilang.Tree.Name");
        check(name != null && !Boolean.TRUE.equals(name.get("many")), "Assign.target " + name);

        // Predict the 400-procedure run from the three small ones.
        long calls = made.get(400).get("calls");
        for (String phase : new String[] {"Parser.parse", "Resolver.resolve"}) {
            Map<String, Object> result = map(new Json(runTool(highrise, "predict", "--basis", "Call=" + calls,
                    "--phase", phase, recordings.get(50), recordings.get(100), recordings.get(200),
                    "--vs-measured", recordings.get(400), "--json")).value());
            Map<String, Object> prediction = map(result.get("prediction"));
            check("minilang.Tree.Call".equals(prediction.get("basis")), "basis " + prediction.get("basis"));
            List<Object> sets = list(prediction.get("data_sets"));
            check(sets.size() == 3, "data sets " + sets);
            for (int i = 0; i < 3; i++) {
                check(num(map(sets.get(i)).get("basis_count")) == made.get(sizes[i]).get("calls"), "basis of " + sets.get(i));
            }
            check(list(prediction.get("lossy")).isEmpty(), "lossy " + prediction.get("lossy"));
            Map<String, Object> measured = map(result.get("measured"));
            check(num(measured.get("basis_count")) == calls, "measured basis " + measured.get("basis_count"));
            double ratio = ((Number) measured.get("average_error_pct")).doubleValue();
            double fit = ((Number) measured.get("fit_error_pct")).doubleValue();
            System.out.printf("     %s: ratio average %+.1f %%, fit %+.1f %%%n", phase, ratio, fit);
            check(Math.abs(ratio) < 10 && Math.abs(fit) < 5, phase + ": errors " + ratio + ", " + fit);
        }
    }

    /** A program with phase marks (compiled against build/highrise-api.jar at test time). */
    static final String PHASE_PROGRAM = String.join("\n",
            "package phasedemo;",
            "import io.highrise.Highrise;",
            "import java.util.ArrayList;",
            "import java.util.List;",
            "public final class Main {",
            "    static final class Item {}",
            "    static List<Item> build(int n) {",
            "        List<Item> items = new ArrayList<>();",
            "        for (int i = 0; i < n; i++) items.add(new Item());",
            "        return items;",
            "    }",
            "    public static void main(String[] args) throws Exception {",
            "        List<Item> items;",
            "        try (Highrise.Phase run = Highrise.phase(\"run\")) {",
            "            try (Highrise.Phase load = Highrise.phase(\"load\")) { items = build(100); }",
            "            try (Highrise.Phase load = Highrise.phase(\"load\")) { items.addAll(build(50)); }",
            "        }",
            "        Thread worker = new Thread(() -> {",
            "            try (Highrise.Phase load = Highrise.phase(\"load\")) { build(7); }",
            "        });",
            "        worker.start();",
            "        worker.join();",
            "        System.out.println(\"phases: \" + items.size() + \" items\");",
            "    }",
            "}",
            "");

    /**
     * Phase marks ({@code io.highrise.Highrise.phase}): a program compiled against the
     * API jar runs without the agent (the marks do nothing) and with it, through `highrise record`
     * on a real socket; `highrise classes --json` finds each mark as a phase run of
     * {@code highrise.phase.NAME} on its thread, nested marks inside the enclosing one, with the
     * objects made inside. Needs --highrise.
     */
    static void phaseMarks() throws Exception {
        if (highrise == null) {
            System.out.println("     (skipped: no highrise binary given)");
            return;
        }
        Path api = Paths.get(jar).toAbsolutePath().getParent().resolve("highrise-api.jar");
        check(Files.isRegularFile(api), "no " + api);
        Path dir = Files.createTempDirectory("highrise-phases");
        Path source = dir.resolve("src/phasedemo/Main.java");
        Files.createDirectories(source.getParent());
        Files.write(source, PHASE_PROGRAM.getBytes(StandardCharsets.UTF_8));
        Path out = dir.resolve("classes");
        compileTree(dir.resolve("src"), out, "the phase program", "-cp", api.toString());
        String classPath = out + File.pathSeparator + api;
        // Without the agent the marks do nothing.
        Process plain = new ProcessBuilder(JAVA, "-cp", classPath, "phasedemo.Main").redirectErrorStream(true).start();
        String plainOut = new String(plain.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        check(plain.waitFor(60, TimeUnit.SECONDS) && plain.exitValue() == 0 && plainOut.equals("phases: 150 items\n"),
                "without the agent:\n" + plainOut);
        Recorded recorded = recordProgram(Files.createDirectories(dir.resolve("runs")),
                addr -> Arrays.asList(JAVA, "-javaagent:" + jar + "=mode=exact,addr=" + addr + ",include=phasedemo",
                        "-cp", classPath, "phasedemo.Main"));
        check(recorded.output.contains("phases: 150 items"), recorded.output);
        Path hrec = recorded.hrec;
        Map<String, Object> table = map(new Json(runTool(highrise, "classes", "--json", "--phase", "phase.run",
                "--phase", "phase.load", hrec.toString())).value());
        List<String> runs = new ArrayList<>();
        List<Long> items = new ArrayList<>();
        List<Long> threads = new ArrayList<>();
        for (Object run : list(table.get("phases"))) {
            Map<String, Object> m = map(run);
            runs.add(m.get("phase") + " #" + num(m.get("index")));
            threads.add(num(m.get("thread_id")));
            long made = 0;
            for (Object c : list(m.get("classes"))) {
                if ("phasedemo.Main.Item".equals(map(c).get("class"))) {
                    made = num(map(c).get("created"));
                }
            }
            items.add(made);
        }
        check(runs.equals(Arrays.asList("highrise.phase.run #0", "highrise.phase.load #0", "highrise.phase.load #1",
                "highrise.phase.load #2")), "runs " + runs);
        check(items.equals(Arrays.asList(150L, 100L, 50L, 7L)), "items " + items);
        check(threads.get(0).equals(threads.get(2)) && !threads.get(3).equals(threads.get(0)), "threads " + threads);
        System.out.println("     (runs " + runs + ", items " + items + ")");

        // live=on: each mark's end carries the JVM's live objects (after a full GC), whichever
        // phase made them: the 100 kept, then 150; the worker's 7 are garbage by its end.
        Recorded live = recordProgram(Files.createDirectories(dir.resolve("runs-live")),
                addr -> Arrays.asList(JAVA, "-javaagent:" + jar + "=mode=exact,addr=" + addr + ",include=phasedemo,live=on",
                        "-cp", classPath, "phasedemo.Main"));
        check(live.output.contains("phases: 150 items"), live.output);
        Map<String, Object> liveTable = map(new Json(runTool(highrise, "classes", "--json", "--phase", "phase.run",
                "--phase", "phase.load", live.hrec.toString())).value());
        List<Long> liveItems = new ArrayList<>();
        for (Object run : list(liveTable.get("phases"))) {
            Map<String, Object> m = map(run);
            check(Boolean.TRUE.equals(m.get("live_snapshot")) && num(m.get("heap_live_bytes")) > 0, "no snapshot: " + m);
            for (Object c : list(m.get("classes"))) {
                Map<String, Object> item = map(c);
                if ("phasedemo.Main.Item".equals(item.get("class"))) {
                    long count = num(item.get("live_at_exit"));
                    liveItems.add(count);
                    check(Boolean.TRUE.equals(item.get("live_measured")), "not measured: " + item);
                    long created = num(item.get("created"));
                    if (created > 0) {
                        long size = num(item.get("created_bytes")) / created;
                        check(num(item.get("live_bytes_at_exit")) == count * size, "live bytes " + item);
                    }
                }
            }
        }
        check(liveItems.equals(Arrays.asList(150L, 100L, 150L, 150L)), "live items " + liveItems);
        System.out.println("     (live=on: items live at each end " + liveItems + ")");
    }

    /** Compiles every {@code .java} file under {@code src} into {@code out} (release 11), {@code options} first. */
    static void compileTree(Path src, Path out, String what, String... options) throws Exception {
        List<String> javacArgs = new ArrayList<>(Arrays.asList("--release", "11", "-d", out.toString()));
        javacArgs.addAll(Arrays.asList(options));
        try (java.util.stream.Stream<Path> files = Files.walk(src)) {
            files.filter(f -> f.toString().endsWith(".java")).forEach(f -> javacArgs.add(f.toString()));
        }
        javax.tools.JavaCompiler javac = javax.tools.ToolProvider.getSystemJavaCompiler();
        check(javac != null && javac.run(null, null, null, javacArgs.toArray(new String[0])) == 0, "compiling " + what);
    }

    /** A program's output and the recording {@link #recordProgram} made of it. */
    static final class Recorded {
        final String output;
        final Path hrec;

        Recorded(String output, Path hrec) {
            this.output = output;
            this.hrec = hrec;
        }
    }

    /**
     * Starts `highrise record` into {@code dir} (one session, a free port), runs the program
     * {@code command.apply(addr)} against it, checks both exit cleanly and returns the program's
     * output and the recording. Needs --highrise.
     */
    static Recorded recordProgram(Path dir, java.util.function.Function<String, List<String>> command) throws Exception {
        Process record = new ProcessBuilder(highrise, "record", "--out", dir.toString(),
                "--listen", "127.0.0.1:0", "--sessions", "1").redirectErrorStream(true).start();
        try {
            BufferedReader r = new BufferedReader(new InputStreamReader(record.getInputStream(), StandardCharsets.UTF_8));
            String first = r.readLine();
            check(first != null && first.startsWith("LISTENING "), "highrise record said " + first);
            List<String> cmd = command.apply(first.substring("LISTENING ".length()).trim());
            Process pr = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String output = new String(pr.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            check(pr.waitFor(60, TimeUnit.SECONDS) && pr.exitValue() == 0, String.join(" ", cmd) + ":\n" + output);
            StringBuilder rest = new StringBuilder();
            String line;
            while ((line = r.readLine()) != null) {
                rest.append(line).append('\n');
            }
            check(record.waitFor(30, TimeUnit.SECONDS) && record.exitValue() == 0, "highrise record:\n" + rest);
            Path hrec;
            try (java.util.stream.Stream<Path> files = Files.list(dir)) {
                hrec = files.filter(f -> f.toString().endsWith(".hrec")).findFirst().orElse(null);
            }
            check(hrec != null, "no recording in " + dir + ":\n" + rest);
            return new Recorded(output, hrec);
        } finally {
            record.destroyForcibly();
        }
    }

    static String runTool(String... cmd) throws Exception {
        Process pr = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(pr.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        check(pr.waitFor(60, TimeUnit.SECONDS) && pr.exitValue() == 0, String.join(" ", cmd) + " failed:\n" + out);
        return out;
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

    /** A session's (or a `highrise report --json`'s) methods by name, in their order. */
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
