package io.highrise.testapp;

/** Not profiled in the test of {@link QuietLoss}: the quiet thread's body, and where it waits. */
public final class QuietSleeper implements Runnable {
    private final int calls;

    QuietSleeper(int calls) {
        this.calls = calls;
    }

    @Override
    public void run() {
        long sum = QuietLoss.burst(calls);
        if (sum < 0) {
            System.out.println(sum);
        }
        waitFor(Long.MAX_VALUE);
    }

    static void waitFor(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
