package io.highrise.agent;

/**
 * The hooks instrumented methods call: {@code enter(id)} at method entry, {@code exit(ring, id)} before
 * every return and in a catch-all handler that rethrows. The cost when no session is live is one
 * volatile read; when live, a thread-local lookup, a shadow-stack push/pop, {@link System#nanoTime()}
 * and two array stores into the thread's own ring ({@link Ring}), which the sender thread drains.
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
