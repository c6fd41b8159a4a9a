package io.highrise.testapp;

/**
 * A thread that loses events and then goes quiet for good (the real game's event thread at game
 * over): a burst of tiny calls through 64-event buffers, so its last events, exits included, are
 * dropped, then it sleeps in code that is not profiled ({@link QuietSleeper}, excluded by the
 * test) until the program ends. Its profiled stack is empty then; without a Resync for the loss,
 * the viewer would keep the frames of its last recorded events on top to the end.
 * Usage: QuietLoss CALLS QUIET_MS
 */
public class QuietLoss {
    public static void main(String[] args) throws Exception {
        int calls = Integer.parseInt(args[0]);
        long quietMs = Long.parseLong(args[1]);
        Thread quiet = new Thread(new QuietSleeper(calls), "quiet");
        quiet.setDaemon(true);
        quiet.start();
        QuietSleeper.waitFor(quietMs);
        System.out.println("QUIET DONE");
    }

    static long burst(int calls) {
        long sum = 0;
        for (int i = 0; i < calls; i++) {
            sum += tiny(i);
        }
        return sum;
    }

    static int tiny(int i) {
        return i & 7;
    }
}
