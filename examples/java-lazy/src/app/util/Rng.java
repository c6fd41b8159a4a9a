package app.util;

/** A small deterministic xorshift generator. */
public final class Rng {
    private long state;

    public Rng(long seed) {
        state = seed == 0 ? 0x9E3779B97F4A7C15L : seed;
    }

    public Rng() {
        this(System.nanoTime());
    }

    public synchronized long nextLong() {
        long x = state;
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        state = x;
        return x;
    }

    public int nextInt(int bound) {
        return (int) Math.floorMod(nextLong(), (long) bound);
    }

    public float nextFloat() {
        return (nextLong() >>> 40) / (float) (1 << 24);
    }

    public void shuffle(int[] values) {
        for (int i = values.length - 1; i > 0; i--) {
            int j = nextInt(i + 1);
            int t = values[i];
            values[i] = values[j];
            values[j] = t;
        }
    }

    public <T> T pick(T[] values) {
        return values[nextInt(values.length)];
    }
}
