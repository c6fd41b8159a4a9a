package io.highrise.agent;

import java.util.Arrays;
import java.util.HashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

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
    /** Per id: the smallest and largest line of the method's LineNumberTable (-1: none). */
    private static int[] firstLines = new int[1024];
    private static int[] lastLines = new int[1024];
    /** "binary.ClassName.method" -> ids (overloads, or the same class in several loaders). */
    private static final HashMap<String, int[]> BY_NAME = new HashMap<>();

    /** "internal/Name.method(descriptor)" -> the first id reserved for it (any loader): JFR's frames. */
    private static final HashMap<String, Integer> BY_SIGNATURE = new HashMap<>();

    /**
     * The sampled mode's classes not read yet, by internal name: a class is read for its methods
     * the first time a stack names it, or in the background at a bounded rate ({@link #readSome}),
     * so the program's thread pays a queue's add per class. Measured on Maven (1500
     * modules, about 3,700 classes loaded): reading every class as it loads cost 0.2x of the run,
     * on the program's thread or (as much, on two cores) beside it.
     */
    private static final ConcurrentHashMap<String, Unread> UNREAD = new ConcurrentHashMap<>();
    private static final ConcurrentLinkedQueue<String> UNREAD_ORDER = new ConcurrentLinkedQueue<>();
    /** Class-file bytes waiting in {@link #UNREAD}, and the most that may wait. */
    private static final AtomicLong UNREAD_BYTES = new AtomicLong();
    static final long MAX_UNREAD_BYTES = 64L << 20;

    /** A class waiting to be read; {@code next}: the same name from another loader. */
    private static final class Unread {
        final Runnable define;
        final int bytes;
        final Unread next;

        Unread(Runnable define, int bytes, Unread next) {
            this.define = define;
            this.bytes = bytes;
            this.next = next;
        }
    }

    private Methods() {}

    /**
     * Keeps a class (its internal name, its class file's size) to be read ({@code define}) when a
     * stack first names it; false when too many bytes wait already (the caller reads it now).
     */
    static boolean later(String internalName, int bytes, Runnable define) {
        if (UNREAD_BYTES.addAndGet(bytes) > MAX_UNREAD_BYTES) {
            UNREAD_BYTES.addAndGet(-bytes);
            return false;
        }
        UNREAD.compute(internalName, (name, waiting) -> new Unread(define, bytes, waiting));
        UNREAD_ORDER.add(internalName);
        return true;
    }

    /**
     * Reads waiting classes, oldest first, for about {@code budgetNanos}, so a long run's city
     * still gets every loaded class at a small, bounded cost beside the program.
     */
    static synchronized void readSome(long budgetNanos) {
        long until = System.nanoTime() + budgetNanos;
        String name;
        while (System.nanoTime() < until && (name = UNREAD_ORDER.poll()) != null) {
            settle(name);
        }
    }

    /** Reads the class of that internal name if it waits unread (under the registry's lock). */
    private static void settle(String internalName) {
        for (Unread u = UNREAD.remove(internalName); u != null; u = u.next) {
            UNREAD_BYTES.addAndGet(-u.bytes);
            u.define.run();
        }
    }

    /**
     * The id of a defined method named as JFR names a frame's method: the class's internal name,
     * the method's name and descriptor; -1 when no profiled method is so named (or not yet
     * defined). One class defined by several loaders resolves to the first.
     */
    static synchronized int lookup(String signatureKey) {
        if (!UNREAD.isEmpty()) { // no string built per frame once every class is read
            settle(signatureKey.substring(0, signatureKey.lastIndexOf('.', signatureKey.indexOf('('))));
        }
        Integer id = BY_SIGNATURE.get(signatureKey);
        return id != null && id < defined.length && defined[id] ? id : -1;
    }

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
        BY_SIGNATURE.putIfAbsent(key.substring(key.indexOf(':') + 1), next);
        return next;
    }

    /** Publishes a definition (once per id); no line range known. */
    static void define(MethodDef d) {
        define(d, d.line, d.line);
    }

    /**
     * Publishes a definition (once per id) with the range of lines its code covers, which tells
     * overloads apart when a stack trace names a method ({@link #resolve}).
     */
    static synchronized void define(MethodDef d, int firstLine, int lastLine) {
        if (d.id >= defined.length) {
            int n = Math.max(defined.length * 2, d.id + 1);
            defined = Arrays.copyOf(defined, n);
            firstLines = Arrays.copyOf(firstLines, n);
            lastLines = Arrays.copyOf(lastLines, n);
        }
        if (defined[d.id]) {
            return;
        }
        defined[d.id] = true;
        firstLines[d.id] = firstLine;
        lastLines[d.id] = lastLine;
        String key = nameKey(d.packageName.isEmpty() ? d.className : d.packageName + "." + d.className,
                d.methodName);
        int[] ids = BY_NAME.get(key);
        if (ids == null) {
            ids = new int[] {d.id};
        } else {
            ids = Arrays.copyOf(ids, ids.length + 1);
            ids[ids.length - 1] = d.id;
        }
        BY_NAME.put(key, ids);
        if (defCount == defs.length) {
            defs = Arrays.copyOf(defs, defs.length * 2);
        }
        defs[defCount++] = d;
    }

    static String nameKey(String binaryClassName, String method) {
        return binaryClassName + "." + method;
    }

    /**
     * The id of the profiled method a stack frame is in, from what a stack trace tells: the class's
     * binary name ({@code a.b.Outer$Inner}), the method's name and the frame's current line.
     * One method of that name: its id. Several (overloads, or one class defined by several
     * loaders): the one whose line range holds the line; -1 when none or more than one does
     * (no line numbers, ranges that overlap) or when no profiled method has that name.
     */
    static synchronized int resolve(String binaryClassName, String method, int line) {
        if (!UNREAD.isEmpty()) {
            settle(binaryClassName.replace('.', '/'));
        }
        int[] ids = BY_NAME.get(nameKey(binaryClassName, method));
        if (ids == null) {
            return -1;
        }
        if (ids.length == 1) {
            return ids[0];
        }
        if (line < 0) {
            return -1;
        }
        int found = -1;
        for (int id : ids) {
            if (firstLines[id] >= 0 && firstLines[id] <= line && line <= lastLines[id]) {
                if (found >= 0) {
                    return -1;
                }
                found = id;
            }
        }
        return found;
    }

    static synchronized int count() {
        return defCount;
    }

    /** Definitions [from, count()) in append order. */
    static synchronized MethodDef[] since(int from) {
        return Arrays.copyOfRange(defs, Math.min(from, defCount), defCount);
    }
}
