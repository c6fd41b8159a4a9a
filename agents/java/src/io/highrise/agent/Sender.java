package io.highrise.agent;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One session: the daemon thread that connects to the viewer, sends Hello, then loops: new
 * definitions, ThreadStart for new threads, each thread's ring as Events batches (Dropped + Resync
 * where events were lost), ThreadEnd for dead threads, a Heartbeat when idle, and finally Goodbye
 * with the graceful close SPEC asks for. With allocation counting on, rings are sent as Records
 * batches (enter, exit and memory records; classes defined before first use) and memory drop
 * totals as MemoryDropped; every {@link #FLUSH_ASK_NS} each thread is asked to write its pending
 * counts at its next allocation, so a long frame's allocations show while it runs. Any socket
 * error ends the session: the hooks turn into a no-op and the program runs on.
 *
 * <p>Here: the session's life (connect, loop, close), its threads coming and going, mode=auto's
 * switch to samples and the notices. The rings' reading onto the wire (losses, pre-session
 * frames) is {@link RingDrainer}'s, the definitions sent so far {@link SentDefinitions}', the
 * socket and the viewer's answer {@link ViewerConnection}'s.
 */
final class Sender implements Runnable {
    static final String AGENT = "highrise-agent-java 0.1.0";
    static final long CLOCK_ZERO_NANOS;
    static final long CLOCK_ZERO_UNIX_NS;

