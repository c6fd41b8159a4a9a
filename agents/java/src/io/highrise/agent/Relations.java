package io.highrise.agent;

import java.util.Arrays;
import java.util.HashSet;

/**
 * The class diagram (protocol tag 13, {@code ClassRelations}), read from bytecode as classes
 * load: a class's superclass and interfaces, and its instance fields whose type (or, for arrays
 * and generic collections, element type) is a class of the program (one the agent's filter
 * instruments). Kept for the life of the JVM, like {@link Classes}, so a new session gets them
 * all; the {@link Sender} sends the new ones after the class definitions they name.
 */
final class Relations {
    private static final HashSet<String> SEEN = new HashSet<>();
    private static int[] from = new int[64];
    private static int[] to = new int[64];
    private static int[] kinds = new int[64];
    private static String[] fields = new String[64];
    private static boolean[] many = new boolean[64];
    private static int count;

    private Relations() {}

    /** Adds a relation between two reserved class ids (once). */
    static synchronized void add(int fromId, int toId, int kind, String field, boolean isMany) {
        if (fromId < 0 || toId < 0 || !SEEN.add(fromId + " " + toId + " " + kind + " " + field + " " + isMany)) {
            return;
        }
        if (count == from.length) {
            int n = count * 2;
            from = Arrays.copyOf(from, n);
            to = Arrays.copyOf(to, n);
            kinds = Arrays.copyOf(kinds, n);
            fields = Arrays.copyOf(fields, n);
            many = Arrays.copyOf(many, n);
        }
        from[count] = fromId;
        to[count] = toId;
        kinds[count] = kind;
        fields[count] = field;
        many[count] = isMany;
        count++;
    }

    static synchronized int count() {
        return count;
    }

    /**
     * Writes relations from {@code start} as ClassRelations frames of at most {@code perFrame},
     * up to the first that names a class id not below {@code defined} (its definition is not
     * sent yet: a class reserved, and a relation to it added, after the definitions were
     * sent); returns the index of the first relation not sent.
     */
    static synchronized int send(Wire wire, int start, int perFrame, int defined) {
        int end = start;
        while (end < count && from[end] < defined && to[end] < defined) {
            end++;
        }
        for (int i = start; i < end; i += perFrame) {
            int n = Math.min(perFrame, end - i);
            wire.classRelations(Arrays.copyOfRange(from, i, i + n), Arrays.copyOfRange(to, i, i + n),
                    Arrays.copyOfRange(kinds, i, i + n), Arrays.copyOfRange(fields, i, i + n),
                    Arrays.copyOfRange(many, i, i + n), n);
        }
        return end;
    }

    /**
     * The classes of the program a field refers to: from its descriptor ({@code Lx/Y;}, an
     * array of them: many) and its generic signature's type arguments
     * ({@code Ljava/util/List<Lx/Y;>;}: many Y). Calls {@code sink} with each internal name
     * the filter accepts and whether the field holds many of them.
     */
    static void fieldTargets(String descriptor, String signature, Options.Filter filter, Target sink) {
        int dims = 0;
        while (dims < descriptor.length() && descriptor.charAt(dims) == '[') {
            dims++;
        }
        if (descriptor.charAt(dims) != 'L') {
            return; // a primitive or an array of primitives
        }
        String element = descriptor.substring(dims + 1, descriptor.length() - 1);
        if (filter.accepts(element)) {
            sink.target(element, dims > 0);
            return;
        }
        if (signature == null) {
            return;
        }
        // A container of the program's classes: every class named inside the type arguments.
        int open = signature.indexOf('<');
        if (open < 0) {
            return;
        }
        for (int i = open; i < signature.length(); i++) {
            if (signature.charAt(i) != 'L') {
                continue;
            }
            int end = i + 1;
            while (end < signature.length() && ";<".indexOf(signature.charAt(end)) < 0) {
                end++;
            }
            String name = signature.substring(i + 1, end);
            if (filter.accepts(name)) {
                sink.target(name, true);
            }
            i = end;
        }
    }

    interface Target {
        void target(String internalName, boolean isMany);
    }
}
