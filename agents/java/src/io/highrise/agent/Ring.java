package io.highrise.agent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * One thread's event buffer for one session: a single-producer (the thread) single-consumer (the
 * sender) ring of (code, raw nanoTime) pairs, code = method_id * 2 + kind, plus the thread's
 * shadow stack. When the ring is full the event is dropped and counted (or, with {@code lossless},
 * the thread waits); the first event that fits afterwards is preceded by a marker whose stack
 * snapshot becomes a Resync on the wire. Public only because instrumented methods hold their
 * thread's ring in a local; nothing in it is usable from outside the agent.
 */
public final class Ring {
    static final int MARKER = -1;

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
    /** Gaps closed by a marker (a Resync went out for them). */
    long gapsResynced;

    Ring(Sender sender, Thread thread) {
        this(sender, thread, null);
    }

    Ring(Sender sender, Thread thread, int[] preIds) {
        this.preIds = preIds;
        this.preAlive = preIds == null ? 0 : preIds.length;
        this.sender = sender;
        this.session = sender.sessionId;
        this.thread = thread;
        this.threadName = thread.getName();
        this.threadId = sender.nextThreadId();
        this.capacity = sender.options.bufferEvents;
        this.mask = capacity - 1;
        this.halfMask = capacity / 2 - 1;
        this.lossless = sender.options.lossless;
        this.codes = new int[capacity];
        this.times = new long[capacity];
        this.startNanos = System.nanoTime();
    }

    void enter(int id) {
        int d = depth;
        if (d == stack.length) {
            stack = Arrays.copyOf(stack, d * 2);
        }
        stack[d] = id;
        put(id << 1, System.nanoTime());
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
        put((id << 1) | 1, System.nanoTime());
        depth = d - 1;
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
