package io.highrise.agent;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

/**
 * Shallow sizes of what instrumented code allocates, measured on this JVM (so compressed oops,
 * compressed class pointers and object alignment are whatever the JVM runs with):
 * <ul>
 *   <li>an array: {@code align(base + length * scale)}, with each element type's base offset and
 *       scale from {@code Unsafe.arrayBaseOffset/arrayIndexScale} (else measured with
 *       {@link Instrumentation#getObjectSize} on small arrays) and the alignment measured once at
 *       start. The three numbers are packed into one int, a <em>shape</em>, that the bytecode
 *       passes as a constant, so an array's bytes cost a multiply and an add;</li>
 *   <li>an object: {@link Instrumentation#getObjectSize} of an instance made without running a
 *       constructor ({@code Unsafe.allocateInstance}), once per class, on the first allocation; a
 *       class with a finalizer (such an instance would be finalized) is measured from its field
 *       offsets instead. 0 (not measured) when neither works.</li>
 * </ul>
 */
final class Sizes {
    private static Instrumentation inst;
    private static Object unsafe;
    private static Method allocateInstance;
    private static Method objectFieldOffset;

    /** Alignment of objects minus one (7 for the usual 8 bytes). */
    static int alignMask = 7;
    /** Where the Unsafe numbers came from (for verbose logs and the README's claims). */
    static String method = "defaults (no Instrumentation)";

    // Shapes per element type: base | scale << 8 | alignMask << 16.
    private static int[] primitiveShapes = new int[128];
    private static int referenceShape = 16 | 4 << 8 | 7 << 16;

    private Sizes() {}

    /** Whether this JDK (24+) prints a warning for Unsafe's memory-access methods. */
    static final boolean MEMORY_ACCESS_WARNS = Runtime.version().feature() >= 24;

    static {
        for (char c : "ZBCSIJFD".toCharArray()) {
            primitiveShapes[c] = 16 | primitiveSize(c) << 8 | 7 << 16;
        }
    }

