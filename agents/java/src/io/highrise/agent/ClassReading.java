package io.highrise.agent;

import java.util.ArrayList;
import java.util.List;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * What the agent reads of a class file, whether it rewrites the class ({@link ProbeClassAdapter})
 * or only defines its methods (sampled: {@link Definer}): a reader for any class-file version the
 * JVM loads, the class's names and its methods' ids ({@link NamingVisitor}), which methods are
 * the program's ({@link #profiled}), and the lines each method covers ({@link Lines}).
 */
final class ClassReading {
    private ClassReading() {
    }

    /**
     * The newest class-file major version the bundled ASM (Debian's 9.4) reads: Java 20's. It
     * refuses later ones outright, though Java 21 to 25 add no instruction, constant or attribute
     * it cannot parse (an attribute it does not know it copies as it is).
     */
    static final int MAX_READ_MAJOR = Opcodes.V20;

    /** A class file's major version (bytes 6-7), 0 when it is too short to have one. */
    static int majorVersion(byte[] bytes) {
        return bytes.length < 8 ? 0 : (bytes[6] & 0xFF) << 8 | (bytes[7] & 0xFF);
    }

    /**
     * A reader for any class file the JVM loads: one newer than {@link #MAX_READ_MAJOR} (Java 21,
     * 25) is read as a copy that says Java 20, and the rewritten class gets its own version back
     * ({@link NamingVisitor#majorVersion}). Without this a program compiled for 21 or later got no
     * probe and no building.
     */
    static ClassReader readerFor(byte[] bytes) {
        if (majorVersion(bytes) <= MAX_READ_MAJOR) {
            return new ClassReader(bytes);
        }
        byte[] copy = bytes.clone();
        copy[6] = (byte) (MAX_READ_MAJOR >>> 8);
        copy[7] = (byte) MAX_READ_MAJOR;
        return new ClassReader(copy);
    }

    /** Whether a method gets a probe (and, sampled, a definition): code the program wrote. */
    static boolean profiled(int access, String name) {
        if ((access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE | Opcodes.ACC_BRIDGE)) != 0) {
            return false;
        }
        return (access & Opcodes.ACC_SYNTHETIC) == 0 || name.startsWith("lambda$");
    }

    /** The lines a method's code covers (-1 while none is known). */
    static final class Lines {
        int first = -1;
        int last = -1;

        void see(int line) {
            if (first < 0 || line < first) {
                first = line;
            }
            last = Math.max(last, line);
        }
    }

    /**
     * What both class readers ({@link ProbeClassAdapter}, {@link Definer}) keep of a class: its
     * names and source file, passed on to {@code next}; and the id of each of its methods, under
     * the key the probes and the samples share.
     */
    abstract static class NamingVisitor extends ClassVisitor {
        final String loaderKey;
        String internalName;
        String packageName;
        String simpleName;
        String sourceFile;
        /** The class file's own major version, where {@link #readerFor} read it as an older one. */
        int majorVersion;

        NamingVisitor(ClassVisitor next, String loaderKey) {
            super(Opcodes.ASM9, next);
            this.loaderKey = loaderKey;
        }

        @Override
        public void visit(int version, int access, String name, String signature, String superName,
                String[] interfaces) {
            internalName = name;
            int slash = name.lastIndexOf('/');
            packageName = slash < 0 ? "" : name.substring(0, slash).replace('/', '.');
            simpleName = name.substring(slash + 1);
            int written = majorVersion > MAX_READ_MAJOR ? (version & 0xFFFF0000) | majorVersion : version;
            super.visit(written, access, name, signature, superName, interfaces);
        }

        @Override
        public void visitSource(String source, String debug) {
            sourceFile = source;
            super.visitSource(source, debug);
        }

        /** The id of this class's method; -1 when the id space is exhausted. */
        int reserve(String name, String descriptor) {
            return Methods.reserve(loaderKey + internalName + "." + name + descriptor);
        }
    }

    /** Reads a class's name, source file and methods (their line ranges) for {@link Transformer#define}. */
    static final class Definer extends NamingVisitor {
        static final class Method {
            int id;
            String name;
            String descriptor;
            boolean hasCode;
            final Lines lines = new Lines();
        }

        final List<Method> methods = new ArrayList<>();

        Definer(String loaderKey) {
            super(null, loaderKey);
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                String[] exceptions) {
            if (!profiled(access, name)) {
                return null;
            }
            int id = reserve(name, descriptor);
            if (id < 0) {
                return null;
            }
            Method m = new Method();
            m.id = id;
            m.name = name;
            m.descriptor = descriptor;
            methods.add(m);
            return new MethodVisitor(Opcodes.ASM9) {
                @Override
                public void visitCode() {
                    m.hasCode = true;
                }

                @Override
                public void visitLineNumber(int line, Label start) {
                    m.lines.see(line);
                }
            };
        }
    }
}
