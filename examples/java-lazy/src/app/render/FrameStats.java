package app.render;

import java.util.Arrays;

/** Frame times of the last N frames. */
public final class FrameStats {
    private final long[] times;
    private int count;

    public FrameStats(int frames) {
        times = new long[frames];
    }

    public void record(long nanos) {
        times[count % times.length] = nanos;
        count++;
    }

    public double averageMillis() {
        int n = Math.min(count, times.length);
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += times[i];
        }
        return n == 0 ? 0 : s / 1e6 / n;
    }

    public long percentile(double p) {
        int n = Math.min(count, times.length);
        long[] sorted = Arrays.copyOf(times, n);
        Arrays.sort(sorted);
        return n == 0 ? 0 : sorted[(int) Math.min(n - 1, p * n)];
    }

    public void reset() {
        count = 0;
    }
}
