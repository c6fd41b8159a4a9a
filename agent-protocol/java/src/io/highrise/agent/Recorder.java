package io.highrise.agent;

/**
 * The hooks instrumented methods call: {@code enter(id)} at method entry, {@code exit(id)} before
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

    public static void enter(int id) {
        int s = session;
        if (s == 0) {
            return;
        }
        Ring r = RINGS.get();
        if (r == null || r.session != s) {
            r = newRing(s);
            if (r == null) {
                return;
            }
        }
        r.enter(id);
    }

    public static void exit(int id) {
        int s = session;
        if (s == 0) {
            return;
        }
        Ring r = RINGS.get();
        if (r == null || r.session != s) {
            // This thread's frames began before this session: nothing of them was recorded.
            return;
        }
        r.exit(id);
    }

    private static Ring newRing(int s) {
        try {
            Sender sender = current;
            if (sender == null || sender.sessionId != s) {
                return null;
            }
            Ring r = new Ring(sender, Thread.currentThread());
            RINGS.set(r);
            sender.register(r);
            return r;
        } catch (Throwable t) {
            return null;
        }
    }
}
