package io.highrise.agent;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Frames that were already running when a session began (attach, or a re-attach after the viewer
 * went away). Their code records nothing in this session (the bytecode a frame runs is the one
 * it started with; a frame from an earlier session hands its exit to that session's dead buffer),
 * so without help they would be invisible, and once the session shows them, their return would
 * go unnoticed. This class:
 * <ul>
 *   <li>{@link #capture}: right before the session starts (after the loaded classes were
 *       retransformed, so every profiled method has an id), each live thread's stack, restricted
 *       to profiled methods and mapped to ids, becomes that thread's base (its ring is made
 *       then, and the sender sends it as the thread's first Resync);</li>
 *   <li>{@link #alive}: the rule that says how many base frames still run, from a later look at
 *       the thread's stack and its shadow stack (the frames recorded in this session).</li>
 * </ul>
 * The looks are taken by the sender (while the thread makes no events: its stack is then the one
 * its drained events describe) or, for a thread that keeps making events, by the thread itself
 * in a hook at the sender's request (its own stack and shadow stack agree exactly there); either
 * way the Resync that drops returned frames lands in order with the thread's events.
 *
 * <p>Stack frames name a class, a method name and a line, not a descriptor; overloads are told
 * apart by the line ranges recorded at instrumentation ({@link Methods#resolve}). A frame that
 * stays ambiguous (no line numbers, or a class defined by several loaders) is left out: it is not
 * shown, its time counts for the nearest profiled caller below it, and since it is left out the
 * same way at every look, nothing drifts.
 */
final class PreSession {
    private static final StackWalker WALKER = StackWalker.getInstance();

    private PreSession() {}

    /** The profiled frames of every live thread but the caller's and the agent's, outermost first. */
    static Map<Thread, int[]> capture() {
        Map<Thread, int[]> out = new LinkedHashMap<>();
        Map<Thread, StackTraceElement[]> all;
        try {
            all = Thread.getAllStackTraces();
        } catch (Throwable t) {
            return out;
        }
        Thread self = Thread.currentThread();
        for (Map.Entry<Thread, StackTraceElement[]> e : all.entrySet()) {
            Thread t = e.getKey();
            if (t == self || !t.isAlive() || t.getName().startsWith("highrise-agent")) {
                continue;
            }
            int[] ids = resolve(e.getValue());
            if (ids.length > 0) {
                out.put(t, ids);
            }
        }
        return out;
    }

    /** A stack trace (innermost first) as profiled method ids, outermost first. */
    static int[] resolve(StackTraceElement[] trace) {
        int[] ids = new int[trace.length];
        int n = 0;
        for (int i = trace.length - 1; i >= 0; i--) {
            StackTraceElement f = trace[i];
            int id = Methods.resolve(f.getClassName(), f.getMethodName(), f.getLineNumber());
            if (id >= 0) {
                ids[n++] = id;
            }
        }
        return Arrays.copyOf(ids, n);
    }

    /** The calling thread's profiled frames, outermost first (the agent's own frames resolve to none). */
    static int[] currentStack() {
        List<StackWalker.StackFrame> frames = WALKER.walk(s -> s.collect(java.util.stream.Collectors.toList()));
        int[] ids = new int[frames.size()];
        int n = 0;
        for (int i = frames.size() - 1; i >= 0; i--) {
            StackWalker.StackFrame f = frames.get(i);
            int id = Methods.resolve(f.getClassName(), f.getMethodName(), f.getLineNumber());
            if (id >= 0) {
                ids[n++] = id;
            }
        }
        return Arrays.copyOf(ids, n);
    }

    /**
     * How many of the first {@code k} base frames still run, given the thread's profiled frames
     * {@code s} (outermost first) and its shadow stack {@code r[0..rDepth)} as of the same moment:
     * the largest {@code k2 <= k} such that {@code s} starts with {@code base[0..k2)} and the
     * shadow stack is a subsequence of the rest of {@code s} (the rest may hold more frames:
     * frames that began between the look at the stacks and the session's start record nothing,
     * and a frame shows on the stack a moment before its enter is recorded). -1 when no
     * {@code k2} fits (a look that does not match: try again later).
     */
    static int alive(int[] s, int[] base, int k, int[] r, int rDepth) {
        int lcp = 0;
        int max = Math.min(k, s.length);
        while (lcp < max && s[lcp] == base[lcp]) {
            lcp++;
        }
        for (int k2 = lcp; k2 >= 0; k2--) {
            if (isSubsequence(r, rDepth, s, k2)) {
                return k2;
            }
        }
        return -1;
    }

    private static boolean isSubsequence(int[] r, int rDepth, int[] s, int from) {
        int j = from;
        for (int i = 0; i < rDepth; i++) {
            while (j < s.length && s[j] != r[i]) {
                j++;
            }
            if (j == s.length) {
                return false;
            }
            j++;
        }
        return true;
    }

    /** base[0..k) followed by stack[0..depth). */
    static int[] join(int[] base, int k, int[] stack, int depth) {
        int[] out = Arrays.copyOf(base, k + depth);
        System.arraycopy(stack, 0, out, k, depth);
        return out;
    }

    /** For tests: the rule on lists. */
    static int alive(List<Integer> s, List<Integer> base, List<Integer> r) {
        return alive(toArray(s), toArray(base), base.size(), toArray(r), r.size());
    }

    private static int[] toArray(List<Integer> l) {
        int[] a = new int[l.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = l.get(i);
        }
        return a;
    }

    static List<Integer> list(int... v) {
        List<Integer> out = new ArrayList<>();
        for (int x : v) {
            out.add(x);
        }
        return out;
    }
}
