package io.highrise.agent;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The sampled mode ({@code mode=sampled}): no probes; every thread's profiled stack is sampled
 * and each sample goes out as that thread's {@code Resync}, so the time to its next sample goes to
 * the method then on top (SPEC.md "Measure"). Two sources:
 * <ul>
 * <li>the JVM's own sampler, JFR's {@code jdk.ExecutionSample} and {@code jdk.NativeMethodSample}
 * streamed in-process every {@code sample} ms ({@code JfrSource}, JDK 14+): unbiased, cheap,
 * and the reference people already trust; it never samples a blocked thread;</li>
 * <li>this class's own reader of blocked, waiting and sleeping threads' stacks (one thread at a
 * time) every {@link #BLOCKED_PERIOD_NANOS}, so a thread parked for
 * good in a method (the paper's leak) still counts at 100 % for it. Without JFR, and until its
 * first sample, it reads every thread every {@code sample} ms (safepoint-biased; said at start
 * when JFR is missing).</li>
 * </ul>
 * JFR delivers its samples in flushes about a second apart, so samples wait here
 * {@link #HORIZON_NANOS} and go out in time order per thread; heartbeats stay behind that
 * frontier. The sender thread drains them ({@link #pump}).
 */
final class Sampling {
    /** What a source is: the JVM's sampler, started on the sampling it feeds. */
    interface Source {
        void start(Sampling sampling) throws Exception;

        void close();
    }

    /** How long samples wait for JFR's later-delivered ones before going out in order. */
    static final long HORIZON_NANOS = 1_500_000_000L;
    /**
     * The reader gives the loaded classes not read yet a tenth of its period: at most a tenth of
     * a core (a class a sample names is read at once).
     */
    static final long READ_CLASSES_SHARE = 10;
    /** How often blocked threads' stacks are read (a handshake with each). */
    static final long BLOCKED_PERIOD_NANOS = 50_000_000L;
    /**
     * A blocked thread found with no profiled frame (the JVM's own threads, a pool's idle
     * workers) is read again only this much later: it is no thread of the city until it runs
     * the program's code, which JFR sees, or blocks in it, which the next reading sees.
     */
    static final long FOREIGN_PERIOD_NANOS = 1_000_000_000L;
    /** Java thread id -> System.nanoTime() before which a foreign blocked thread is not read. */
    private final Map<Long, Long> foreignUntil = new java.util.concurrent.ConcurrentHashMap<>();

    /** One thread's profiled stack (outermost first) at {@code ticks}, or a census of live threads. */
    static final class Sample {
        final long javaThreadId;
        final String threadName;
        final long ticks;
        final long order;
        final int[] stack;
        /** Non-null: a census, the ids of every live thread at {@code ticks}. */
        final Set<Long> alive;

        Sample(long javaThreadId, String threadName, long ticks, long order, int[] stack, Set<Long> alive) {
            this.javaThreadId = javaThreadId;
            this.threadName = threadName;
            this.ticks = ticks;
            this.order = order;
            this.stack = stack;
            this.alive = alive;
        }
    }

    /** A thread as the wire knows it. */
    private static final class Track {
        final long wireId;
        long lastTicks;

        Track(long wireId) {
            this.wireId = wireId;
        }
    }

    final int periodMs;
    private final boolean verbose;
    private final ConcurrentLinkedQueue<Sample> incoming = new ConcurrentLinkedQueue<>();
    private final AtomicLong order = new AtomicLong();
    /** Sender thread only. */
    private final PriorityQueue<Sample> pending = new PriorityQueue<>((a, b) -> a.ticks != b.ticks
            ? Long.compare(a.ticks, b.ticks) : Long.compare(a.order, b.order));
    private final HashMap<Long, Track> tracks = new HashMap<>();
    private long frontierTicks;
    private volatile boolean stopped;
    private volatile Source jfr;
    /** Set at JFR's first sample: until then (JFR starting, its first flush) the reader reads
     *  running threads too, so a short program or the moment of mode=auto's switch has samples. */
    private volatile boolean jfrDelivered;
    /** Samples sent, and samples that came after a later one of their thread had gone out. */
    volatile long samplesSent;
    volatile long samplesLate;

    private Sampling(int periodMs, boolean verbose) {
        this.periodMs = periodMs;
        this.verbose = verbose;
    }

    /** Starts JFR's sampler (where the JVM has it) and the blocked threads' reader. */
    static Sampling start(Options options) {
        Sampling sampling = new Sampling(options.sampleMs, options.verbose);
        // The reader first: JFR takes a second or more to start (and to deliver), and until then
        // the reader reads running threads too.
        Thread reader = new Thread(sampling::readStacks, "highrise-agent-stacks");
        reader.setDaemon(true);
        reader.start();
        Thread starter = new Thread(() -> sampling.startJfr(options), "highrise-agent-jfr-start");
        starter.setDaemon(true);
        starter.start();
        return sampling;
    }

    private void startJfr(Options options) {
        try {
            Source source = (Source) Class.forName("io.highrise.agent.JfrSource")
                    .getDeclaredConstructor().newInstance();
            source.start(this);
            jfr = source;
            if (stopped) {
                source.close();
            }
            if (options.verbose) {
                Sender.log("sampled mode: the JVM's sampler (JFR) every " + options.sampleMs + " ms");
            }
        } catch (Throwable t) {
            if (!stopped) {
                Sender.log("sampled mode: the JVM's sampler (JFR) is not available (" + t + "); every"
                        + " thread's stack is read by the agent instead, at safepoints (biased toward them)");
            }
        }
    }

    /** The period at which running threads are sampled, microseconds. */
    long periodUs() {
        return periodMs * 1000L;
    }

    void stop() {
        stopped = true;
        Source source = jfr;
        if (source != null) {
            try {
                source.close();
            } catch (Throwable ignored) {
                // the JVM may be closing it already
            }
        }
    }

    /** From a source: {@code stack} (profiled method ids, outermost first) of a thread at {@code ticks}. */
    void offer(long javaThreadId, String threadName, long ticks, int[] stack) {
        incoming.add(new Sample(javaThreadId, threadName, ticks, order.getAndIncrement(), stack, null));
    }

    /** From JFR: as {@link #offer}, and the reader may leave running threads to JFR from now on. */
    void offerFromJfr(long javaThreadId, String threadName, long ticks, int[] stack) {
        jfrDelivered = true;
        offer(javaThreadId, threadName, ticks, stack);
    }

    /** The blocked threads' reader (every thread's, without JFR), and the census of live threads. */
    private void readStacks() {
        while (!stopped) {
            readOnce(false);
            long period = jfrDelivered ? BLOCKED_PERIOD_NANOS : periodMs * 1_000_000L;
            Methods.readSome(period / READ_CLASSES_SHARE);
            LockSupport.parkNanos(period);
        }
    }

    /**
     * One reading of the threads' stacks: blocked ones (running ones too without JFR, before its
     * first sample, or when {@code everyThread}: the session's last reading, since JFR's last
     * second never arrives), and the census.
     */
    void readOnce(boolean everyThread) {
        long now = System.nanoTime();
        try {
            boolean leaveRunning = jfr != null && jfrDelivered && !everyThread;
            // JFR samples the running threads: then only the others' stacks are read, one thread
            // at a time (a handshake with a thread that is blocked anyway), never stopping the
            // running ones at a global safepoint as Thread.getAllStackTraces does.
            Map<Thread, StackTraceElement[]> all = leaveRunning ? null : Thread.getAllStackTraces();
            Set<Long> alive = new HashSet<>();
            for (Thread t : leaveRunning ? java.util.Arrays.asList(liveThreads()) : all.keySet()) {
                if (t.getName().startsWith("highrise-agent")) {
                    continue;
                }
                alive.add(t.getId());
                if (leaveRunning && t.getState() == Thread.State.RUNNABLE) {
                    continue;
                }
                Long until = leaveRunning ? foreignUntil.get(t.getId()) : null;
                if (until != null && now < until) {
                    continue;
                }
                StackTraceElement[] trace = leaveRunning ? t.getStackTrace() : all.get(t);
                int[] stack = PreSession.resolve(trace);
                if (stack.length == 0) {
                    foreignUntil.put(t.getId(), now + FOREIGN_PERIOD_NANOS);
                } else {
                    foreignUntil.remove(t.getId());
                }
                offer(t.getId(), t.getName(), Sender.ticks(now), stack);
            }
            foreignUntil.keySet().retainAll(alive);
            incoming.add(new Sample(0, null, Sender.ticks(now), order.getAndIncrement(), null, alive));
        } catch (Throwable t) {
            if (verbose) {
                Sender.log("could not read the threads' stacks: " + t);
            }
        }
    }

    /** mode=auto's switch: a thread the exact events already described keeps its wire id. */
    void adopt(long javaThreadId, long wireId, long ticks) {
        Track track = new Track(wireId);
        track.lastTicks = ticks;
        tracks.put(javaThreadId, track);
        frontierTicks = Math.max(frontierTicks, ticks);
    }

    /** Every live thread, from the root thread group (no safepoint). */
    private static Thread[] liveThreads() {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] threads = new Thread[Math.max(16, root.activeCount() * 2)];
        int n;
        while ((n = root.enumerate(threads, true)) == threads.length) {
            threads = new Thread[threads.length * 2];
        }
        return java.util.Arrays.copyOf(threads, n);
    }

    /** Ticks up to which samples went out: heartbeats must not pass it. */
    long frontierTicks() {
        return frontierTicks;
    }

    /**
     * Sender thread: sends the samples older than the horizon (all of them when {@code all}), in
     * time order, as ThreadStart (a thread's first profiled frame), Resync and ThreadEnd (a thread
     * gone from the census). The definitions of every id they name were published before they were
     * queued, so {@code defineNew} (sending new definitions) runs first. True if anything went out.
     */
    boolean pump(Wire wire, Sender sender, Runnable defineNew, boolean all) {
        Sample s;
        while ((s = incoming.poll()) != null) {
            pending.add(s);
        }
        long nowTicks = Sender.ticks(System.nanoTime());
        long horizon = all ? Long.MAX_VALUE : nowTicks - HORIZON_NANOS;
        if (pending.isEmpty() || pending.peek().ticks > horizon) {
            // Nothing older than the horizon waits: "now" may go up to it (never past the clock:
            // at the end, with no horizon, a heartbeat must not jump to the end of time).
            frontierTicks = Math.max(frontierTicks, Math.min(horizon, nowTicks));
            return false;
        }
        defineNew.run();
        while (!pending.isEmpty() && pending.peek().ticks <= horizon) {
            s = pending.poll();
            frontierTicks = Math.max(frontierTicks, s.ticks);
            if (s.alive != null) {
                census(wire, s);
                continue;
            }
            Track track = tracks.get(s.javaThreadId);
            if (track == null) {
                if (s.stack.length == 0) {
                    continue; // no profiled frame yet: not one of the city's threads
                }
                track = new Track(sender.nextThreadId());
                tracks.put(s.javaThreadId, track);
                wire.threadStart(track.wireId, s.threadName == null ? "" : s.threadName, s.ticks);
            } else if (s.ticks < track.lastTicks) {
                samplesLate++;
                continue;
            }
            wire.resync(track.wireId, s.ticks, s.stack, s.stack.length);
            track.lastTicks = s.ticks;
            samplesSent++;
        }
        return true;
    }

    /** Threads not in the census ended: their stacks empty, their ends sent. */
    private void census(Wire wire, Sample census) {
        for (Iterator<Map.Entry<Long, Track>> it = tracks.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, Track> e = it.next();
            if (!census.alive.contains(e.getKey()) && e.getValue().lastTicks <= census.ticks) {
                Track track = e.getValue();
                wire.resync(track.wireId, census.ticks, new int[0], 0);
                wire.threadEnd(track.wireId, census.ticks);
                it.remove();
            }
        }
    }
}
