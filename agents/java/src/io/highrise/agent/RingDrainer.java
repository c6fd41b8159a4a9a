package io.highrise.agent;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

/**
 * The sender thread's reading of the threads' rings onto the wire: each ring drained as Events
 * batches (Records with allocation counting on: enter, exit and memory records), its markers
 * turned into Dropped + Resync where events were lost, and the loss and memory-drop totals kept
 * and reported. Also the bookkeeping of pre-session frames (a thread's frames running before an
 * attach): the replica of a tracked thread's stack, the rebases as those frames return
 * ({@link #reconcile}), and the Resync of a loss whose thread went quiet
 * ({@link #settleQuietLoss}). The session itself (threads coming and going, the mode, the
 * socket) is {@link Sender}'s.
 */
final class RingDrainer {
    static final int BATCH_EVENTS = 16384;
    /** How long a thread with an unsettled loss must make no event before the sender reads its
     *  stack. */
    static final long QUIET_LOSS_NANOS = 50_000_000L;

    private final Wire wire;
    private final ViewerConnection connection;
    private final SentDefinitions definitions;
    /** The session's rings (the sender's list). */
    private final List<Ring> rings;
    private final Wire.EventPacker packer = new Wire.EventPacker();
    private final Wire.RecordPacker recordPacker = new Wire.RecordPacker();
    /** alloc=on: rings go out as Records (tag 10), else as Events (tag 4, as protocol version 1). */
    private final boolean records;

    /** Rings whose pre-session frames the sender still watches. */
    int reconciling;
    /** Counters for the verbose log and tests: rebases by the sender and by the threads, and
     *  losses the sender settled while their threads were quiet. */
    volatile long rebasesBySender;
    volatile long quietLossesSettled;
    volatile long rebasesByThreads;

    private long allocationsDroppedTotal;
    private long allocationBytesDroppedTotal;
    private long allocationsDroppedSent;
    private long allocationBytesDroppedSent;
    long droppedEventsTotal;
    private long gapsTotal;
    private long droppedEventsSent = -1;
    private long gapsSent = -1;
    /** Enter and exit events written to the viewer (the `stats` option prints it at the end). */
    long eventsSent;

    RingDrainer(Wire wire, ViewerConnection connection, SentDefinitions definitions, List<Ring> rings,
            boolean records) {
        this.wire = wire;
        this.connection = connection;
        this.definitions = definitions;
        this.rings = rings;
        this.records = records;
    }

    /**
     * A new ring's first message: the frames its thread was already running (before any of its
     * events); the ring is tracked until they return.
     */
    void sendPreSessionFrames(Ring r) {
        for (int id : r.preIds) {
            definitions.ensureDefined(id);
        }
        wire.resync(r.threadId, Sender.ticks(r.startNanos), r.preIds, r.preIds.length);
        r.wireAlive = r.preIds.length;
        r.tracking = true;
        r.replica = new int[16];
        reconciling++;
    }

    /**
     * The thread of a drained ring ended: where its last events were lost, or its pre-session
     * frames still show, its stack is emptied on the wire at {@code now}; it is no longer tracked.
     */
    void threadEnded(Ring ring, long now) {
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
    void settleQuietLoss(Ring ring) throws IOException {
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
            definitions.ensureDefined(id);
        }
        noteDrops(ring);
        ring.gapsResynced = gaps;
        wire.dropped(droppedEventsTotal, gapsTotal);
        droppedEventsSent = droppedEventsTotal;
        gapsSent = gapsTotal;
        wire.resync(ring.threadId, Sender.ticks(now), stack, stack.length);
        quietLossesSettled++;
    }

    void noteDrops(Ring ring) {
        long allocations = ring.allocationsDroppedPublished;
        long bytes = ring.allocationBytesDroppedPublished;
        allocationsDroppedTotal += allocations - ring.allocationsDroppedReported;
        allocationBytesDroppedTotal += bytes - ring.allocationBytesDroppedReported;
        ring.allocationsDroppedReported = allocations;
        ring.allocationBytesDroppedReported = bytes;
        noteEventDrops(ring, ring.droppedEventsPublished, ring.gapsPublished);
    }

    /** Adds what {@code ring} dropped since last reported: {@code dropped} events, {@code gaps} gaps so far. */
    private void noteEventDrops(Ring ring, long dropped, long gaps) {
        droppedEventsTotal += dropped - ring.droppedReported;
        gapsTotal += gaps - ring.gapsReported;
        ring.droppedReported = dropped;
        ring.gapsReported = gaps;
    }

    /** A Dropped message when the totals moved since the last one. */
    void reportDrops() {
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

    private void flush() throws IOException {
        connection.flush(wire);
    }

    /** Sends what the ring holds. True if it held anything. */
    boolean drain(Ring ring) throws IOException {
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
            long t = Sender.ticks(times[i]);
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
                    noteEventDrops(ring, gap.droppedEvents, gap.gaps);
                    ring.gapsResynced = gap.gaps;
                    for (int id : gap.stack) {
                        definitions.ensureDefined(id);
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
                    t = Sender.ticks(k < tl ? times[(int) k & mask] : System.nanoTime());
                }
                if (!records) {
                    continue; // code rewritten for an earlier session with alloc=on; not this one's
                }
                if (classId >= definitions.classDefsSent) {
                    definitions.sendClassDefinitions();
                    if (classId >= definitions.classDefsSent) {
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
                definitions.ensureDefined(code >>> 1);
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
                if (wire.length() >= Sender.FLUSH_BYTES) {
                    flush();
                }
            }
        }
        if (batchCount() > 0) {
            writeBatch(ring);
            startBatch(0);
        }
        ring.release(h);
        if (wire.length() >= Sender.FLUSH_BYTES) {
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
    void reconcile() throws IOException {
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
                        rebase(ring, k2, ring.replica, ring.replicaDepth, Sender.ticks(System.nanoTime()));
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
}
