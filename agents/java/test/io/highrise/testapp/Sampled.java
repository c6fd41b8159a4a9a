package io.highrise.testapp;

/**
 * The sampled mode's test program: the main thread spends about three quarters of its time in
 * {@link #hot} and a quarter in {@link #cool} (the same loop, 3:1 rounds), while a second thread parks for good in {@link #stuck} (the paper's
 * leak: JFR never samples it). Args: SECONDS.
 */
public final class Sampled {
    private static volatile double sink;

    private Sampled() {}

    public static void main(String[] args) throws Exception {
        long seconds = Long.parseLong(args[0]);
        Thread parked = new Thread(Sampled::stuck, "parked");
        parked.setDaemon(true);
        parked.start();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < end) {
            hot(3_000_000);
            cool(1_000_000);
        }
        System.out.println("SAMPLED DONE");
    }

    /** Computes for `rounds` rounds (no call out: its own time, where JFR can walk its stack). */
    static void hot(long rounds) {
        double x = 1;
        for (long i = 0; i < rounds; i++) {
            x = x * 1.0000001 + 1e-9;
        }
        sink = x;
    }

    static void cool(long rounds) {
        double x = 1;
        for (long i = 0; i < rounds; i++) {
            x = x * 1.0000001 + 1e-9;
        }
        sink = x;
    }

    static void stuck() {
        synchronized (Sampled.class) {
            try {
                Sampled.class.wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
