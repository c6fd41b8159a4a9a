package io.highrise.bench;

/**
 * The cost of allocation counting: loops that allocate, run with and without the agent (and with
 * {@code alloc=off}) by agents/java/bench.sh; the difference in ns per allocation is what counting
 * one allocation costs the program's thread in JIT-compiled code. Every object escapes (stored in
 * a ring of slots) so the JIT cannot remove the allocation itself. Modes:
 * <ul>
 *   <li>{@code object}: {@code new Point(i)} in one frame (the pending window's hit path);</li>
 *   <li>{@code array}: {@code new int[8]} in one frame;</li>
 *   <li>{@code mixed}: three classes in turn ({@code Point}, {@code Pair}, {@code long[4]});</li>
 *   <li>{@code call}: one profiled call per allocation ({@code make(i)}: enter, new, exit), where
 *       each exit writes a memory record (the counts move with the event);</li>
 *   <li>{@code elided}: {@code new Point(i).x} that never escapes: the JIT removes the allocation
 *       (escape analysis) but not the counting, so on minus without is the counting alone.</li>
 * </ul>
 * With PAUSE_MS &gt; 0 the loop sleeps between reps: with short reps (a few thousand calls, under
 * the ring's 16384 slots) the sender always keeps up, and the figure is what the program's thread
 * pays (as CallBench's case 5).
 * Usage: AllocBench MODE ALLOCS_PER_REP REPS [PAUSE_MS]
 */
public class AllocBench {
    static final class Point {
        final int x;
        final int y;

        Point(int x, int y) {
            this.x = x;
            this.y = y;
        }
    }

    static final class Pair {
        final Object a;

        Pair(Object a) {
            this.a = a;
        }
    }

    static final Object[] SINK = new Object[1024];

    public static void main(String[] args) {
        String mode = args[0];
        long allocs = Long.parseLong(args[1]);
        int reps = Integer.parseInt(args[2]);
        long pauseMs = args.length > 3 ? Long.parseLong(args[3]) : 0;
        double[] per = new double[reps];
        long sink = 0;
        for (int r = 0; r < reps; r++) {
            long t0 = System.nanoTime();
            switch (mode) {
                case "object": sink += objects(allocs); break;
                case "array": sink += arrays(allocs); break;
                case "mixed": sink += mixed(allocs); break;
                case "call": sink += calls(allocs); break;
                case "elided": sink += elided(allocs); break;
                default: throw new IllegalArgumentException(mode);
            }
            per[r] = (double) (System.nanoTime() - t0) / allocs;
            if (pauseMs > 0) {
                try {
                    Thread.sleep(pauseMs);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
        double[] rest = java.util.Arrays.copyOfRange(per, Math.min(1, reps - 1), reps);
        java.util.Arrays.sort(rest);
        System.out.printf("median %.2f ns/alloc (min %.2f, max %.2f) over %d reps of %d allocations, mode %s [sink %d]%n",
                rest[rest.length / 2], rest[0], rest[rest.length - 1], rest.length, allocs, mode, sink & 1);
    }

    static long objects(long n) {
        Object[] sink = SINK;
        for (long i = 0; i < n; i++) {
            sink[(int) i & 1023] = new Point((int) i, 1);
        }
        return ((Point) sink[7]).x;
    }

    static long arrays(long n) {
        Object[] sink = SINK;
        for (long i = 0; i < n; i++) {
            int[] a = new int[8];
            a[0] = (int) i;
            sink[(int) i & 1023] = a;
        }
        return ((int[]) sink[7])[0];
    }

    static long mixed(long n) {
        Object[] sink = SINK;
        for (long i = 0; i < n; i += 3) {
            Point p = new Point((int) i, 2);
            sink[(int) i & 1023] = p;
            sink[(int) (i + 1) & 1023] = new Pair(p);
            sink[(int) (i + 2) & 1023] = new long[4];
        }
        return sink.length;
    }

    /** No escape: the JIT removes the allocations themselves, the counting calls stay. */
    static long elided(long n) {
        long sum = 0;
        for (long i = 0; i < n; i++) {
            sum += new Point((int) i, 1).x;
        }
        return sum;
    }

    static long calls(long n) {
        Object[] sink = SINK;
        for (long i = 0; i < n; i++) {
            sink[(int) i & 1023] = make((int) i);
        }
        return ((Point) sink[7]).x;
    }

    static Point make(int i) {
        return new Point(i, 3);
    }
}
