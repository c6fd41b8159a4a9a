package io.highrise.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
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

    static final int BATCH_EVENTS = 16384;
    static final int FLUSH_BYTES = 256 * 1024;
    static final int DEFS_PER_FRAME = 1000;
    static final long HEARTBEAT_NS = 250_000_000L;
    static final long IDLE_PARK_NS = 1_000_000L;
    /**
     * Sampled, the sender idles longer: samples wait {@link Sampling#HORIZON_NANOS} anyway, and a
     * millisecond's wake-ups cost a busy program's other core ~4 % (Rhino, 1,000 wake-ups a second).
     */
    static final long SAMPLED_IDLE_PARK_NS = 10_000_000L;
    static final int CLOSE_READ_TIMEOUT_MS = 2000;
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
    /** Rings whose pre-session frames the sender still watches. */
    private int reconciling;
    private long lastReconcileNs;
    /** Counters for the verbose log and tests: base frames sent at attach, and rebases. */
    volatile long preFramesAtStart;
    volatile long rebasesBySender;
    /** How long a thread with an unsettled loss must make no event before the sender reads its
     *  stack; and how many such losses it settled. */
    static final long QUIET_LOSS_NANOS = 50_000_000L;
    volatile long quietLossesSettled;
    volatile long rebasesByThreads;
    private final AtomicLong threadIds = new AtomicLong(1);
    private final ArrayList<Ring> rings = new ArrayList<>();
    private final Wire wire = new Wire(FLUSH_BYTES * 2);
    private final Wire.EventPacker packer = new Wire.EventPacker();
    private final Wire.RecordPacker recordPacker = new Wire.RecordPacker();
    /** alloc=on: rings go out as Records (tag 10), else as Events (tag 4, as protocol version 1). */
    private final boolean records;
    private boolean[] sentIds = new boolean[1024];
    private int defsSent;
    private int classDefsSent;
    private int relationsSent;
    private long allocationsDroppedTotal;
    private long allocationBytesDroppedTotal;
    private long allocationsDroppedSent;
    private long allocationBytesDroppedSent;
    private long droppedEventsTotal;
    private long gapsTotal;
    private long droppedEventsSent = -1;
    private long gapsSent = -1;
    /** Enter and exit events written to the viewer (the `stats` option prints it at the end). */
    private long eventsSent;

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

    private Socket socket;
    private OutputStream out;
    private InputStream in;
    private final byte[] answer = new byte[512];
    private int answerLen;
    private boolean answered;

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
            drain(ring);
            noteDrops(ring);
        }
        reportDrops();
        Sampling sampled = Sampling.start(options);
        long now = ticks(System.nanoTime());
        for (Ring ring : rings) {
            sampled.adopt(ring.thread.getId(), ring.threadId, now);
            ring.retired = true;
        }
        rings.clear();
        premade.clear();
        reconciling = 0;
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
            socket = new Socket();
            socket.connect(new InetSocketAddress(options.host, options.port), 2000);
            socket.setTcpNoDelay(true);
            out = socket.getOutputStream();
            in = socket.getInputStream();
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
            if (connected && !(e instanceof Rejected)) {
                try { // a viewer that rejected us has said why before closing
                    readAnswer();
                } catch (Rejected rejected) {
                    e = rejected;
                } catch (IOException | RuntimeException ignored) {
                    // no answer to read
                }
            }
            if (!connected) {
                log("cannot connect to " + options.host + ":" + options.port + " (" + e.getMessage()
                        + "); the program runs on without profiling");
            } else if (e instanceof Rejected) {
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
            try {
                if (socket != null) {
                    socket.close();
                }
            } catch (IOException ignored) {
                // closing anyway
            }
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
            readAnswer();
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
                    long rate = (eventsSent - autoCheckEvents) * 1_000_000_000L / Math.max(1, now - autoCheckNs);
                    if (autoCheckNs != 0 && rate > AUTO_EVENTS_PER_S) {
                        requestSwitch("the program made " + rate / 1000 + "k events/s (over "
                                + AUTO_EVENTS_PER_S / 1000 + "k/s the probes distort it)");
                    }
                    autoCheckNs = now;
                    autoCheckEvents = eventsSent;
                }
            }
            if (reconciling > 0 && (last || now - lastReconcileNs >= RECONCILE_NS)) {
                reconcile();
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
                reportDrops();
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
        sendDefinitions();
        Sampling sampled = sampling;
        if (sampled != null) {
            work |= sampled.pump(wire, this, this::sendDefinitions, finishing);
        }
        if (records) {
            sendClassDefinitions();
            sendRelations();
        }
        LiveObjects.Snapshot snapshot;
        while ((snapshot = liveSnapshots.poll()) != null) {
            sendClassDefinitions(); // every id the snapshot names was reserved before it was queued
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
                for (int id : r.preIds) {
                    ensureDefined(id);
                }
                wire.resync(r.threadId, ticks(r.startNanos), r.preIds, r.preIds.length);
                r.wireAlive = r.preIds.length;
                r.tracking = true;
                r.replica = new int[16];
                reconciling++;
            }
        }
        for (Iterator<Ring> it = rings.iterator(); it.hasNext(); ) {
            Ring ring = it.next();
            boolean alive = ring.thread.isAlive();
            work |= drain(ring);
            if (alive && ring.gapsPublished > ring.gapsResynced && ring.wireAlive == 0 && !ring.tracking) {
                settleQuietLoss(ring);
            }
            if (!alive) {
                long now = ticks(System.nanoTime());
                if (ring.gapsPublished > ring.gapsResynced) {
                    // The thread's last events were lost: it ended with an empty stack.
                    noteDrops(ring);
                    wire.dropped(droppedEventsTotal, gapsTotal);
                    droppedEventsSent = droppedEventsTotal;
                    gapsSent = gapsTotal;
                    wire.resync(ring.threadId, now, new int[0], 0);
                } else if (ring.wireAlive > 0) {
                    // Its pre-session frames returned with the thread (no exit of theirs is recorded).
                    wire.resync(ring.threadId, now, new int[0], 0);
                }
                ring.wireAlive = 0;
                stopTracking(ring);
                premade.remove(ring.thread, ring);
                if (ring.virtual) {
                    wire.resync(ring.threadId, now, new int[0], 0); // folded: see freeVirtualIds
                    freeVirtualIds.push(ring.threadId);
                } else {
                    wire.threadEnd(ring.threadId, now);
                }
                noteDrops(ring);
                it.remove();
            }
        }
        return work;
    }

    /**
     * A thread that lost events and then made none (asleep, waiting, running library code: the
     * real game's event thread at game over) would keep, in the viewer, the frame of its last
     * recorded event on top until its next profiled call, however long that takes. Once its ring
     * is drained and has stayed still for {@link #QUIET_LOSS_NANOS}, its stack is read
     * ({@code Thread.getStackTrace}, resolved as at an attach) and sent as the loss's Resync. A
     * stack read while the thread moved (its tail or gaps changed) is thrown away; the thread's
     * own marker still follows at its next event, with its shadow stack.
     */
    private void settleQuietLoss(Ring ring) throws IOException {
        long tail = ring.publishedTail();
        long gaps = ring.gapsPublished;
        long now = System.nanoTime();
        if (tail != ring.consumedHead() || tail != ring.quietTail || gaps != ring.quietGaps) {
            ring.quietTail = tail;
            ring.quietGaps = gaps;
            ring.quietSince = now;
            return;
        }
        if (now - ring.quietSince < QUIET_LOSS_NANOS) {
            return;
        }
        StackTraceElement[] trace = ring.thread.getStackTrace();
        if (ring.publishedTail() != tail || ring.gapsPublished != gaps) {
            ring.quietSince = System.nanoTime();
            return;
        }
        int[] stack = PreSession.resolve(trace);
        for (int id : stack) {
            ensureDefined(id);
        }
        noteDrops(ring);
        ring.gapsResynced = gaps;
        wire.dropped(droppedEventsTotal, gapsTotal);
        droppedEventsSent = droppedEventsTotal;
        gapsSent = gapsTotal;
        wire.resync(ring.threadId, ticks(now), stack, stack.length);
        quietLossesSettled++;
    }

    private void noteDrops(Ring ring) {
        long allocations = ring.allocationsDroppedPublished;
        long bytes = ring.allocationBytesDroppedPublished;
        allocationsDroppedTotal += allocations - ring.allocationsDroppedReported;
        allocationBytesDroppedTotal += bytes - ring.allocationBytesDroppedReported;
        ring.allocationsDroppedReported = allocations;
        ring.allocationBytesDroppedReported = bytes;
        long d = ring.droppedEventsPublished;
        long g = ring.gapsPublished;
        droppedEventsTotal += d - ring.droppedReported;
        gapsTotal += g - ring.gapsReported;
        ring.droppedReported = d;
        ring.gapsReported = g;
    }

    /** A Dropped message when the totals moved since the last one. */
    private void reportDrops() {
        for (Ring ring : rings) {
            noteDrops(ring);
        }
        if (droppedEventsTotal != droppedEventsSent || gapsTotal != gapsSent) {
            if (droppedEventsTotal > 0 || gapsTotal > 0) {
                wire.dropped(droppedEventsTotal, gapsTotal);
            }
            droppedEventsSent = droppedEventsTotal;
            gapsSent = gapsTotal;
        }
        if (allocationsDroppedTotal != allocationsDroppedSent
                || allocationBytesDroppedTotal != allocationBytesDroppedSent) {
            wire.memoryDropped(allocationsDroppedTotal, allocationBytesDroppedTotal, 0);
            allocationsDroppedSent = allocationsDroppedTotal;
            allocationBytesDroppedSent = allocationBytesDroppedTotal;
        }
    }

    private void startBatch(long base) {
        if (records) {
            recordPacker.start(base);
        } else {
            packer.start(base);
        }
    }

    private int batchCount() {
        return records ? recordPacker.count() : packer.count();
    }

    private void writeBatch(Ring ring) {
        if (records) {
            recordPacker.writeTo(wire, ring.threadId);
        } else {
            packer.writeTo(wire, ring.threadId);
        }
    }

    private boolean drain(Ring ring) throws IOException {
        long h = ring.consumedHead();
        long tl = ring.publishedTail();
        if (h == tl) {
            return false;
        }
        int[] codes = ring.codes;
        long[] times = ring.times;
        int mask = ring.mask;
        startBatch(0);
        while (h < tl) {
            int i = (int) h & mask;
            int code = codes[i];
            long t = ticks(times[i]);
            h++;
            if (code == Ring.MARKER) {
                if (batchCount() > 0) {
                    writeBatch(ring);
                }
                startBatch(0);
                Ring.Gap gap = ring.gapQueue.poll();
                if (gap != null && gap.base >= 0) {
                    rebase(ring, gap.base, gap.stack, gap.stack.length, t);
                    rebasesByThreads++;
                } else if (gap != null) {
                    droppedEventsTotal += gap.droppedEvents - ring.droppedReported;
                    gapsTotal += gap.gaps - ring.gapsReported;
                    ring.droppedReported = gap.droppedEvents;
                    ring.gapsReported = gap.gaps;
                    ring.gapsResynced = gap.gaps;
                    for (int id : gap.stack) {
                        ensureDefined(id);
                    }
                    wire.dropped(droppedEventsTotal, gapsTotal);
                    droppedEventsSent = droppedEventsTotal;
                    gapsSent = gapsTotal;
                    if (ring.wireAlive > 0) {
                        int[] full = PreSession.join(ring.preIds, ring.wireAlive, gap.stack, gap.stack.length);
                        wire.resync(ring.threadId, t, full, full.length);
                    } else {
                        wire.resync(ring.threadId, t, gap.stack, gap.stack.length);
                    }
                    if (ring.tracking) {
                        setReplica(ring, gap.stack, gap.stack.length);
                    }
                }
                continue;
            }
            if (code <= Ring.MEMORY) {
                int classId;
                long objects;
                long bytes;
                if (code > Ring.ATTACHED) {
                    // Two slots: (count, bytes) in the next one, written with it.
                    classId = Ring.MEMORY - code;
                    int j = (int) h & mask;
                    objects = codes[j] & 0xFFFFFFFFL;
                    bytes = times[j];
                    h++;
                } else {
                    // One slot, published with the event that follows: its time is the event's.
                    classId = Ring.ATTACHED - code;
                    long packed = times[i];
                    objects = packed >>> Ring.COUNT_SHIFT;
                    bytes = packed & ((1L << Ring.COUNT_SHIFT) - 1);
                    long k = h;
                    while (k < tl && codes[(int) k & mask] <= Ring.ATTACHED) {
                        k++;
                    }
                    t = ticks(k < tl ? times[(int) k & mask] : System.nanoTime());
                }
                if (!records) {
                    continue; // code rewritten for an earlier session with alloc=on; not this one's
                }
                if (classId >= classDefsSent) {
                    sendClassDefinitions();
                    if (classId >= classDefsSent) {
                        // A class the registry does not hold (seen once in a Maven corpus run
                        // under mode=auto, cause not found): the viewer would refuse the record;
                        // it is counted as dropped instead.
                        allocationsDroppedTotal += objects;
                        allocationBytesDroppedTotal += bytes;
                        continue;
                    }
                }
                if (recordPacker.count() == 0) {
                    recordPacker.start(t);
                }
                recordPacker.memory(classId, t, objects, false, bytes);
            } else {
                if (ring.tracking) {
                    track(ring, code);
                }
                ensureDefined(code >>> 1);
                eventsSent++;
                if (records) {
                    if (recordPacker.count() == 0) {
                        recordPacker.start(t);
                    }
                    if ((code & 1) == 0) {
                        recordPacker.enter(code >>> 1, t);
                    } else {
                        recordPacker.exit(code >>> 1, t);
                    }
                } else {
                    if (packer.count() == 0) {
                        packer.start(t);
                    }
                    packer.push(code, t);
                }
            }
            if (batchCount() >= BATCH_EVENTS) {
                writeBatch(ring);
                startBatch(0);
                ring.release(h);
                if (wire.length() >= FLUSH_BYTES) {
                    flush();
                }
            }
        }
        if (batchCount() > 0) {
            writeBatch(ring);
            startBatch(0);
        }
        ring.release(h);
        if (wire.length() >= FLUSH_BYTES) {
            flush();
        }
        return true;
    }

    /** The replica of a tracked ring's shadow stack follows each drained event. */
    private static void track(Ring ring, int code) {
        if ((code & 1) == 0) {
            if (ring.replicaDepth == ring.replica.length) {
                ring.replica = Arrays.copyOf(ring.replica, ring.replicaDepth * 2);
            }
            ring.replica[ring.replicaDepth++] = code >>> 1;
        } else if (ring.replicaDepth > 0) {
            ring.replicaDepth--;
        }
    }

    private static void setReplica(Ring ring, int[] stack, int depth) {
        if (ring.replica.length < depth) {
            ring.replica = new int[Math.max(16, depth * 2)];
        }
        System.arraycopy(stack, 0, ring.replica, 0, depth);
        ring.replicaDepth = depth;
    }

    private void stopTracking(Ring ring) {
        if (ring.tracking) {
            ring.tracking = false;
            ring.replica = null;
            ring.replicaDepth = 0;
            reconciling--;
        }
    }

    /** On the wire, in order: the thread now runs base[0..alive) + stack; then stop watching at 0. */
    private void rebase(Ring ring, int alive, int[] stack, int depth, long t) {
        ring.wireAlive = alive;
        int[] full = PreSession.join(ring.preIds, alive, stack, depth);
        wire.resync(ring.threadId, t, full, full.length);
        if (ring.tracking) {
            setReplica(ring, stack, depth);
            if (alive == 0) {
                stopTracking(ring);
            }
        }
    }

    /**
     * Looks at each thread still running pre-session frames. A thread that made no event since the
     * previous look nor while its stack was read (its ring's tail did not move, no loss pending)
     * is settled here: its stack is the one the drained events describe, so a Resync now lands in
     * order. A thread that made events is asked to look at its own stack in its next hook
     * ({@link Ring#checkRequested}); if it makes none, it is idle at the next look.
     */
    private void reconcile() throws IOException {
        for (Ring ring : rings) {
            if (!ring.tracking || ring.preAlive == 0 || !ring.thread.isAlive()) {
                if (ring.tracking && ring.preAlive == 0 && ring.wireAlive == 0) {
                    stopTracking(ring);
                }
                continue;
            }
            try {
                drain(ring);
                long p0 = ring.consumedHead();
                if (p0 != ring.lastLookTail) {
                    // Events since the last look: the thread is active; it looks at its own stack.
                    ring.lastLookTail = p0;
                    ring.checkRequested = true;
                    continue;
                }
                long gaps = ring.gapsPublished;
                StackTraceElement[] trace = ring.thread.getStackTrace();
                if (ring.publishedTail() != p0 || gaps != ring.gapsResynced) {
                    ring.checkRequested = true;
                    continue;
                }
                if (!ring.tryLockPre()) {
                    continue;
                }
                try {
                    if (ring.publishedTail() != p0 || ring.gapsPublished != ring.gapsResynced) {
                        ring.checkRequested = true;
                        continue;
                    }
                    int k = ring.preAlive;
                    int k2 = PreSession.alive(PreSession.resolve(trace), ring.preIds, k, ring.replica,
                            ring.replicaDepth);
                    if (k2 >= 0 && k2 < k) {
                        ring.preAlive = k2;
                        rebase(ring, k2, ring.replica, ring.replicaDepth, ticks(System.nanoTime()));
                        rebasesBySender++;
                    }
                } finally {
                    ring.unlockPre();
                }
            } catch (IOException e) {
                throw e;
            } catch (Throwable t) {
                // a thread that ended meanwhile, a stack we could not read: look again later
            }
        }
    }

    private void ensureDefined(int id) {
        if (id < sentIds.length && sentIds[id]) {
            return;
        }
        sendDefinitions();
    }

    private void sendDefinitions() {
        if (Methods.count() <= defsSent) {
            return;
        }
        MethodDef[] defs = Methods.since(defsSent);
        for (int from = 0; from < defs.length; from += DEFS_PER_FRAME) {
            int to = Math.min(defs.length, from + DEFS_PER_FRAME);
            wire.defineMethods(defs, from, to);
        }
        for (MethodDef d : defs) {
            if (d.id >= sentIds.length) {
                sentIds = Arrays.copyOf(sentIds, Math.max(sentIds.length * 2, d.id + 1));
            }
            sentIds[d.id] = true;
        }
        defsSent += defs.length;
    }

    /** Every class id reserved so far (dense, in id order), before a record names one. */
    private void sendClassDefinitions() {
        if (Classes.count() <= classDefsSent) {
            return;
        }
        ClassDef[] defs = Classes.since(classDefsSent);
        for (int from = 0; from < defs.length; from += DEFS_PER_FRAME) {
            wire.defineClasses(defs, from, Math.min(defs.length, from + DEFS_PER_FRAME));
        }
        classDefsSent += defs.length;
    }

    /** Class relations not sent yet, after the definitions of every class they name. */
    private void sendRelations() {
        if (Relations.count() <= relationsSent) {
            return;
        }
        sendClassDefinitions();
        relationsSent = Relations.send(wire, relationsSent, DEFS_PER_FRAME);
    }

    private void flush() throws IOException {
        if (wire.length() > 0) {
            out.write(wire.array(), 0, wire.length());
            wire.clear();
        }
    }

    /** Reads the viewer's one answer frame without blocking; a Reject ends the session. */
    private void readAnswer() throws IOException {
        if (answered) {
            return;
        }
        int avail = in.available();
        while (avail > 0 && answerLen < answer.length) {
            int n = in.read(answer, answerLen, Math.min(avail, answer.length - answerLen));
            if (n < 0) {
                throw new IOException("viewer closed the connection");
            }
            answerLen += n;
            avail = in.available();
        }
        checkAnswer();
    }

    /** Reads the answer frame gathered so far, once whole; a Reject ends the session. */
    private void checkAnswer() throws IOException {
        if (answered || answerLen < 4) {
            return;
        }
        int len = (answer[0] & 0xFF) | (answer[1] & 0xFF) << 8 | (answer[2] & 0xFF) << 16 | (answer[3] & 0xFF) << 24;
        if (len < 0 || len > answer.length - 4) {
            answered = true; // not an answer we can read; ignore it
            return;
        }
        if (answerLen < 4 + len) {
            return;
        }
        answered = true;
        if (len > 0 && answer[4] == 1) {
            String reason = describeReject(answer, 5, 4 + len);
            throw new Rejected("the viewer rejected the session: " + reason);
        }
    }

    /** The viewer answered Reject (bad version, a missing or wrong token, ...). */
    static final class Rejected extends IOException {
        private static final long serialVersionUID = 1L;

        Rejected(String message) {
            super(message);
        }
    }

    /** Best-effort reading of a Reject's reason (after the tag: version varint, string). */
    static String describeReject(byte[] b, int pos, int end) {
        try {
            long[] cursor = {pos};
            readVarint(b, cursor, end); // viewer's protocol version
            int n = (int) readVarint(b, cursor, end);
            int p = (int) cursor[0];
            if (n < 0 || p + n > end) {
                return "(unreadable reason)";
            }
            return new String(b, p, n, StandardCharsets.UTF_8);
        } catch (RuntimeException e) {
            return "(unreadable reason)";
        }
    }

    static long readVarint(byte[] b, long[] cursor, int end) {
        int p = (int) cursor[0];
        if (p >= end) {
            throw new IllegalArgumentException("short");
        }
        int first = b[p++] & 0xFF;
        int size = first < 251 ? 0 : first == 251 ? 2 : first == 252 ? 4 : 8;
        if (p + size > end) {
            throw new IllegalArgumentException("short");
        }
        long v = first < 251 ? first : 0;
        for (int i = 0; i < size; i++) {
            v |= (long) (b[p + i] & 0xFF) << (8 * i);
        }
        cursor[0] = p + size;
        return v;
    }

    /** Goodbye, then the graceful close: shut down our side and read the viewer's side to its end. */
    private void close() throws IOException {
        if (options.verbose && preFramesAtStart > 0) {
            log("pre-session frames: " + preFramesAtStart + " at the start; returns settled by the threads: "
                    + rebasesByThreads + ", by the sender: " + rebasesBySender);
        }
        if (options.verbose && quietLossesSettled > 0) {
            log("losses settled by the sender while their threads were quiet: " + quietLossesSettled);
        }
        readAnswer();
        reportDrops();
        Sampling sampled = sampling;
        if (sampled != null) {
            sampled.stop();
            sampled.readOnce(true); // JFR's last second would never arrive
            sampled.pump(wire, this, this::sendDefinitions, true);
        }
        sendNotices(true);
        wire.goodbye(ticks(System.nanoTime()));
        flush();
        if (options.stats) {
            log("sent " + eventsSent + " events, dropped " + droppedEventsTotal);
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
            if (Transformer.TRIVIAL_METHODS.get() > 0) {
                log(Transformer.TRIVIAL_METHODS.get() + " trivial methods had no probe (mode=exact gives them one)");
            }
        }
        socket.shutdownOutput();
        socket.setSoTimeout(CLOSE_READ_TIMEOUT_MS);
        byte[] sink = new byte[1024];
        long deadline = System.nanoTime() + CLOSE_READ_TIMEOUT_MS * 1_000_000L;
        try {
            int n;
            while (System.nanoTime() < deadline && (n = in.read(sink)) >= 0) {
                // A short program may be done before the answer came: a Reject (a missing
                // token, ...) is still said. Anything else is discarded.
                int take = answered ? 0 : Math.min(n, answer.length - answerLen);
                System.arraycopy(sink, 0, answer, answerLen, take);
                answerLen += take;
                checkAnswer();
            }
        } catch (SocketTimeoutException ignored) {
            // the viewer kept its side open; close anyway
        }
    }

    static void log(String message) {
        System.err.println("highrise-agent: " + message);
    }
}
