package io.highrise.agent;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.MutableCallSite;

/**
 * The hooks instrumented methods call: {@code enter(id)} at method entry, {@code exit(ring, id)} before
 * every return and in a catch-all handler that rethrows. The cost when no session is live is one
 * volatile read; when live, a thread-local lookup, a shadow-stack push/pop, {@link System#nanoTime()}
 * and two array stores into the thread's own ring ({@link Ring}), which the sender thread drains.
 * With allocation counting on, {@code alloc}, {@code array} and {@code multiArray} follow every
 * allocation instruction and add to the ring's pending window (a compare and two adds).
 * These methods never throw and never block (unless the {@code lossless} option is on).
 */
public final class Recorder {
    /** The live session's number; 0 = off (the instrumentation is then a no-op). */
    static volatile int session;
    /** The live session (its sender picks new rings from it); null when none. */
    static volatile Sender current;

    private static final ThreadLocal<Ring> RINGS = new ThreadLocal<>();

    private Recorder() {}

    /**
     * At method entry. Returns the thread's ring, which the method keeps in a local and hands to
     * {@link #exit(Ring, int)} (one thread-local lookup per call, not two); null when off.
     */
    public static Ring enter(int id) {
        try {
            return (Ring) ENTER.invokeExact(id);
        } catch (Throwable t) {
            return null; // enterLive throws nothing; were it to, the program must not see it
        }
    }

    /**
     * What {@link #enter} runs: {@link #enterLive} until {@link #probesOff}. Through a call site, not a
     * field, so that compiled code sees a constant: once off, the JIT folds every probe away.
     */
    private static final MutableCallSite ENTER_SITE;
    private static final MethodHandle ENTER;

    /**
     * Whether the probes run: true until {@link #probesOff}. Instrumented code tests it before
     * each exit and allocation hook, so a frame that entered before the switch (a running loop,
     * holding its ring) also loses its hooks once compiled again.
     */
    public static boolean on() {
        try {
            return (boolean) ON.invokeExact();
        } catch (Throwable t) {
            return false;
        }
    }

    private static final MutableCallSite ON_SITE = new MutableCallSite(MethodHandles.constant(boolean.class, true));
    private static final MethodHandle ON = ON_SITE.dynamicInvoker();

    static {
        try {
            ENTER_SITE = new MutableCallSite(MethodHandles.lookup().findStatic(Recorder.class, "enterLive",
                    MethodType.methodType(Ring.class, int.class)));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
        ENTER = ENTER_SITE.dynamicInvoker();
    }

    /**
     * mode=auto's switch to samples, for the probes left in code (methods running then keep theirs):
     * from now on {@code enter} returns null. Code compiled with the probes is deoptimized and
     * compiled again without them, running loops included (a retransformation would leave a running
     * method interpreted until it returns). Also at a detach, for the classes it cannot restore;
     * until a later session asks for probes again ({@link #probesOn}).
     */
    static void probesOff() {
        ENTER_SITE.setTarget(MethodHandles.dropArguments(MethodHandles.constant(Ring.class, null), 0, int.class));
        ON_SITE.setTarget(MethodHandles.constant(boolean.class, false));
        MutableCallSite.syncAll(new MutableCallSite[] {ENTER_SITE, ON_SITE});
    }

    /** A session with probes after {@link #probesOff}: {@code enter} records again. */
    static void probesOn() {
        try {
            ENTER_SITE.setTarget(MethodHandles.lookup().findStatic(Recorder.class, "enterLive",
                    MethodType.methodType(Ring.class, int.class)));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
        ON_SITE.setTarget(MethodHandles.constant(boolean.class, true));
        MutableCallSite.syncAll(new MutableCallSite[] {ENTER_SITE, ON_SITE});
    }

    private static Ring enterLive(int id) {
        int s = session;
        if (s == 0) {
            return null;
        }
        Ring r = RINGS.get();
        if (r == null || r.session != s) {
            r = newRing(s);
            if (r == null) {
                return null;
            }
        }
        r.enter(id);
        return r;
    }

    /** Before every return and in the catch-all handler, with what {@link #enter(int)} returned. */
    public static void exit(Ring r, int id) {
        if (r != null) {
            r.exit(id);
        }
    }

    // ------------------------------------------------------------ allocation counting
    // Instrumented code calls these right after each new / newarray / anewarray / multianewarray
    // (so only allocations that happened are counted), with the ring its method holds.

    /** After {@code new C}: one object of class {@code classId}. */
    public static void alloc(Ring r, int classId) {
        if (r != null) {
            r.alloc(classId);
        }
    }

    /** After {@code newarray}/{@code anewarray}: one array of {@code length} elements ({@code shape}: see Sizes). */
    public static void array(int length, Ring r, int classId, int shape) {
        if (r != null) {
            r.array(classId, Sizes.arrayBytes(length, shape));
        }
    }

    /** After {@code multianewarray}: the array and the {@code dims - 1} levels of arrays inside it. */
    public static void multiArray(Object array, Ring r, int classId, int dims) {
        if (r != null) {
            r.multiArray(array, classId, dims);
        }
    }

    // In a constructor before its super()/this() call the method has no ring yet (its enter is
    // recorded after that call): these look the thread's ring up. The count goes to the frame on
    // top then, the caller, which is also where that code's time goes.

    public static void allocHere(int classId) {
        alloc(current(), classId);
    }

    public static void arrayHere(int length, int classId, int shape) {
        array(length, current(), classId, shape);
    }

    public static void multiArrayHere(Object array, int classId, int dims) {
        multiArray(array, current(), classId, dims);
    }

    private static Ring current() {
        int s = session;
        if (s == 0) {
            return null;
        }
        Ring r = RINGS.get();
        if (r == null || r.session != s) {
            r = newRing(s);
        }
        return r;
    }

    private static Ring newRing(int s) {
        try {
            Sender sender = current;
            if (sender == null || sender.sessionId != s) {
                return null;
            }
            Thread self = Thread.currentThread();
            Ring r = sender.takePremade(self);
            if (r == null) {
                r = new Ring(sender, self);
                sender.register(r);
            }
            RINGS.set(r);
            return r;
        } catch (Throwable t) {
            return null;
        }
    }
}
