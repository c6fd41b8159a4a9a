package app.util.log;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** Named counters. */
public final class Metrics {
    /** One counter. */
    public static final class Counter {
        private final AtomicLong value = new AtomicLong();

        public void add(long n) {
            value.addAndGet(n);
        }

        public long get() {
            return value.get();
        }
    }

    private static final ConcurrentHashMap<String, Counter> COUNTERS = new ConcurrentHashMap<>();

    private Metrics() {}

    public static Counter counter(String name) {
        return COUNTERS.computeIfAbsent(name, n -> new Counter());
    }

    public static String snapshot() {
        Map<String, Long> out = new TreeMap<>();
        for (Map.Entry<String, Counter> e : COUNTERS.entrySet()) {
            out.put(e.getKey(), e.getValue().get());
        }
        return out.toString();
    }
}
