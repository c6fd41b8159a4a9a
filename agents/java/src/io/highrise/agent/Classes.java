package io.highrise.agent;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;

/**
 * The class-id registry for allocation counting (protocol version 2's {@code DefineClasses}).
 * Ids are dense from 0, one per JVM descriptor of what a {@code new} creates ({@code a/b/C} for
 * objects, {@code [I}, {@code [[Ljava/lang/String;} for arrays), assigned when a class that
 * allocates one is instrumented, and kept for the life of the JVM so a new session can send them
 * all again. Naming (SPEC): {@code java.util} / {@code ArrayList}, {@code ""} / {@code int[]},
 * {@code main.game} / {@code Piece[][]}, nested classes with {@code $}.
 *
 * <p>An id names a class by name, whatever loader defined it: two loaders' {@code com.x.Foo}
 * share an id (and the size measured for the first one). An object class's size is measured on
 * its first counted allocation ({@link #objectSize}), by then the class is loaded and initialised,
 * through the loaders of the classes that allocate it.
 */
final class Classes {
    static final int MAX_CLASS_ID = 1 << 24;

    private static final HashMap<String, Integer> IDS = new HashMap<>();
    private static ClassDef[] defs = new ClassDef[256];
    private static int count;
    /** Per id: the binary name to resolve (objects), or null (arrays). */
    private static String[] binaryNames = new String[256];
    /** Per id: loaders that can resolve it (weak), objects only. */
    private static List<List<WeakReference<ClassLoader>>> loaders = new ArrayList<>();
    /** Per id, for arrays: the shape (see {@link Sizes}) and the component's id (-1: not an array of arrays). */
    private static int[] shapes = new int[256];
    private static int[] components = new int[256];
    /** Per id, objects: the shallow size, -1 until measured. Arrays: 0 (their bytes come from the length). */
    private static volatile long[] sizes = new long[256];

    private Classes() {}

    /**
     * The id of what {@code new}/{@code newarray}/... with this descriptor creates, assigned on
     * first use; -1 when the id space is exhausted. {@code loader} is the loader of the class
     * that allocates it (used to resolve the class for its size).
     */
    static synchronized int reserve(String descriptor, ClassLoader loader) {
        Integer known = IDS.get(descriptor);
        if (known != null) {
            if (binaryNames[known] != null) {
                addLoader(known, loader);
            }
            return known;
        }
        int component = -1;
        if (descriptor.startsWith("[[")) {
            component = reserve(descriptor.substring(1), loader);
            if (component < 0) {
                return -1;
            }
        }
        int id = count;
        if (id >= MAX_CLASS_ID) {
            return -1;
        }
        if (id == defs.length) {
            int n = id * 2;
            defs = Arrays.copyOf(defs, n);
            binaryNames = Arrays.copyOf(binaryNames, n);
            shapes = Arrays.copyOf(shapes, n);
            components = Arrays.copyOf(components, n);
            sizes = Arrays.copyOf(sizes, n);
        }
        String element = descriptor;
        int dims = 0;
        while (element.startsWith("[")) {
            element = element.substring(1);
            dims++;
        }
        String packageName;
        String name;
        if (dims > 0 && element.length() == 1) {
            packageName = "";
            name = primitiveName(element.charAt(0));
        } else {
            String internal = dims > 0 ? element.substring(1, element.length() - 1) : element;
            int slash = internal.lastIndexOf('/');
            packageName = slash < 0 ? "" : internal.substring(0, slash).replace('/', '.');
            name = internal.substring(slash + 1);
        }
        StringBuilder brackets = new StringBuilder(name);
        for (int i = 0; i < dims; i++) {
            brackets.append("[]");
        }
        defs[id] = new ClassDef(id, packageName, brackets.toString(), dims > 0 ? ClassDef.ARRAY : ClassDef.CLASS);
        components[id] = component;
        List<WeakReference<ClassLoader>> refs = new ArrayList<>(1);
        loaders.add(refs);
        long[] s = sizes;
        if (dims > 0) {
            binaryNames[id] = null;
            shapes[id] = Sizes.shapeOf(descriptor.charAt(1));
            s[id] = 0;
        } else {
            binaryNames[id] = descriptor.replace('/', '.');
            s[id] = -1;
            refs.add(new WeakReference<>(loader));
        }
        sizes = s; // publish
        count = id + 1;
        IDS.put(descriptor, id);
        return id;
    }

    private static void addLoader(int id, ClassLoader loader) {
        List<WeakReference<ClassLoader>> refs = loaders.get(id);
        for (int i = refs.size() - 1; i >= 0; i--) {
            ClassLoader l = refs.get(i).get();
            if (l == loader) {
                return;
            }
            if (l == null && loader != null) {
                refs.remove(i);
            }
        }
        if (refs.size() < 8) {
            refs.add(new WeakReference<>(loader));
        }
    }

    static String primitiveName(char c) {
        switch (c) {
            case 'Z': return "boolean";
            case 'B': return "byte";
            case 'C': return "char";
            case 'S': return "short";
            case 'I': return "int";
            case 'J': return "long";
            case 'F': return "float";
            default: return "double";
        }
    }

    /**
     * An object class's shallow size (measured once, on the first call), 0 for arrays and for a
     * class that cannot be measured. Called on an allocating thread the first time its pending
     * window meets the class: the class is loaded and initialised by then (its {@code new} ran).
     */
    static long objectSize(int id) {
        long[] s = sizes;
        long size = id < s.length ? s[id] : -1;
        return size >= 0 ? size : measure(id);
    }

    private static long measure(int id) {
        String name;
        List<ClassLoader> candidates = new ArrayList<>();
        synchronized (Classes.class) {
            long known = sizes[id];
            if (known >= 0) {
                return known;
            }
            name = binaryNames[id];
            for (WeakReference<ClassLoader> r : loaders.get(id)) {
                ClassLoader l = r.get();
                if (l != null) {
                    candidates.add(l);
                }
            }
        }
        long size = 0;
        for (ClassLoader l : candidates) {
            try {
                // Loaded (its `new` ran), so this finds it in the loader's dictionary.
                size = Sizes.objectSize(Class.forName(name, false, l));
                if (size > 0) {
                    break;
                }
            } catch (Throwable t) {
                // try the next loader
            }
        }
        synchronized (Classes.class) {
            sizes[id] = size;
        }
        return size;
    }

    static synchronized int shape(int id) {
        return shapes[id];
    }

    /** For an array of arrays: the id of its component type (reserved with it); else -1. */
    static synchronized int component(int id) {
        return components[id];
    }

    /** The id of a descriptor already reserved ({@code a/b/C}, {@code [I}), or -1. */
    static synchronized int idOf(String descriptor) {
        Integer known = IDS.get(descriptor);
        return known == null ? -1 : known;
    }

    static synchronized int count() {
        return count;
    }

    /** Definitions [from, count()) in id order. */
    static synchronized ClassDef[] since(int from) {
        return Arrays.copyOfRange(defs, Math.min(from, count), count);
    }
}