    /** Measures everything that can be measured up front; called once before any transform. */
    static synchronized void init(Instrumentation instrumentation) {
        if (inst != null || instrumentation == null) {
            return;
        }
        inst = instrumentation;
        try {
            Class<?> u = Class.forName("sun.misc.Unsafe");
            Field f = u.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            unsafe = f.get(null);
            allocateInstance = u.getMethod("allocateInstance", Class.class);
            // JDK 24+ warns on stderr at the first call of any of Unsafe's memory-access methods
            // (JEP 498): there the array numbers are measured and field offsets not used.
            objectFieldOffset = MEMORY_ACCESS_WARNS ? null : u.getMethod("objectFieldOffset", Field.class);
        } catch (Throwable t) {
            unsafe = null;
        }
        // Alignment: the gcd of the sizes of byte arrays of every small length.
        long g = 0;
        for (int n = 0; n <= 64; n++) {
            g = gcd(g, inst.getObjectSize(new byte[n]));
        }
        alignMask = g >= 8 && Long.bitCount(g) == 1 && g <= 256 ? (int) g - 1 : 7;
        Method baseOffset = null;
        Method indexScale = null;
        if (unsafe != null && !MEMORY_ACCESS_WARNS) {
            try {
                baseOffset = unsafe.getClass().getMethod("arrayBaseOffset", Class.class);
                indexScale = unsafe.getClass().getMethod("arrayIndexScale", Class.class);
            } catch (Throwable t) {
                baseOffset = null;
            }
        }
        Object[] samples = {new boolean[0], new byte[0], new char[0], new short[0], new int[0],
            new long[0], new float[0], new double[0], new Object[0]};
        String kinds = "ZBCSIJFDL";
        boolean exact = true;
        for (int k = 0; k < samples.length; k++) {
            Class<?> type = samples[k].getClass();
            int base;
            int scale;
            try {
                base = (Integer) baseOffset.invoke(unsafe, type);
                scale = (Integer) indexScale.invoke(unsafe, type);
            } catch (Throwable t) {
                // Measured: 64 elements more is 64 * scale more (a multiple of the alignment);
                // the empty array's size is the base, rounded up.
                Object big = java.lang.reflect.Array.newInstance(type.getComponentType(), 64);
                long empty = inst.getObjectSize(samples[k]);
                scale = (int) ((inst.getObjectSize(big) - empty) / 64);
                base = (int) empty;
                exact = false;
            }
            int shape = base | scale << 8 | alignMask << 16;
            // Keep only what the JVM agrees with for a few lengths.
            for (int n = 0; n < 10 && shape != 0; n++) {
                Object a = java.lang.reflect.Array.newInstance(type.getComponentType(), n);
                if (inst.getObjectSize(a) != arrayBytes(n, shape)) {
                    exact = false;
                }
            }
            char c = kinds.charAt(k);
            if (c == 'L') {
                referenceShape = shape;
            } else {
                primitiveShapes[c] = shape;
            }
        }
        method = (baseOffset != null ? "Unsafe array offsets" : "measured array sizes")
                + (exact ? "" : " (some lengths disagree with getObjectSize)")
                + (allocateInstance != null ? ", objects by allocateInstance + getObjectSize"
                        : ", objects by field layout");
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    static int primitiveSize(char descriptor) {
        switch (descriptor) {
            case 'Z': case 'B': return 1;
            case 'C': case 'S': return 2;
            case 'I': case 'F': return 4;
            default: return 8;
        }
    }

    /** The shape of arrays whose element descriptor starts with {@code c} ('[' and 'L': references). */
    static int shapeOf(char c) {
        return c == 'L' || c == '[' ? referenceShape : primitiveShapes[c];
    }

    /** Bytes of an array of {@code length} elements of the given shape. */
    static long arrayBytes(int length, int shape) {
        int mask = shape >>> 16;
        return ((shape & 0xFF) + (long) length * ((shape >>> 8) & 0xFF) + mask) & ~(long) mask;
    }

    /** The shallow size of an instance of {@code c} (0 when it cannot be measured). */
    static long objectSize(Class<?> c) {
        Instrumentation i = inst;
        if (i == null || c == null || c.isArray() || c.isInterface() || Modifier.isAbstract(c.getModifiers())) {
            return 0;
        }
        try {
            if (allocateInstance != null && !hasFinalizer(c)) {
                return i.getObjectSize(allocateInstance.invoke(unsafe, c));
            }
        } catch (Throwable t) {
            // fall through to the layout
        }
        try {
            return layoutSize(c);
        } catch (Throwable t) {
            return 0;
        }
    }

    private static boolean hasFinalizer(Class<?> c) {
        for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
            try {
                k.getDeclaredMethod("finalize");
                return true;
            } catch (NoSuchMethodException e) {
                // not here
            }
        }
        return false;
    }

    /** The end of the last instance field (Unsafe offsets), aligned; an empty Object's size without fields. */
    private static long layoutSize(Class<?> c) throws Exception {
        long end = 0;
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            for (Field f : k.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers())) {
                    continue;
                }
                if (objectFieldOffset == null) {
                    return 0;
                }
                long off = (Long) objectFieldOffset.invoke(unsafe, f);
                Class<?> t = f.getType();
                int size = !t.isPrimitive() ? ((referenceShape >>> 8) & 0xFF)
                        : primitiveSize(primitiveDescriptor(t));
                end = Math.max(end, off + size);
            }
        }
        if (end == 0) {
            return inst.getObjectSize(new Object());
        }
        return (end + alignMask) & ~(long) alignMask;
    }

    private static char primitiveDescriptor(Class<?> t) {
        if (t == boolean.class) {
            return 'Z';
        } else if (t == byte.class) {
            return 'B';
        } else if (t == char.class) {
            return 'C';
        } else if (t == short.class) {
            return 'S';
        } else if (t == int.class) {
            return 'I';
        } else if (t == float.class) {
            return 'F';
        } else if (t == long.class) {
            return 'J';
        }
        return 'D';
    }
}
