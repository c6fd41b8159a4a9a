package io.highrise.bench;

/**
 * The agent's cost benchmark: a tight loop of small calls (one static method, a few instructions).
 * Run it with and without the agent (agents/java/bench.sh does): the difference in ns per
 * call is what one instrumented call costs through the whole pipeline (enter + exit hooks, ring,
 * and, on the other core, the sender encoding and writing to the listener).
 * With PAUSE_MS &gt; 0 the loop sleeps between reps: with reps of a few thousand calls (under the
 * agent's 16384-event ring) this measures what the calling thread pays per call while the sender
 * keeps up (no drops, no back-pressure), the sender's own work happening in the pauses.
 * MODE "clock" replaces each call by two System.nanoTime() reads: the floor of any design that
 * timestamps enter and exit. MODE "pace:R" paces the loop at R million events per second (two
 * events per call; spinning while ahead, as a busy program would be busy): the sustained rate
 * one thread can stream without drops (the probe counts them).
 * Usage: CallBench CALLS_PER_REP REPS [THREADS] [PAUSE_MS] [MODE]
 */
public class CallBench {
    static int leaf(int x) {
        return (x * 31) ^ (x >>> 3);
    }

    public static void main(String[] args) throws Exception {
        long calls = Long.parseLong(args[0]);
        int reps = Integer.parseInt(args[1]);
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        long pauseMs = args.length > 3 ? Long.parseLong(args[3]) : 0;
        boolean quiet = reps > 20;
        clockOnly = args.length > 4 && args[4].equals("clock");
        if (args.length > 4 && args[4].startsWith("pace:")) {
            nsPerCall = 2e3 / Double.parseDouble(args[4].substring(5));
        }
        double[] perCall = new double[reps];
        long sink = 0;
        for (int r = 0; r < reps; r++) {
            long ns;
            if (threads == 1) {
                long t0 = System.nanoTime();
                sink += loop(calls);
                ns = System.nanoTime() - t0;
            } else {
                long[] sums = new long[threads];
                Thread[] ts = new Thread[threads];
                long t0 = System.nanoTime();
                for (int t = 0; t < threads; t++) {
                    final int slot = t;
                    ts[t] = new Thread(() -> sums[slot] = loop(calls), "bench-" + t);
                    ts[t].start();
                }
                for (Thread t : ts) {
                    t.join();
                }
                ns = System.nanoTime() - t0;
                for (long s : sums) {
                    sink += s;
                }
            }
            perCall[r] = (double) ns / calls; // wall time per call of one thread
            if (!quiet) {
                System.out.printf("rep %d: %.1f ns/call%n", r, perCall[r]);
            }
            if (pauseMs > 0) {
                Thread.sleep(pauseMs);
            }
        }
        double[] sorted = perCall.clone();
        java.util.Arrays.sort(sorted);
        // The first rep includes JIT warm-up; the median of the rest is the figure.
        double[] rest = java.util.Arrays.copyOfRange(perCall, Math.min(1, reps - 1), reps);
        java.util.Arrays.sort(rest);
        System.out.printf("median %.1f ns/call (min %.1f, max %.1f) over %d reps of %d calls x %d thread(s) [sink %d]%n",
                rest[rest.length / 2], sorted[0], sorted[sorted.length - 1], reps - 1, calls, threads, sink & 1);
    }

    static boolean clockOnly;
    /** With "pace:R": the loop's budget per call in ns (0: unpaced). */
    static double nsPerCall;

    static long loop(long calls) {
        if (clockOnly) {
            return clockLoop(calls);
        }
        if (nsPerCall > 0) {
            return pacedLoop(calls);
        }
        long sum = 0;
        for (long i = 0; i < calls; i++) {
            sum += leaf((int) i);
        }
        return sum;
    }

    static long pacedLoop(long calls) {
        long sum = 0;
        long t0 = System.nanoTime();
        for (long i = 0; i < calls; i++) {
            sum += leaf((int) i);
            if ((i & 255) == 255) {
                long due = t0 + (long) (i * nsPerCall);
                while (System.nanoTime() < due) {
                    Thread.onSpinWait();
                }
            }
        }
        return sum;
    }

    static long clockLoop(long calls) {
        long sum = 0;
        for (long i = 0; i < calls; i++) {
            sum += System.nanoTime() ^ System.nanoTime();
        }
        return sum;
    }
}
