package io.highrise.testapp;

/** mode=auto's trivial methods, one rule per method (the agent's tests rewrite this class). */
public final class Trivial {
    static final String NAME = "trivial"; // a field with an attribute, for the class file's reader
    private final Object lock = new Object();
    private int value;

    /** Trivial: a field read. */
    public int getter() {
        return value;
    }

    /** Trivial: a call into the program and a branch forward. */
    public int calls(int i) {
        return i > 0 ? getter() + 1 : 0;
    }

    /** Trivial, unless allocations are counted. */
    public int[] allocates() {
        return new int[4];
    }

    /** A loop. */
    public int loop(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += i;
        }
        return s;
    }

    /** A lock. */
    public synchronized int locked() {
        return value;
    }

    /** A call that blocks. */
    public void sleeps() throws InterruptedException {
        Thread.sleep(1);
    }

    /** A monitor and a wait. */
    public void waits() throws InterruptedException {
        synchronized (lock) {
            lock.wait(1);
        }
    }

    /** More than 35 bytes of code. */
    public long big(int i) {
        long a = i * 31L;
        long b = (i >>> 3) ^ (i << 7);
        long c = a + b * 17L;
        return (c ^ (c >>> 11)) + (a & 0xff) - (b | 3);
    }
}
