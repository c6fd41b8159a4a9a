package io.highrise.testapp;

/**
 * mode=auto's test program: the main thread calls the small {@link #step} tens of millions of times
 * a second for SECONDS (more events than any agent can send), so the agent's default must drop its
 * probes and go on sampled. Args: SECONDS.
 */
public final class Busy {
    private static volatile long sink;

    private Busy() {}

    public static void main(String[] args) {
        long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L;
        long sum = 0;
        long rounds = 0;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 1_000_000; i++) {
                sum += step(i);
            }
            rounds++;
        }
        sink = sum;
        System.out.println("BUSY DONE " + rounds + " rounds");
    }

    /** Over 35 bytes of code: mode=auto leaves a smaller method (a trivial one) without probes. */
    static long step(int i) {
        long a = i * 31L;
        long b = (i >>> 3) ^ (i << 7);
        long c = a + b * 17L;
        return (c ^ (c >>> 11)) + (a & 0xff) - (b | 3);
    }
}
