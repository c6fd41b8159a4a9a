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
    /** Per id: the smallest and largest line of the method's LineNumberTable (-1: none). */
    private static int[] firstLines = new int[1024];
    private static int[] lastLines = new int[1024];
    /** "binary.ClassName.method" -> ids (overloads, or the same class in several loaders). */
    private static final HashMap<String, int[]> BY_NAME = new HashMap<>();

    /** "internal/Name.method(descriptor)" -> the first id reserved for it (any loader): JFR's frames. */
    private static final HashMap<String, Integer> BY_SIGNATURE = new HashMap<>();

    private Methods() {}

    /**
     * The id of a defined method named as JFR names a frame's method: the class's internal name,
     * the method's name and descriptor; -1 when no profiled method is so named (or not yet
     * defined). One class defined by several loaders resolves to the first.
     */
    static synchronized int lookup(String signatureKey) {
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
