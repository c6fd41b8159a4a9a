package io.highrise.testapp;

/**
 * The allocation-counting test program: worker threads that create objects and arrays in known
 * numbers, through a throwing callee (the catch block allocates too), a constructor that throws
 * after its object was created, a constructor that allocates (objects, arrays, a multi-dimensional
 * array, a varargs array) before its super() call, recursion,
 * and every kind of array instruction (newarray of each primitive type, anewarray, and
 * multianewarray of two and three dimensions, one with an empty level). AgentTests knows the exact
 * count per (stack, class) for THREADS and ROUNDS (see {@code AgentTests.allocTruth}).
 * Usage: Allocs THREADS ROUNDS
 */
public class Allocs {
    public static final int DEPTH = 50;

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        Thread[] all = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            all[t] = new Thread(() -> work(rounds), "alloc-" + t);
            all[t].start();
        }
        for (Thread th : all) {
            th.join();
        }
        System.out.println("ALLOCS DONE");
    }

    static long work(int rounds) {
        long sum = 0;
        for (int r = 0; r < rounds; r++) {
            sum += make();
            sum += catcher();
            try {
                sum += new Fragile(true).value;
            } catch (Failure e) {
                sum++;
            }
            sum += new Sub().data.length;
            sum += recurse(DEPTH);
            sum += arrays();
        }
        return sum;
    }

    static int make() {
        Point a = new Point(1, 2);
        Point b = new Point(3, 4);
        Point c = new Point(5, 6);
        return a.x + b.x + c.x;
    }

    /** Its callee creates two points, an int[4] and a Failure, then throws; the catch creates a point. */
    static int catcher() {
        try {
            return allocThenThrow();
        } catch (Failure e) {
            return new Point(e.getMessage().length(), 0).x;
        }
    }

    static int allocThenThrow() {
        Point a = new Point(1, 1);
        Point b = new Point(2, 2);
        int[] c = new int[4];
        if (a.x + b.x + c.length > 0) {
            throw new Failure("thrown");
        }
        return 0;
    }

    static int recurse(int depth) {
        Point p = new Point(depth, depth);
        return depth <= 1 ? p.x : recurse(depth - 1) + 1;
    }

    static int arrays() {
        int[] a = new int[10];
        String[] b = new String[3];
        long[] c = new long[0];
        boolean[] d = new boolean[5];
        char[] e = new char[7];
        double[] f = new double[1];
        short[] g = new short[3];
        byte[] h = new byte[9];
        float[] i = new float[2];
        Point[][] j = new Point[2][];
        long[][] k = new long[2][3];
        byte[][][] l = new byte[3][0][];
        Object[][][] m = new Object[2][2][2];
        return a.length + b.length + c.length + d.length + e.length + f.length + g.length + h.length
                + i.length + j.length + k[1].length + l.length + m[1][1].length;
    }
}

class Point {
    final int x;
    final int y;

    Point() {
        this(0, 0);
    }

    Point(int x, int y) {
        this.x = x;
        this.y = y;
    }
}

class Failure extends RuntimeException {
    Failure() {
        this("");
    }

    Failure(String message) {
        super(message, null, false, false);
    }
}

/** Its constructor creates a point, then throws when asked: the Fragile was created anyway. */
class Fragile {
    final int value;

    Fragile() {
        this(false);
    }

    Fragile(boolean fail) {
        Point p = new Point(7, 7);
        if (fail) {
            throw new Failure("fragile");
        }
        value = p.x;
    }
}

class Base {
    final Point origin;
    final Object[] extras;

    Base(Point origin, Object... extras) {
        this.origin = origin;
        this.extras = extras;
    }
}

/**
 * Creates a point, a long[1][2] (multianewarray), a char[3] and the varargs Object[2] before its
 * super() call (counted for the caller: the constructor's frame begins after that call), and an
 * int[2] after it.
 */
class Sub extends Base {
    final int[] data = new int[2];

    Sub() {
        super(new Point(8, 8), new long[1][2], new char[3]);
    }
}
