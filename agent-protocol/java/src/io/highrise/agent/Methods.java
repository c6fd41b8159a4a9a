package io.highrise.agent;

import java.util.Arrays;
import java.util.HashMap;

/**
 * The method-id registry. Ids are dense from 0, stable for one (class loader, class, method,
 * descriptor) so a retransformed class keeps its ids. Definitions are kept for the life of the
 * JVM in append order, so a new session (a re-attach) can send them all again.
 */
final class Methods {
    static final int MAX_METHOD_ID = 1 << 24;

    private static final HashMap<String, Integer> IDS = new HashMap<>();
    private static MethodDef[] defs = new MethodDef[1024];
    private static int defCount;
    private static boolean[] defined = new boolean[1024];

    private Methods() {}

    /** The id for this key, assigned on first use; -1 when the id space is exhausted. */
    static synchronized int reserve(String key) {
        Integer id = IDS.get(key);
        if (id != null) {
            return id;
        }
        int next = IDS.size();
        if (next >= MAX_METHOD_ID) {
            return -1;
        }
        IDS.put(key, next);
        return next;
    }

    /** Publishes a definition (once per id). */
    static synchronized void define(MethodDef d) {
        if (d.id >= defined.length) {
            defined = Arrays.copyOf(defined, Math.max(defined.length * 2, d.id + 1));
        }
        if (defined[d.id]) {
            return;
        }
        defined[d.id] = true;
        if (defCount == defs.length) {
            defs = Arrays.copyOf(defs, defs.length * 2);
        }
        defs[defCount++] = d;
    }

    static synchronized int count() {
        return defCount;
    }

    /** Definitions [from, count()) in append order. */
    static synchronized MethodDef[] since(int from) {
        return Arrays.copyOfRange(defs, Math.min(from, defCount), defCount);
    }
}
