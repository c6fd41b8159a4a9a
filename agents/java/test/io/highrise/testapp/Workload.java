package io.highrise.testapp;

import java.util.ArrayList;
import java.util.List;

/**
 * The agent's test program: worker threads doing recursion, nested and inner classes, lambdas,
 * constructors, a static initialiser and exceptions thrown and caught across several frames; one
 * more thread dies of an uncaught exception. Every call count is fixed by the arguments
 * (threads, rounds) so the test can check the probe's counts exactly; see {@link #expected}.
 * Usage: Workload THREADS ROUNDS
 */
public class Workload {
    static final int FIB_N = 12;
    static final int THROW_DEPTH = 5;

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> worker(rounds), "worker-" + t);
            all.add(th);
            th.start();
        }
        Thread crasher = new Thread(Crasher::run, "crasher");
        crasher.setUncaughtExceptionHandler((th, e) -> System.out.println("UNCAUGHT " + e.getMessage()));
        all.add(crasher);
        crasher.start();
        for (Thread th : all) {
            th.join();
        }
        System.out.println("WORKLOAD DONE " + Calc.TABLE.length);
    }

    static long worker(int rounds) {
        long sum = 0;
        for (int r = 0; r < rounds; r++) {
            sum += Calc.fib(FIB_N);
            sum += Thrower.catcher();
            sum += Thrower.viaFinally();
            Outer outer = new Outer(r);
            Outer.Inner inner = outer.new Inner();
            sum += inner.work(r);
            sum += Outer.Nested.compute(new long[] {r, 1, 2});
            Runnable lambda = () -> Calc.square(3);
            lambda.run();
        }
        return sum;
    }

    /** Expected enters per qualified name for THREADS, ROUNDS (see main). */
    public static java.util.Map<String, Long> expected(int threads, int rounds) {
        java.util.Map<String, Long> m = new java.util.TreeMap<>();
        long calls = (long) threads * rounds;
        String p = "io.highrise.testapp.";
        m.put(p + "Workload.main", 1L);
        m.put(p + "Workload.worker", (long) threads);
        m.put(p + "Calc.<clinit>", 1L);
        m.put(p + "Calc.build", 1L);
        m.put(p + "Calc.fib", calls * fibCalls(FIB_N));
        // catcher: level(5..0); viaFinally: level(2..0)
        m.put(p + "Thrower.catcher", calls);
        m.put(p + "Thrower.viaFinally", calls);
        m.put(p + "Thrower.level", calls * ((THROW_DEPTH + 1) + 3));
        m.put(p + "Outer.<init>", calls);
        m.put(p + "Outer$Inner.<init>", calls);
        m.put(p + "Outer$Inner.work", calls);
        m.put(p + "Outer$Nested.compute", calls);
        m.put(p + "Calc.square", calls);
        m.put(p + "Crasher.run", 1L);
        m.put(p + "Crasher.deep", 4L);
        return m;
    }

    public static long fibCalls(int n) {
        return n < 2 ? 1 : 1 + fibCalls(n - 1) + fibCalls(n - 2);
    }
}

class Calc {
    static final int[] TABLE = build();

    static int[] build() {
        return new int[] {1, 2, 3};
    }

    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static int square(int x) {
        return x * x;
    }
}

class TestFailure extends RuntimeException {
    TestFailure(String message) {
        super(message, null, false, false);
    }
}

class Thrower {
    static int level(int depth) {
        if (depth == 0) {
            throw new TestFailure("bottom");
        }
        return level(depth - 1) + 1;
    }

    static int catcher() {
        try {
            return level(Workload.THROW_DEPTH);
        } catch (TestFailure e) {
            return 1;
        }
    }

    static int viaFinally() {
        int[] cleaned = {0};
        try {
            try {
                return level(2);
            } finally {
                cleaned[0]++;
            }
        } catch (TestFailure e) {
            return cleaned[0];
        }
    }
}

class Outer {
    final int base;

    Outer(int base) {
        this.base = base;
    }

    class Inner {
        int work(int x) {
            return base + x;
        }
    }

    static class Nested {
        static long compute(long[] values) {
            long s = 0;
            for (long v : values) {
                s += v;
            }
            return s;
        }
    }
}

class Crasher {
    static void run() {
        deep(3);
    }

    static int deep(int n) {
        if (n == 0) {
            throw new IllegalStateException("crasher gave up");
        }
        return deep(n - 1) + 1;
    }
}