    static {
        Instant now = Instant.now();
        CLOCK_ZERO_NANOS = System.nanoTime();
        CLOCK_ZERO_UNIX_NS = now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /** The wire is written out once it holds this much (it is made twice as large). */
    static final int FLUSH_BYTES = 256 * 1024;
    static final long HEARTBEAT_NS = 250_000_000L;
    static final long IDLE_PARK_NS = 1_000_000L;
    /**
     * Sampled, the sender idles longer: samples wait {@link Sampling#HORIZON_NANOS} anyway, and a
     * millisecond's wake-ups cost a busy program's other core ~4 % (Rhino, 1,000 wake-ups a second).
     */
    static final long SAMPLED_IDLE_PARK_NS = 10_000_000L;
    /** How often threads with pre-session frames are looked at (only while such frames remain). */
    static final long RECONCILE_NS = 50_000_000L;
    /** How often threads are asked to write out pending allocation counts (alloc=on). */
    static final long FLUSH_ASK_NS = 10_000_000L;

    final int sessionId;
    final Options options;
    private final ConcurrentLinkedQueue<Ring> newRings = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<LiveObjects.Snapshot> liveSnapshots = new ConcurrentLinkedQueue<>();
    /** Rings made at attach for threads running pre-session frames, until the thread adopts its own. */
    private final java.util.concurrent.ConcurrentHashMap<Thread, Ring> premade =
            new java.util.concurrent.ConcurrentHashMap<>();
    private long lastReconcileNs;
    /** For the verbose log and tests: base frames sent at attach. */
    volatile long preFramesAtStart;
    private final AtomicLong threadIds = new AtomicLong(1);
    private final ArrayList<Ring> rings = new ArrayList<>();
    private final Wire wire = new Wire(FLUSH_BYTES * 2);
    /** alloc=on: rings go out as Records (tag 10), else as Events (tag 4, as protocol version 1). */
    private final boolean records;
    private final ViewerConnection connection = new ViewerConnection();
    private final SentDefinitions definitions = new SentDefinitions(wire);
    private final RingDrainer drainer;

    /** mode=sampled: the samples this session sends instead of events (null when exact). */
    volatile Sampling sampling;
    /**
     * mode=auto: above this many events per second (over {@link #AUTO_CHECK_NS}) the probes cost
     * the program more than the picture is worth (at 50–100 ns an event, 10–20 %), and the
     * session goes on sampled, as it does at the first event a full ring drops.
     */
    static final long AUTO_EVENTS_PER_S = 1_000_000L;
    static final long AUTO_CHECK_NS = 100_000_000L;
    /** mode=auto: set when the session must go on sampled (the hooks stopped at that moment). */
    private final java.util.concurrent.atomic.AtomicBoolean switchClaimed =
            new java.util.concurrent.atomic.AtomicBoolean();
    private volatile boolean switchRequested;
    private volatile String switchReason;
    private long autoCheckNs;
    private long autoCheckEvents;
    /**
     * mode=auto: when the session went on sampled (0 before and once looked again): after
     * {@link #TRANSIENT_LOOK_NS} the threads' stacks are read again, so the classes kept for a
     * frame that was only passing through get their original code back
     * ({@link Agent#dropTransientProbes}).
     */
    private long switchedAtNs;
    static final long TRANSIENT_LOOK_NS = 200_000_000L;

    volatile boolean finishing;
    volatile boolean finished;
    volatile Thread thread;
    /** True while the sender is parked idle (threads filling a ring wake it). */
    volatile boolean sleeping;
    /** Set once the Hello went out. */
    volatile boolean connected;

    Sender(int sessionId, Options options) {
        this.sessionId = sessionId;
        this.options = options;
        this.records = options.alloc;
        this.drainer = new RingDrainer(wire, connection, definitions, rings, records);
    }

    /** mode=auto, from a program thread whose ring is full: the probes cannot keep up. */
    void probesCannotKeepUp() {
        requestSwitch("the program made events faster than the agent could send them");
    }

    /** mode=auto: the hooks stop now (one volatile write); the sender goes on sampled. */
    private void requestSwitch(String reason) {
        if (!switchClaimed.compareAndSet(false, true)) {
            return;
        }
        switchReason = reason;
        if (Recorder.session == sessionId) {
            Recorder.session = 0;
        }
        try {
            Agent.dropProbes();
        } catch (Throwable t) {
            log("could not remove the probes (" + t + "); they stay, idle");
        }
        switchRequested = true;
        wake();
    }

    /**
     * mode=auto: every ring drained (its losses counted), the threads handed to the samples under
     * the same ids, and the session's measure sent (adaptive: every method now sampled). The probes
     * were removed by {@link #requestSwitch} ({@link Agent#dropProbes}).
     */
    private void switchToSampled() throws IOException {
        for (Ring ring : rings) {
            drainer.drain(ring);
            drainer.noteDrops(ring);
        }
        drainer.reportDrops();
        Sampling sampled = Sampling.start(options);
        long now = ticks(System.nanoTime());
        for (Ring ring : rings) {
            sampled.adopt(ring.thread.getId(), ring.threadId, now);
            ring.retired = true;
        }
        rings.clear();
        premade.clear();
        drainer.reconciling = 0;
        wire.measure(Wire.MEASURE_ADAPTIVE, sampled.periodUs(), Methods.count());
        sampling = sampled;
        switchedAtNs = Math.max(1, System.nanoTime());
        log("mode=auto: " + switchReason + "; measuring by samples from here on (every call: mode=exact)");
    }

    /** The classes-not-instrumented count last told the session, and when. */
    private long noticedFailures;
    private long noticedAtNs;

    /**
     * Tells the session (SPEC "Notice") how many classes could not be instrumented, naming the
     * first ones: when the count changed, at most twice a second, and at the end.
     */
    private void sendNotices(boolean finishing) {
        long now = System.nanoTime();
        if (!finishing && now - noticedAtNs < 500_000_000L) {
            return;
        }
        noticedAtNs = now;
        Transformer transformer = Agent.transformer();
        long failed = transformer == null ? 0 : transformer.classesFailed.get();
        if (failed != noticedFailures) {
            String text = transformer.notInstrumentedNotice();
            if (text != null) {
                wire.notice("not-instrumented", text.length() > 4000 ? text.substring(0, 4000) + "…" : text);
            }
            noticedFailures = failed;
        }
    }

    long nextThreadId() {
        return threadIds.getAndIncrement();
    }

    /**
     * Virtual threads are folded: an ended one's wire thread is not ended but emptied (a Resync to
     * no frame) and its id handed to the next virtual thread, as a pool's thread takes the next
     * task. With a virtual thread per request, the session then has as many threads as requests
     * ran at once, each alive for long (elevation is a share of the window: a thread that lives
     * for one 50 ms request would read 2 % wherever it waited), and memory stays bounded however
     * many virtual threads come and go. Only ids whose emptying was written are here. Last in,
     * first out: the same few ids serve again, so a window sees about as many threads as ran at
     * once (first in, first out would cycle through every id ever freed).
     */
    private final java.util.concurrent.ConcurrentLinkedDeque<Long> freeVirtualIds =
            new java.util.concurrent.ConcurrentLinkedDeque<>();

    /** The wire id of an ended virtual thread to reuse, or -1. */
    long reuseVirtualId() {
        Long id = freeVirtualIds.poll();
        return id == null ? -1 : id;
    }

    void register(Ring r) {
        newRings.add(r);
    }

    /**
     * Before the session starts: a ring for each thread running pre-session frames (its base,
     * outermost first). The thread adopts it at its first hook ({@link #takePremade}); until then
     * (perhaps forever: a thread stuck in a loop) the sender speaks for it.
     */
    void addPreSession(java.util.Map<Thread, int[]> bases) {
        long frames = 0;
        for (java.util.Map.Entry<Thread, int[]> e : bases.entrySet()) {
            Ring r = new Ring(this, e.getKey(), e.getValue());
            premade.put(e.getKey(), r);
            register(r);
            frames += e.getValue().length;
        }
        preFramesAtStart = frames;
    }

    /** The ring made at attach for the calling thread, if any (once). */
    Ring takePremade(Thread t) {
        return premade.isEmpty() ? null : premade.remove(t);
    }

    /** From a program thread ({@link LiveObjects}): sent by the next pump. */
    void queueLiveObjects(LiveObjects.Snapshot snapshot) {
        liveSnapshots.add(snapshot);
        wake();
    }

    void wake() {
        sleeping = false;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    static long ticks(long rawNanos) {
        long t = rawNanos - CLOCK_ZERO_NANOS;
        return t < 0 ? 0 : t;
    }

    void start() {
        Thread t = new Thread(this, "highrise-agent-sender");
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    /** Asks the sender to send what is buffered and Goodbye, and waits up to timeoutMs. */
    void finish(long timeoutMs) {
        finishing = true;
        Thread t = thread;
        if (t == null) {
            return;
        }
        LockSupport.unpark(t);
        try {
            t.join(timeoutMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void run() {
        try {
            connection.connect(options.host, options.port);
            wire.hello(AGENT, options.program, options.label, ProcessHandle.current().pid(), 1,
                    CLOCK_ZERO_UNIX_NS, options.token);
            Sampling sampled = sampling;
            if (sampled != null) {
                wire.measure(Wire.MEASURE_SAMPLED, sampled.periodUs(), 0);
            }
            flush();
            connected = true;
            if (options.verbose) {
                log("connected to " + options.host + ":" + options.port + " as '" + options.program + "'");
            }
            loop();
            close();
        } catch (Throwable thrown) {
            Throwable e = thrown;
            if (connected && !(e instanceof ViewerConnection.Rejected)) {
                try { // a viewer that rejected us has said why before closing
                    connection.readAnswer();
                } catch (ViewerConnection.Rejected rejected) {
                    e = rejected;
                } catch (IOException | RuntimeException ignored) {
                    // no answer to read
                }
            }
            if (!connected) {
                log("cannot connect to " + options.host + ":" + options.port + " (" + e.getMessage()
                        + "); the program runs on without profiling");
            } else if (e instanceof ViewerConnection.Rejected) {
                // Always said, even at exit: the user must learn why (e.g. a missing token).
                log(e.getMessage() + "; the program runs on without profiling");
            } else if (!finishing || options.verbose) {
                log("session ended (" + e + "); the program runs on without profiling");
            }
        } finally {
            stopRecording();
            Sampling sampled = sampling;
            if (sampled != null) {
                sampled.stop(); // a session the viewer ended: the sampler (JFR) goes with it
            }
            finished = true;
            if (connected && !finishing && options.attached) {
                Agent.viewerEnded(this); // the panel's Detach, or the viewer gone
            }
            connection.close();
        }
    }

    private void stopRecording() {
        synchronized (Agent.class) {
            if (Recorder.session == sessionId) {
                Recorder.session = 0;
            }
        }
    }

    private void loop() throws IOException {
        long lastEventsNs = System.nanoTime();
        long lastDroppedCheckNs = lastEventsNs;
        long lastFlushAskNs = lastEventsNs;
        while (true) {
            boolean last = finishing;
            boolean work = pump();
            connection.readAnswer();
            long now = System.nanoTime();
            if (work) {
                lastEventsNs = now;
            } else if (now - lastEventsNs >= HEARTBEAT_NS) {
                // Sampled: "now" is the samples' frontier (later samples are still on their way).
                wire.heartbeat(sampling != null ? sampling.frontierTicks() : ticks(now));
                lastEventsNs = now;
            }
            if (options.auto && sampling == null) {
                if (switchRequested) {
                    switchToSampled();
                } else if (now - autoCheckNs >= AUTO_CHECK_NS) {
                    long rate = (drainer.eventsSent - autoCheckEvents) * 1_000_000_000L / Math.max(1, now - autoCheckNs);
                    if (autoCheckNs != 0 && rate > AUTO_EVENTS_PER_S) {
                        requestSwitch("the program made " + rate / 1000 + "k events/s (over "
                                + AUTO_EVENTS_PER_S / 1000 + "k/s the probes distort it)");
                    }
                    autoCheckNs = now;
                    autoCheckEvents = drainer.eventsSent;
                }
            }
            if (drainer.reconciling > 0 && (last || now - lastReconcileNs >= RECONCILE_NS)) {
                drainer.reconcile();
                lastReconcileNs = now;
            }
            if (records && now - lastFlushAskNs >= FLUSH_ASK_NS) {
                for (Ring ring : rings) {
                    if (!ring.flushAsked) {
                        ring.flushAsked = true;
                    }
                }
                lastFlushAskNs = now;
            }
            if (now - lastDroppedCheckNs >= 1_000_000_000L) {
                drainer.reportDrops();
                lastDroppedCheckNs = now;
            }
            if (switchedAtNs != 0 && now - switchedAtNs >= TRANSIENT_LOOK_NS) {
                switchedAtNs = 0;
                try {
                    Agent.dropTransientProbes();
                } catch (Throwable t) {
                    log("could not remove the idle probes of passing frames (" + t + "); they stay");
                }
            }
            flush();
            if (last) {
                return;
            }
            if (!work) {
                sleeping = true;
                if (!finishing) {
                    LockSupport.parkNanos(sampling != null ? SAMPLED_IDLE_PARK_NS : IDLE_PARK_NS);
                }
                sleeping = false;
            }
        }
    }

    /** One pass over definitions, new threads, rings and dead threads. True if events moved. */
    private boolean pump() throws IOException {
        boolean work = false;
        definitions.sendDefinitions();
        Sampling sampled = sampling;
        if (sampled != null) {
            work |= sampled.pump(wire, this, definitions::sendDefinitions, finishing);
        }
        if (records) {
            definitions.sendClassDefinitions();
            definitions.sendRelations();
        }
        LiveObjects.Snapshot snapshot;
        while ((snapshot = liveSnapshots.poll()) != null) {
            definitions.sendClassDefinitions(); // every id the snapshot names was reserved before it was queued
            wire.liveObjects(snapshot.threadId, ticks(snapshot.nanos), snapshot.heapLiveBytes,
                    snapshot.classIds, snapshot.counts, snapshot.bytes, snapshot.n);
            work = true;
        }
        sendNotices(false);
        Ring r;
        while ((r = newRings.poll()) != null) {
            rings.add(r);
            if (!r.reusedId) {
                wire.threadStart(r.threadId, r.threadName, ticks(r.startNanos));
            }
            if (r.preIds != null) {
                // The thread's first message: the frames it was already running (before any of its events).
                drainer.sendPreSessionFrames(r);
            }
        }
        for (Iterator<Ring> it = rings.iterator(); it.hasNext(); ) {
            Ring ring = it.next();
            boolean alive = ring.thread.isAlive();
            work |= drainer.drain(ring);
            if (alive && ring.gapsPublished > ring.gapsResynced && ring.wireAlive == 0 && !ring.tracking) {
                drainer.settleQuietLoss(ring);
            }
            if (!alive) {
                long now = ticks(System.nanoTime());
                drainer.threadEnded(ring, now);
                premade.remove(ring.thread, ring);
                if (ring.virtual) {
                    wire.resync(ring.threadId, now, new int[0], 0); // folded: see freeVirtualIds
                    freeVirtualIds.push(ring.threadId);
                } else {
                    wire.threadEnd(ring.threadId, now);
                }
                drainer.noteDrops(ring);
                it.remove();
            }
        }
        return work;
    }

    private void flush() throws IOException {
        connection.flush(wire);
    }

    /** Goodbye, then the graceful close: shut down our side and read the viewer's side to its end. */
    private void close() throws IOException {
        if (options.verbose && preFramesAtStart > 0) {
            log("pre-session frames: " + preFramesAtStart + " at the start; returns settled by the threads: "
                    + drainer.rebasesByThreads + ", by the sender: " + drainer.rebasesBySender);
        }
        if (options.verbose && drainer.quietLossesSettled > 0) {
            log("losses settled by the sender while their threads were quiet: " + drainer.quietLossesSettled);
        }
        connection.readAnswer();
        drainer.reportDrops();
        Sampling sampled = sampling;
        if (sampled != null) {
            sampled.stop();
            sampled.readOnce(true); // JFR's last second would never arrive
            sampled.pump(wire, this, definitions::sendDefinitions, true);
        }
        sendNotices(true);
        wire.goodbye(ticks(System.nanoTime()));
        flush();
        if (options.stats) {
            log("sent " + drainer.eventsSent + " events, dropped " + drainer.droppedEventsTotal);
            if (sampled != null) {
                log("sent " + sampled.samplesSent + " samples (" + sampled.samplesLate + " came too late)");
            }
            Transformer transformer = Agent.transformer();
            if (transformer != null && transformer.classesFailed.get() > 0) {
                log(transformer.classesFailed.get() + " classes not instrumented (the first ones named above)");
            }
            if (Transformer.CLASSES_WITHOUT_FILE.get() > 0) {
                log(Transformer.CLASSES_WITHOUT_FILE.get() + " loaded classes had no class file to read (no building)");
            }
            if (TrivialMethods.TRIVIAL_METHODS.get() > 0) {
                log(TrivialMethods.TRIVIAL_METHODS.get() + " trivial methods had no probe (mode=exact gives them one)");
            }
        }
        connection.shutdownAndDrain();
    }

    static void log(String message) {
        System.err.println("highrise-agent: " + message);
    }
}
