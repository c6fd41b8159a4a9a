package io.highrise.agent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * One thread's event buffer for one session: a single-producer (the thread) single-consumer (the
 * sender) ring of (code, raw nanoTime) pairs, code = method_id * 2 + kind, plus the thread's
 * shadow stack and its pending allocation counts. A memory record means "the frame on top here
 * created count objects of the class (bytes in all)"; it is written just before the thread's next
 * event, published with it (one slot: code {@link #ATTACHED} - class_id, count and bytes packed in
 * the time field, the time being the event's), or on its own when the pending window needs the
 * room or the sender asks (two slots: code {@link #MEMORY} - class_id with the time, then count and
 * bytes in the code and time fields). So the counts keep the frame that made them, with no stack
 * walk. When the ring is full the event is dropped and counted (or, with {@code lossless},
 * the thread waits); the first event that fits afterwards is preceded by a marker whose stack
 * snapshot becomes a Resync on the wire. Public only because instrumented methods hold their
 * thread's ring in a local; nothing in it is usable from outside the agent.
 */
public final class Ring {
    static final int MARKER = -1;
    /** Codes at or below this start a memory record: code = MEMORY - class_id (two slots). */
    static final int MEMORY = -2;
    /** Codes at or below this are one-slot memory records: code = ATTACHED - class_id. */
    static final int ATTACHED = MEMORY - (1 << 24);
    /** One-slot records pack count << COUNT_SHIFT | bytes (when both fit). */
    static final int COUNT_SHIFT = 40;
    /** Pending window: classes counted since the last flush, direct-mapped by class id. */
    static final int PENDING_SLOTS = 16;

    private static final VarHandle TAIL;
    private static final VarHandle HEAD;
    private static final VarHandle PRE_BUSY;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            TAIL = l.findVarHandle(Ring.class, "tail", long.class);
            HEAD = l.findVarHandle(Ring.class, "head", long.class);
            PRE_BUSY = l.findVarHandle(Ring.class, "preBusy", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * What a {@link #MARKER} stands for: a loss episode (the shadow stack where recording resumed
     * and the thread's drop totals then; {@code base} = -1), or a pre-session frame that returned
     * ({@code base} = how many of {@link #preIds} are still running, {@code stack} = the shadow
     * stack then). Either becomes a Resync of base frames + stack on the wire.
     */
    static final class Gap {
        final int[] stack;
        final long droppedEvents;
        final long gaps;
        final int base;

        Gap(int[] stack, long droppedEvents, long gaps) {
            this(stack, droppedEvents, gaps, -1);
        }

        Gap(int[] stack, long droppedEvents, long gaps, int base) {
            this.stack = stack;
            this.droppedEvents = droppedEvents;
            this.gaps = gaps;
            this.base = base;
        }
    }

    final int session;
    final long threadId;
    /** A virtual thread (JDK 21+), and whether it took the wire id of one that ended. */
    final boolean virtual;
    final boolean reusedId;
    final Thread thread;
    final String threadName;
    final long startNanos;
    final Sender sender;
    final int capacity;
    final int mask;
    /** Every time the tail crosses a multiple of capacity/2 the sender is woken if it sleeps. */
    final int halfMask;
    final boolean lossless;
    final int[] codes;
    final long[] times;
    final ConcurrentLinkedQueue<Gap> gapQueue = new ConcurrentLinkedQueue<>();

    // Producer side (the owning thread only).
    private long tail;
    private long headCache;
    private int[] stack = new int[32];
    private int depth;
    private boolean inGap;
    private long droppedEvents;
    private long gaps;

    // Pending allocations (the owning thread only): per slot the class (-1: none yet), objects
    // since the last flush, their bytes for arrays, the object size for objects; a bit per slot
    // with counts.
    private final int[] pendClass = new int[PENDING_SLOTS];
    private final int[] pendCount = new int[PENDING_SLOTS];
    private final long[] pendBytes = new long[PENDING_SLOTS];
    private final long[] pendSize = new long[PENDING_SLOTS];
    private int pendMask;
    private long allocationsDropped;
    private long allocationBytesDropped;
    /** Set by the sender every few ms: write the pending counts at the next allocation. */
    volatile boolean flushAsked;
    /**
     * mode=auto switched to samples: nothing more is read from this ring. Frames entered before
     * the switch still hold it (a loop running since then); their hooks stop at the first slow
     * path instead of filling it and then dropping into it on every miss.
     */
    volatile boolean retired;
    /** Memory drop totals published for the sender. */
    volatile long allocationsDroppedPublished;
    volatile long allocationBytesDroppedPublished;
    long allocationsDroppedReported;
    long allocationBytesDroppedReported;

    // Consumer side (the sender only writes it).
    private long head;

    /**
     * Pre-session frames (attach): the profiled frames this thread was already running when the
     * session began, outermost first (their code records no exit in this session); null when none.
     * {@link #preAlive} of them (a prefix) are still running. Either the thread itself (in a hook,
     * when {@link #checkRequested}) or the sender (while the thread makes no events) lowers it,
     * holding {@link #preBusy}; see {@link PreSession}.
     */
    final int[] preIds;
    volatile int preAlive;
    volatile boolean checkRequested;
    private volatile int preBusy;

    // Sender bookkeeping for pre-session frames: how many base frames the wire shows, and a copy
    // of the shadow stack as of the drained position (only while some pre-session frame runs).
    int wireAlive;
    long lastLookTail = -1;
    boolean tracking;
    int[] replica;
    int replicaDepth;

    /** Drop totals published for the sender (written by the owner, read by the sender). */
    volatile long droppedEventsPublished;
    volatile long gapsPublished;

    // Sender bookkeeping.
    boolean started;
    long droppedReported;
    long gapsReported;
    /** Gaps closed by a marker or by the sender (a Resync went out for them). */
    long gapsResynced;
    /** Sender bookkeeping for a loss the thread has not settled yet: the ring's tail and gap
     *  count when it was last seen quiet, and since when (see RingDrainer#settleQuietLoss). */
    long quietTail = -1;
    long quietGaps = -1;
    long quietSince;

    Ring(Sender sender, Thread thread) {
        this(sender, thread, null);
    }

    /**
     * Events in a virtual thread's buffer. A program may hold thousands of virtual threads at
     * once (one per request), each recorded as a thread of its own: with the default 16,384
     * events (192 KB) each, 5,000 parked virtual threads took 1.1 GB of heap; with 1,024, 60 MB.
     */
    static final int VIRTUAL_THREAD_EVENTS = 1024;

    /** {@code Thread.isVirtual()} where the JDK has it (21+), else null. */
    private static final java.lang.invoke.MethodHandle IS_VIRTUAL = isVirtualHandle();

    private static java.lang.invoke.MethodHandle isVirtualHandle() {
        try {
            return java.lang.invoke.MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual",
                    java.lang.invoke.MethodType.methodType(boolean.class));
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }

    static boolean isVirtual(Thread thread) {
        try {
            return IS_VIRTUAL != null && (boolean) IS_VIRTUAL.invokeExact(thread);
        } catch (Throwable t) {
            return false;
        }
    }

    Ring(Sender sender, Thread thread, int[] preIds) {
        this.preIds = preIds;
        this.preAlive = preIds == null ? 0 : preIds.length;
        this.sender = sender;
        this.session = sender.sessionId;
        this.thread = thread;
        this.virtual = isVirtual(thread);
        // A virtual thread takes the wire id of one that ended (Sender.reuseVirtualId), so the
        // session's threads are as many as ran at once, not one per request.
        long reused = virtual ? sender.reuseVirtualId() : -1;
        this.reusedId = reused >= 0;
        this.threadId = reusedId ? reused : sender.nextThreadId();
        String name = thread.getName();
        this.threadName = virtual && name.isEmpty() ? "virtual #" + threadId : name;
        this.capacity = virtual ? Math.min(VIRTUAL_THREAD_EVENTS, sender.options.bufferEvents)
                : sender.options.bufferEvents;
        this.mask = capacity - 1;
        this.halfMask = capacity / 2 - 1;
        this.lossless = sender.options.lossless;
        this.codes = new int[capacity];
        this.times = new long[capacity];
        this.startNanos = System.nanoTime();
        Arrays.fill(pendClass, -1);
    }

    void enter(int id) {
        int d = depth;
        if (d == stack.length) {
            stack = Arrays.copyOf(stack, d * 2);
        }
        stack[d] = id;
        long t = System.nanoTime();
        if (pendMask != 0) {
            flushThenPut(id << 1, t);
        } else {
            put(id << 1, t);
        }
        depth = d + 1;
        if (preIds != null && checkRequested) {
            selfCheck();
        }
    }

    void exit(int id) {
        int d = depth;
        if (d == 0) {
            return; // a frame entered before recording began
        }
        if (preIds != null && checkRequested) {
            selfCheck();
        }
        long t = System.nanoTime();
        if (pendMask != 0) {
            flushThenPut((id << 1) | 1, t);
        } else {
            put((id << 1) | 1, t);
        }
        depth = d - 1;
    }

    // ------------------------------------------------------------ allocation counting

    /** One object of class {@code c} was created in the frame on top (instrumented {@code new}). */
    void alloc(int c) {
        int i = c & (PENDING_SLOTS - 1);
        if (pendClass[i] == c) {
            pendCount[i]++;
            pendMask |= 1 << i;
            if (flushAsked) {
                flushAskedNow();
            }
            return;
        }
        allocMiss(c, i, 1, 0);
    }

    /** One array of class {@code c}, {@code bytes} long, was created in the frame on top. */
    void array(int c, long bytes) {
        int i = c & (PENDING_SLOTS - 1);
        if (pendClass[i] == c) {
            pendCount[i]++;
            pendBytes[i] += bytes;
            pendMask |= 1 << i;
            if (flushAsked) {
                flushAskedNow();
            }
            return;
        }
        allocMiss(c, i, 1, bytes);
    }

    /**
     * {@code multianewarray}: the array and, level by level, the arrays it holds (rectangular:
     * each level's arrays have one length), {@code dims} levels of them.
     */
    void multiArray(Object array, int c, int dims) {
        try {
            long objects = 1;
            Object level = array;
            int id = c;
            for (int k = 0; k < dims && id >= 0 && level != null; k++) {
                int length = java.lang.reflect.Array.getLength(level);
                add(id, objects, objects * Sizes.arrayBytes(length, Classes.shape(id)));
                if (length == 0) {
                    return;
                }
                objects *= length;
                if (k + 1 < dims) {
                    level = java.lang.reflect.Array.get(level, 0);
                    id = Classes.component(id);
                }
            }
        } catch (Throwable t) {
            // never disturb the program
        }
    }

    private void add(int c, long objects, long bytes) {
        int i = c & (PENDING_SLOTS - 1);
        if (pendClass[i] == c && pendCount[i] + objects <= Integer.MAX_VALUE) {
            pendCount[i] += (int) objects;
            pendBytes[i] += bytes;
            pendMask |= 1 << i;
            return;
        }
        allocMiss(c, i, objects, bytes);
    }

    /** Class {@code c} is not in its slot: write out the slot's counts and take it. */
    private void allocMiss(int c, int i, long objects, long bytes) {
        if (retired) {
            return;
        }
        // First: the class's size (measured once per class, while nothing here is half done).
        long size = Classes.objectSize(c);
        if (pendCount[i] != 0) {
            flushPending(1 << i, System.nanoTime());
        }
        while (objects > Integer.MAX_VALUE) { // a multianewarray level beyond any heap
            pendClass[i] = c;
            pendSize[i] = 0;
            pendCount[i] = Integer.MAX_VALUE;
            pendBytes[i] = bytes / objects * Integer.MAX_VALUE;
            bytes -= pendBytes[i];
            objects -= Integer.MAX_VALUE;
            flushPending(1 << i, System.nanoTime());
        }
        pendClass[i] = c;
        pendSize[i] = size;
        pendCount[i] = (int) objects;
        pendBytes[i] = bytes;
        pendMask |= 1 << i;
        if (flushAsked) {
            flushAskedNow();
        }
    }

    private void flushAskedNow() {
        flushAsked = false;
        if (pendMask != 0) {
            flushPending(pendMask, System.nanoTime());
        }
    }

    /**
     * Before an enter or exit: the pending counts as one-slot memory records, then the event,
     * published together (one room check, one release store). After a loss the gap's marker (the
     * Resync) goes first, so the records land on the right frame. Counts that do not fit are
     * dropped and counted; the event then goes its usual way.
     */
    private void flushThenPut(int code, long t) {
        int slots = pendMask;
        if ((slots & (slots - 1)) == 0 && !inGap && putOneAttached(slots, code, t)) {
            return;
        }
        pendMask = 0;
        int need = 2 * Integer.bitCount(slots) + 1 + (inGap ? 1 : 0);
        long tl = tail;
        if (tl - headCache > capacity - need) {
            headCache = (long) HEAD.getAcquire(this);
            if (tl - headCache > capacity - need && !waitForRoom(need)) {
                dropSlots(slots);
                put(code, t);
                return;
            }
        }
        long start = tl;
        if (inGap) {
            tl = putGapMarker(tl, t);
        }
        tl = writeRecords(slots, tl, t, true);
        int i = (int) tl & mask;
        codes[i] = code;
        times[i] = t;
        publish(start, tl + 1);
    }

    /**
     * The common case of {@link #flushThenPut}: one pending class whose counts fit a one-slot
     * record, and room known for it and the event. Writes both and publishes them; false
     * (nothing written) otherwise.
     */
    private boolean putOneAttached(int slot, int code, long t) {
        int i = Integer.numberOfTrailingZeros(slot);
        int n = pendCount[i];
        long bytes = pendBytes[i] + n * pendSize[i];
        long tl = tail;
        if (!fitsAttached(n, bytes) || tl - headCache > capacity - 2) {
            return false;
        }
        int a = (int) tl & mask;
        codes[a] = ATTACHED - pendClass[i];
        times[a] = (long) n << COUNT_SHIFT | bytes;
        int b = (int) (tl + 1) & mask;
        codes[b] = code;
        times[b] = t;
        pendCount[i] = 0;
        pendBytes[i] = 0;
        pendMask = 0;
        publish(tl, tl + 2);
        return true;
    }

    /** Whether {@code n} objects of {@code bytes} in all fit a one-slot ({@link #ATTACHED}) record. */
    private static boolean fitsAttached(int n, long bytes) {
        return n < (1 << 23) && bytes < (1L << COUNT_SHIFT);
    }

    /**
     * Publishes the slots written from {@code start} up to {@code end}, waking the sender when
     * they cross into another half of the ring while it sleeps.
     */
    private void publish(long start, long end) {
        TAIL.setRelease(this, end);
        if ((start & ~(long) halfMask) != (end & ~(long) halfMask) && sender.sleeping) {
            sender.wake();
        }
    }

    /**
     * The slots in {@code slots} (a bit per slot) as memory records of their own (no event goes
     * with them: the window is full, or the sender asked), or dropped and counted when the ring has
     * no room.
     */
    private void flushPending(int slots, long t) {
        pendMask &= ~slots;
        if (retired) {
            return;
        }
        int need = 2 * Integer.bitCount(slots) + (inGap ? 1 : 0);
        long tl = tail;
        if (tl - headCache > capacity - need) {
            headCache = (long) HEAD.getAcquire(this);
            if (tl - headCache > capacity - need && !waitForRoom(need)) {
                dropSlots(slots);
                return;
            }
        }
        long start = tl;
        if (inGap) {
            tl = putGapMarker(tl, t);
        }
        publish(start, writeRecords(slots, tl, t, false));
    }

    /** Writes (unpublished) the marker that ends a loss episode; returns the next position. */
    private long putGapMarker(long tl, long t) {
        gapQueue.add(new Gap(Arrays.copyOf(stack, depth), droppedEvents, gaps));
        int m = (int) tl & mask;
        codes[m] = MARKER;
        times[m] = t;
        inGap = false;
        return tl + 1;
    }

    /** Writes (unpublished) the slots' records from {@code tl} and empties them; returns the next position. */
    private long writeRecords(int slots, long tl, long t, boolean attached) {
        for (int m = slots; m != 0; m &= m - 1) {
            int i = Integer.numberOfTrailingZeros(m);
            int n = pendCount[i];
            long bytes = pendBytes[i] + n * pendSize[i];
            int a = (int) tl & mask;
            if (attached && fitsAttached(n, bytes)) {
                codes[a] = ATTACHED - pendClass[i];
                times[a] = (long) n << COUNT_SHIFT | bytes;
                tl++;
            } else {
                codes[a] = MEMORY - pendClass[i];
                times[a] = t;
                int b = (int) (tl + 1) & mask;
                codes[b] = n;
                times[b] = bytes;
                tl += 2;
            }
            pendCount[i] = 0;
            pendBytes[i] = 0;
        }
        return tl;
    }

    /** No room: the slots' counts are lost, and counted for MemoryDropped. */
    private void dropSlots(int slots) {
        for (int m = slots; m != 0; m &= m - 1) {
            int i = Integer.numberOfTrailingZeros(m);
            allocationsDropped += pendCount[i];
            allocationBytesDropped += pendBytes[i] + pendCount[i] * pendSize[i];
            pendCount[i] = 0;
            pendBytes[i] = 0;
        }
        allocationsDroppedPublished = allocationsDropped;
        allocationBytesDroppedPublished = allocationBytesDropped;
    }

    /** Lossless: waits until {@code need} slots are free (false when the session ends first). */
    private boolean waitForRoom(int need) {
        if (!lossless) {
            return false;
        }
        while (Recorder.session == session && !sender.finished) {
            LockSupport.parkNanos(20_000);
            headCache = (long) HEAD.getAcquire(this);
            if (tail - headCache <= capacity - need) {
                return true;
            }
        }
        return false;
    }

    boolean tryLockPre() {
        return PRE_BUSY.compareAndSet(this, 0, 1);
    }

    void unlockPre() {
        preBusy = 0;
    }

    /**
     * On the owning thread, in a hook, when the sender asked: walks this thread's own stack and,
     * if pre-session frames have returned, writes a marker whose Resync (base + this shadow
     * stack) lands exactly between this thread's events. Never throws; skips when busy or full.
     */
    private void selfCheck() {
        checkRequested = false;
        if (inGap || preAlive == 0 || !tryLockPre()) {
            return;
        }
        try {
            int k = preAlive;
            int[] s = PreSession.currentStack();
            int k2 = PreSession.alive(s, preIds, k, stack, depth);
            if (k2 >= 0 && k2 < k && putMarker(new Gap(Arrays.copyOf(stack, depth), 0, 0, k2), System.nanoTime())) {
                preAlive = k2;
            }
        } catch (Throwable t) {
            // never disturb the program; the sender asks again
        } finally {
            unlockPre();
        }
    }

    /** A marker alone (room for one slot); false when the ring is full. */
    private boolean putMarker(Gap g, long t) {
        long tl = tail;
        if (tl - headCache >= capacity) {
            headCache = (long) HEAD.getAcquire(this);
            if (tl - headCache >= capacity) {
                return false;
            }
        }
        gapQueue.add(g);
        int i = (int) tl & mask;
        codes[i] = MARKER;
        times[i] = t;
        TAIL.setRelease(this, tl + 1);
        return true;
    }

    private void put(int code, long t) {
        long tl = tail;
        if (tl - headCache < capacity && !inGap) {
            int i = (int) tl & mask;
            codes[i] = code;
            times[i] = t;
            TAIL.setRelease(this, tl + 1);
            if (((int) tl & halfMask) == 0 && sender.sleeping) {
                sender.wake();
            }
            return;
        }
        putSlow(code, t);
    }

    /** The ring looked full, or a loss must be marked first. */
    private void putSlow(int code, long t) {
        if (retired) {
            return;
        }
        long tl = tail;
        int need = inGap ? 2 : 1;
        if (tl - headCache > capacity - need) {
            headCache = (long) HEAD.getAcquire(this);
            if (tl - headCache > capacity - need) {
                if (!full()) {
                    return;
                }
            }
        }
        if (inGap) {
            gapQueue.add(new Gap(Arrays.copyOf(stack, depth), droppedEvents, gaps));
            int m = (int) tl & mask;
            codes[m] = MARKER;
            times[m] = t;
            tl++;
            inGap = false;
        }
        int i = (int) tl & mask;
        codes[i] = code;
        times[i] = t;
        TAIL.setRelease(this, tl + 1);
        if (sender.sleeping) {
            sender.wake();
        }
    }

    /** The ring is full: wait (lossless) or drop. True when there is now room. */
    private boolean full() {
        int need = inGap ? 2 : 1;
        if (lossless) {
            while (Recorder.session == session && !sender.finished) {
                LockSupport.parkNanos(20_000);
                headCache = (long) HEAD.getAcquire(this);
                if (tail - headCache <= capacity - need) {
                    return true;
                }
            }
        }
        if (sender.options.auto) {
            // The hooks stop now and the session goes on sampled: from this event on nothing is
            // recorded, by design, so it is no loss (counted, it read as 100 % of a window whose
            // events then stop: a false "dropping" alert). The samples resync every stack.
            sender.probesCannotKeepUp();
            return false;
        }
        droppedEvents++;
        droppedEventsPublished = droppedEvents;
        if (!inGap) {
            inGap = true;
            gaps++;
            gapsPublished = gaps;
        }
        return false;
    }

    long publishedTail() {
        return (long) TAIL.getAcquire(this);
    }

    long consumedHead() {
        return head;
    }

    void release(long newHead) {
        HEAD.setRelease(this, newHead);
    }
}
