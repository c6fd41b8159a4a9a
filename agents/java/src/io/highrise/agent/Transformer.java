package io.highrise.agent;

import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.commons.AdviceAdapter;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LookupSwitchInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TableSwitchInsnNode;

/**
 * The bytecode rewriting (ASM 9). Each accepted method gets {@code ring = Recorder.enter(id)} at
 * entry (ring in a new local), {@code if (Recorder.on()) Recorder.exit(ring, id)} before every return, and a catch-all handler (last in the exception
 * table, so the method's own handlers run first) that calls exit and rethrows. The handler's
 * ranges exclude the exit calls at the returns, so a frame exits exactly once even if a hook
 * itself fails. Choices:
 * <ul>
 *   <li>constructors: enter right after the super()/this() call (AdviceAdapter finds it), so the
 *       handler never covers the uninitialised-this region; the super constructor shows as a
 *       sibling call just before;</li>
 *   <li>static initialisers are instrumented like methods;</li>
 *   <li>abstract and native methods have no code: skipped;</li>
 *   <li>bridge methods and compiler accessors (synthetic) are skipped; lambda bodies (synthetic
 *       {@code lambda$...}) are kept, they are the user's code; hidden lambda proxy classes are
 *       never offered to transformers;</li>
 *   <li>mode=auto only: a trivial method (see {@link #trivial}) is defined but gets no probe, as
 *       profilers' trivial-method filters do: its time goes to its caller until the switch to
 *       samples, which see it. Probes more than double such a method's bytecode, past the size
 *       under which HotSpot inlines it, so they would slow the program even once switched off;</li>
 *   <li>any failure leaves the class unchanged.</li>
 * </ul>
 * With allocation counting on ({@code alloc=on}), every {@code new}, {@code newarray},
 * {@code anewarray} and {@code multianewarray} is followed by a call that counts what it created
 * (class id from {@link Classes}, assigned here) for the method's frame: {@code Recorder.alloc(ring,
 * id)}, {@code Recorder.array(length, ring, id, shape)}, {@code Recorder.multiArray(array, ring, id,
 * dims)}. After the instruction, so a {@code new} that fails counts nothing, and a constructor that
 * throws leaves its object counted where the {@code new} ran. Before a constructor's
 * super()/this() call (where the method has no ring yet) the {@code ...Here} variants look the
 * thread's ring up.
 */
final class Transformer implements ClassFileTransformer {
    static final String RECORDER = "io/highrise/agent/Recorder";
    static final String RING = "io/highrise/agent/Ring";
    static final String ENTER_DESC = "(I)L" + RING + ";";
    static final String EXIT_DESC = "(L" + RING + ";I)V";

    volatile Options.Filter filter;
    /** Count allocations in the code rewritten from now on. */
    volatile boolean alloc;
    /** Sampled mode: classes are read for their methods' definitions and left unchanged. */
    volatile boolean defineOnly;
    /** classes=all: every profiled class of each jar a profiled class loads from is defined. */
    volatile boolean wholeJars;
    /** mode=auto: trivial methods get no probe. */
    volatile boolean skipTrivial;
    /** Methods left without a probe as trivial (mode=auto), over the JVM's life. */
    static final AtomicLong TRIVIAL_METHODS = new AtomicLong();
    /**
     * At most this many bytes of code make a method trivial: HotSpot's MaxInlineSize, under which
     * it inlines a method at any call site.
     */
    static final int TRIVIAL_CODE_BYTES = 35;
    /** Calls into these may block or wait: a method making one is never trivial. */
    private static final String[] MAY_BLOCK = {"java/lang/Thread", "java/lang/Process",
        "java/util/concurrent/", "java/io/", "java/nio/", "java/net/", "javax/", "sun/", "jdk/"};
    final boolean verbose;
    final AtomicLong classesInstrumented = new AtomicLong();
    final AtomicLong classesFailed = new AtomicLong();
    private final Map<ClassLoader, Boolean> loaderSeesRecorder = new WeakHashMap<>();

    private final java.lang.instrument.Instrumentation inst;

    Transformer(Options.Filter filter, boolean alloc, boolean verbose, java.lang.instrument.Instrumentation inst) {
        this.filter = filter;
        this.alloc = alloc;
        this.verbose = verbose;
        this.inst = inst;
    }

    /**
     * Classes of a named module must read the agent's (unnamed) module to call Recorder; the
     * module is given that read edge before its first class is rewritten.
     */
    @Override
    public byte[] transform(Module module, ClassLoader loader, String className,
            Class<?> classBeingRedefined, ProtectionDomain protectionDomain, byte[] classfileBuffer) {
        try {
            if (module != null && module.isNamed() && className != null && loader != null
                    && filter.accepts(className)) {
                Module agent = Recorder.class.getModule();
                if (!module.canRead(agent)) {
                    inst.redefineModule(module, java.util.Set.of(agent), java.util.Map.of(),
                            java.util.Map.of(), java.util.Set.of(), java.util.Map.of());
                }
            }
        } catch (Throwable t) {
            if (verbose) {
                Sender.log("could not let module " + module + " read the agent: " + t);
            }
            return null;
        }
        return transform(loader, className, classBeingRedefined, protectionDomain, classfileBuffer);
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> classBeingRedefined,
            ProtectionDomain protectionDomain, byte[] classfileBuffer) {
        try {
            if (className == null || loader == null || !filter.accepts(className)) {
                return null;
            }
            if (wholeJars) {
                JarClasses.see(loaderKey(loader), protectionDomain, filter, verbose);
            }
            if (defineOnly) {
                // The class runs as compiled; it is read for its methods the first time a sample
                // names it, off the program's thread (or now, when too many wait unread).
                String key = loaderKey(loader);
                byte[] bytes = classfileBuffer.clone(); // a later transformer may reuse the array
                if (!Methods.later(className, bytes.length, () -> define(key, bytes, className))) {
                    define(key, bytes, className);
                }
                return null;
            }
            if (!seesRecorder(loader)) {
                return null;
            }
            byte[] out = instrument(loader, className, classfileBuffer, alloc, filter, skipTrivial);
            if (out != null) {
                classesInstrumented.incrementAndGet();
            }
            return out;
        } catch (Throwable t) {
            notInstrumented(className, "left unchanged", t);
            return null;
        }
    }

    /** Classes named on stderr when they could not be instrumented; the rest are only counted. */
    static final int FAILURES_NAMED = 20;
    /** The first {@link #FAILURES_NAMED} of them with what was not done, for the session's notice. */
    private final java.util.List<String> failedNames = new java.util.ArrayList<>();

    /**
     * The session's notice of the classes not instrumented (SPEC "Notice", key
     * {@code not-instrumented}), or null when there are none.
     */
    String notInstrumentedNotice() {
        long n = classesFailed.get();
        if (n == 0) {
            return null;
        }
        StringBuilder text = new StringBuilder().append(n).append(n == 1 ? " class" : " classes")
                .append(" not instrumented: ");
        synchronized (failedNames) {
            for (int i = 0; i < failedNames.size() && i < 5; i++) {
                text.append(i == 0 ? "" : ", ").append(failedNames.get(i));
            }
        }
        return text.append(n > 5 ? ", … (the agent's stderr names the first " + FAILURES_NAMED + ")" : "").toString();
    }

    /**
     * A class the agent could not instrument (or read, sampled) is never silent: the first
     * {@link #FAILURES_NAMED} are named on stderr with why, every one is counted ({@code stats}).
     */
    void notInstrumented(String className, String what, Throwable why) {
        long n = classesFailed.incrementAndGet();
        if (n <= FAILURES_NAMED) {
            synchronized (failedNames) {
                failedNames.add(className.replace('/', '.') + " (" + what + ")");
            }
        }
        if (n <= FAILURES_NAMED || verbose) {
            Sender.log(className + " not instrumented (" + what + "): " + why);
        } else if (n == FAILURES_NAMED + 1) {
            Sender.log("more classes not instrumented; the session's end counts them (stats)");
        }
    }

    /** Instrumented code calls Recorder; a loader that cannot see our Recorder gets no changes. */
    private boolean seesRecorder(ClassLoader loader) {
        synchronized (loaderSeesRecorder) {
            Boolean known = loaderSeesRecorder.get(loader);
            if (known != null) {
                return known;
            }
        }
        boolean sees;
        try {
            sees = Class.forName(Recorder.class.getName(), false, loader) == Recorder.class;
        } catch (Throwable t) {
            sees = false;
        }
        synchronized (loaderSeesRecorder) {
            loaderSeesRecorder.put(loader, sees);
        }
        return sees;
    }

    /** {@link #define(String, byte[])}, a failure counted (and said, verbose). */
    private void define(String loaderKey, byte[] bytes, String className) {
        try {
            define(loaderKey, bytes);
        } catch (Throwable t) {
            notInstrumented(className, "not read for its methods", t);
        }
    }

    /**
     * Sampled mode: the class's methods defined under the ids the probes would have used, for
     * the samples' frames, with one read of the class file and no rewrite (no ClassWriter, no
     * frames computed, no class hierarchy read).
     */
    static void define(String loaderKey, byte[] bytes) {
        ClassReader reader = readerFor(bytes);
        if ((reader.getAccess() & Opcodes.ACC_MODULE) != 0) {
            return;
        }
        Definer definer = new Definer(loaderKey);
        reader.accept(definer, ClassReader.SKIP_FRAMES);
        for (Definer.Method m : definer.methods) {
            if (m.hasCode) {
                Methods.define(new MethodDef(m.id, definer.packageName, definer.simpleName, m.name,
                        m.descriptor, definer.sourceFile, m.lines.first), m.lines.first, m.lines.last);
            }
        }
    }

    /** Classes an attach found loaded that had no class file to read (generated at run time). */
    static final AtomicLong CLASSES_WITHOUT_FILE = new AtomicLong();

    /**
     * An attach, sampled: a loaded class's methods defined from its class file as its loader
     * finds it ({@code getResourceAsStream}), never retransformed.
     */
    static void defineFromResource(String loaderKey, ClassLoader loader, String internalName, boolean verbose) {
        try (java.io.InputStream in = loader.getResourceAsStream(internalName + ".class")) {
            if (in == null) {
                CLASSES_WITHOUT_FILE.incrementAndGet();
                return;
            }
            define(loaderKey, in.readAllBytes());
        } catch (Throwable t) {
            CLASSES_WITHOUT_FILE.incrementAndGet();
            if (verbose) {
                Sender.log("could not read " + internalName + " for its methods: " + t);
            }
        }
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

    static String loaderKey(ClassLoader loader) {
        return Integer.toHexString(System.identityHashCode(loader)) + ":";
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
     * What both class readers ({@link ClassAdapter}, {@link Definer}) keep of a class: its names
     * and source file, passed on to {@code next}; and the id of each of its methods, under the key
     * the probes and the samples share.
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

    /** Reads a class's name, source file and methods (their line ranges) for {@link #define}. */
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

    static byte[] instrument(ClassLoader loader, String className, byte[] bytes, boolean alloc,
            Options.Filter filter, boolean skipTrivial) {
        ClassReader reader = readerFor(bytes);
        if ((reader.getAccess() & Opcodes.ACC_MODULE) != 0) {
            return null;
        }
        ClassWriter writer = new HierarchyClassWriter(reader, loader);
        String loaderKey = loaderKey(loader);
        ClassAdapter adapter = new ClassAdapter(writer, loaderKey, alloc ? loader : null, alloc, filter);
        adapter.majorVersion = majorVersion(bytes); // written back as it was (see readerFor)
        adapter.codeBytes = skipTrivial ? codeBytes(reader) : null;
        reader.accept(adapter, ClassReader.SKIP_FRAMES);
        if (adapter.defs.isEmpty()) {
            return null;
        }
        byte[] out = writer.toByteArray();
        for (int i = 0; i < adapter.defs.size(); i++) {
            Methods.define(adapter.defs.get(i), adapter.firstLines.get(i), adapter.lastLines.get(i));
        }
        return out;
    }

    /**
     * Each method's code length in bytes (name + descriptor), read from the class file's Code
     * attributes: ASM's visitors do not give it, and rewriting every method to learn it would cost
     * class loading a second pass.
     */
    static Map<String, Integer> codeBytes(ClassReader r) {
        Map<String, Integer> out = new HashMap<>();
        char[] buf = new char[r.getMaxStringLength()];
        int u = r.header + 6; // access, this class, super class
        u += 2 + 2 * r.readUnsignedShort(u); // interfaces
        int fields = r.readUnsignedShort(u);
        u += 2;
        for (int f = 0; f < fields; f++) {
            int attributes = r.readUnsignedShort(u + 6);
            u += 8;
            for (int a = 0; a < attributes; a++) {
                u += 6 + r.readInt(u + 2);
            }
        }
        int methods = r.readUnsignedShort(u);
        u += 2;
        for (int m = 0; m < methods; m++) {
            String key = r.readUTF8(u + 2, buf) + r.readUTF8(u + 4, buf);
            int attributes = r.readUnsignedShort(u + 6);
            u += 8;
            for (int a = 0; a < attributes; a++) {
                if ("Code".equals(r.readUTF8(u, buf))) {
                    out.put(key, r.readInt(u + 10)); // after max_stack and max_locals
                }
                u += 6 + r.readInt(u + 2);
            }
        }
        return out;
    }

    /**
     * A trivial method: at most {@link #TRIVIAL_CODE_BYTES} of code, no loop, no lock, no allocation
     * while allocations are counted, and no call that may block (into the JDK's threads, locks,
     * I/O). Such a method runs a few dozen bytecodes and returns: its own time is too short to
     * measure by probes, and what it calls in the program has probes of its own.
     */
    static boolean trivial(MethodNode m, boolean alloc) {
        if ((m.access & Opcodes.ACC_SYNCHRONIZED) != 0) {
            return false;
        }
        InsnList code = m.instructions;
        for (AbstractInsnNode n = code.getFirst(); n != null; n = n.getNext()) {
            int op = n.getOpcode();
            if (op == Opcodes.MONITORENTER) {
                return false;
            }
            if (alloc && (op == Opcodes.NEW || op == Opcodes.NEWARRAY || op == Opcodes.ANEWARRAY
                    || op == Opcodes.MULTIANEWARRAY)) {
                return false;
            }
            if (n instanceof JumpInsnNode && backward(code, n, ((JumpInsnNode) n).label)) {
                return false;
            }
            if (n instanceof TableSwitchInsnNode || n instanceof LookupSwitchInsnNode) {
                List<LabelNode> targets = n instanceof TableSwitchInsnNode ? ((TableSwitchInsnNode) n).labels
                        : ((LookupSwitchInsnNode) n).labels;
                LabelNode dflt = n instanceof TableSwitchInsnNode ? ((TableSwitchInsnNode) n).dflt
                        : ((LookupSwitchInsnNode) n).dflt;
                if (backward(code, n, dflt)) {
                    return false;
                }
                for (LabelNode t : targets) {
                    if (backward(code, n, t)) {
                        return false;
                    }
                }
            }
            if (n instanceof MethodInsnNode) {
                String owner = ((MethodInsnNode) n).owner;
                if (owner.equals("java/lang/Object") && ((MethodInsnNode) n).name.equals("wait")) {
                    return false;
                }
                for (String p : MAY_BLOCK) {
                    if (owner.startsWith(p)) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    private static boolean backward(InsnList code, AbstractInsnNode from, LabelNode to) {
        return code.indexOf(to) <= code.indexOf(from);
    }

    static final class ClassAdapter extends NamingVisitor {
        final ClassLoader loader;
        final boolean alloc;
        /** mode=auto: the methods' code lengths, to find trivial ones; null to probe every method. */
        Map<String, Integer> codeBytes;
        final List<MethodDef> defs = new ArrayList<>();
        final List<Integer> firstLines = new ArrayList<>();
        final List<Integer> lastLines = new ArrayList<>();

        /** With alloc: the program's classes, for the class diagram ({@link Relations}). */
        final Options.Filter filter;
        /** Whether this class's relations are read (alloc on, not a module). */
        boolean relating;

        ClassAdapter(ClassVisitor next, String loaderKey, ClassLoader loader, boolean alloc,
                Options.Filter filter) {
            super(next, loaderKey);
            this.loader = loader;
            this.alloc = alloc;
            this.filter = filter;
        }

        /** A relation from this class to {@code target}: both get class ids only now, when needed. */
        private void relate(String target, int kind, String field, boolean many) {
            Relations.add(Classes.reserve(internalName, loader), Classes.reserve(target, loader), kind, field, many);
        }

        /** The class diagram: supertypes that are the program's classes (fields: visitField). */
        private void relateSupertypes(String superName, String[] interfaces, int access) {
            relating = alloc && filter != null && (access & Opcodes.ACC_MODULE) == 0;
            if (!relating) {
                return;
            }
            if (superName != null && filter.accepts(superName)) {
                relate(superName, Wire.RELATION_EXTENDS, "", false);
            }
            for (String i : interfaces == null ? new String[0] : interfaces) {
                if (filter.accepts(i)) {
                    relate(i, Wire.RELATION_IMPLEMENTS, "", false);
                }
            }
        }

        @Override
        public org.objectweb.asm.FieldVisitor visitField(int access, String name, String descriptor,
                String signature, Object value) {
            if (relating && (access & Opcodes.ACC_STATIC) == 0) {
                Relations.fieldTargets(descriptor, signature, filter,
                        (target, many) -> relate(target, Wire.RELATION_FIELD, name, many));
            }
            return super.visitField(access, name, descriptor, signature, value);
        }

        @Override
        public void visit(int version, int access, String name, String signature, String superName,
                String[] interfaces) {
            super.visit(version, access, name, signature, superName, interfaces); // names it
            relateSupertypes(superName, interfaces, access);
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                String[] exceptions) {
            MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
            if (!profiled(access, name)) {
                return mv;
            }
            int id = reserve(name, descriptor);
            if (id < 0) {
                return mv;
            }
            Integer length = codeBytes == null ? null : codeBytes.get(name + descriptor);
            if (length == null || length > TRIVIAL_CODE_BYTES) {
                return new MethodAdapter(mv, access, name, descriptor, id, this, true);
            }
            // Small enough to be trivial: held whole, then written with or without probes.
            MethodVisitor next = mv; // (inside MethodNode, `mv` names its own field)
            return new MethodNode(Opcodes.ASM9, access, name, descriptor, signature, exceptions) {
                @Override
                public void visitEnd() {
                    boolean probes = !trivial(this, alloc);
                    if (!probes) {
                        TRIVIAL_METHODS.incrementAndGet();
                    }
                    accept(new MethodAdapter(next, access, name, descriptor, id, ClassAdapter.this, probes));
                }
            };
        }
    }

    static final class MethodAdapter extends AdviceAdapter {
        final int id;
        final String methodName;
        final String descriptor;
        final ClassAdapter owner;
        final List<Label> rangeStarts = new ArrayList<>();
        final List<Label> rangeEnds = new ArrayList<>();
        boolean entered;
        Label rangeStart;
        boolean rangeHasCode;
        boolean restartAfterReturn;
        final Lines lines = new Lines();
        int ringLocal = -1;
        /** False for a trivial method: defined, with its lines, but left as it was. */
        final boolean probes;
        boolean defined;

        MethodAdapter(MethodVisitor mv, int access, String name, String descriptor, int id,
                ClassAdapter owner, boolean probes) {
            super(Opcodes.ASM9, mv, access, name, descriptor);
            this.id = id;
            this.methodName = name;
            this.descriptor = descriptor;
            this.owner = owner;
            this.probes = probes;
        }

        private void pushId() {
            pushInt(id);
        }

        private void pushInt(int v) {
            if (v >= -1 && v <= 5) {
                mv.visitInsn(Opcodes.ICONST_0 + v);
            } else if (v >= Byte.MIN_VALUE && v <= Byte.MAX_VALUE) {
                mv.visitIntInsn(Opcodes.BIPUSH, v);
            } else if (v >= Short.MIN_VALUE && v <= Short.MAX_VALUE) {
                mv.visitIntInsn(Opcodes.SIPUSH, v);
            } else {
                mv.visitLdcInsn(v);
            }
        }

        // ---------------------------------------------------- allocation counting

        /** Right after {@code new}: the uninitialised object stays on the stack, untouched. */
        private void countObject(String internalName) {
            int c = Classes.reserve(internalName, owner.loader);
            if (c < 0) {
                return;
            }
            if (entered) {
                Label skip = skipWhenOff();
                mv.visitVarInsn(Opcodes.ALOAD, ringLocal);
                pushInt(c);
                mv.visitMethodInsn(Opcodes.INVOKESTATIC, RECORDER, "alloc", "(L" + RING + ";I)V", false);
                mv.visitLabel(skip);
            } else {
                pushInt(c);
                mv.visitMethodInsn(Opcodes.INVOKESTATIC, RECORDER, "allocHere", "(I)V", false);
            }
        }

        /** Right after {@code newarray}/{@code anewarray} (array descriptor {@code desc}): array on the stack. */
        private void countArray(String desc) {
            int c = Classes.reserve(desc, owner.loader);
            if (c < 0) {
                return;
            }
            if (entered) {
                Label skip = skipWhenOff();
                mv.visitInsn(Opcodes.DUP);
                mv.visitInsn(Opcodes.ARRAYLENGTH);
                mv.visitVarInsn(Opcodes.ALOAD, ringLocal);
                pushInt(c);
                pushInt(Sizes.shapeOf(desc.charAt(1)));
                mv.visitMethodInsn(Opcodes.INVOKESTATIC, RECORDER, "array", "(IL" + RING + ";II)V", false);
                mv.visitLabel(skip);
            } else {
                mv.visitInsn(Opcodes.DUP);
                mv.visitInsn(Opcodes.ARRAYLENGTH);
                pushInt(c);
                pushInt(Sizes.shapeOf(desc.charAt(1)));
                mv.visitMethodInsn(Opcodes.INVOKESTATIC, RECORDER, "arrayHere", "(III)V", false);
            }
        }

        private void countMultiArray(String desc, int dims) {
            int c = Classes.reserve(desc, owner.loader);
            if (c < 0) {
                return;
            }
            if (entered) {
                Label skip = skipWhenOff();
                mv.visitInsn(Opcodes.DUP);
                mv.visitVarInsn(Opcodes.ALOAD, ringLocal);
                pushInt(c);
                pushInt(dims);
                mv.visitMethodInsn(Opcodes.INVOKESTATIC, RECORDER, "multiArray",
                        "(Ljava/lang/Object;L" + RING + ";II)V", false);
                mv.visitLabel(skip);
            } else {
                mv.visitInsn(Opcodes.DUP);
                pushInt(c);
                pushInt(dims);
                mv.visitMethodInsn(Opcodes.INVOKESTATIC, RECORDER, "multiArrayHere", "(Ljava/lang/Object;II)V", false);
            }
        }

        private static String newarrayDescriptor(int operand) {
            switch (operand) {
                case Opcodes.T_BOOLEAN: return "[Z";
                case Opcodes.T_CHAR: return "[C";
                case Opcodes.T_FLOAT: return "[F";
                case Opcodes.T_DOUBLE: return "[D";
                case Opcodes.T_BYTE: return "[B";
                case Opcodes.T_SHORT: return "[S";
                case Opcodes.T_INT: return "[I";
                default: return "[J";
            }
        }

        /** ring = Recorder.enter(id) */
        private void callEnter() {
            ringLocal = newLocal(org.objectweb.asm.Type.getObjectType(RING));
            pushId();
            mv.visitMethodInsn(Opcodes.INVOKESTATIC, RECORDER, "enter", ENTER_DESC, false);
            mv.visitVarInsn(Opcodes.ASTORE, ringLocal);
        }

        /** Recorder.exit(ring, id) */
        private void callExit() {
            mv.visitVarInsn(Opcodes.ALOAD, ringLocal);
            pushId();
            mv.visitMethodInsn(Opcodes.INVOKESTATIC, RECORDER, "exit", EXIT_DESC, false);
        }

        /** if (Recorder.on()) Recorder.exit(ring, id), before a return. */
        private void callExitIfOn() {
            Label skip = skipWhenOff();
            callExit();
            mv.visitLabel(skip);
        }

        /**
         * {@code if (!Recorder.on()) goto skip}, for the caller to place {@code skip} after its
         * hook. The test is in the method's own code: once the probes are off (mode=auto's switch)
         * it is a constant, and the JIT drops the hook with it, even in a frame that entered
         * before the switch and holds a ring. Left to the hook, a hook that is compiled already is
         * called, not inlined, where the call is rare ("already compiled into a medium method"): a
         * real call at every return of every method inlined into a hot loop.
         */
        private Label skipWhenOff() {
            Label skip = new Label();
            mv.visitMethodInsn(Opcodes.INVOKESTATIC, RECORDER, "on", "()Z", false);
            mv.visitJumpInsn(Opcodes.IFEQ, skip);
            return skip;
        }

        private void openRange() {
            rangeStart = new Label();
            mv.visitLabel(rangeStart);
            rangeHasCode = false;
        }

        private void closeRange() {
            Label end = new Label();
            mv.visitLabel(end);
            if (rangeHasCode) {
                rangeStarts.add(rangeStart);
                rangeEnds.add(end);
            }
        }

        @Override
        protected void onMethodEnter() {
            defined = true;
            if (!probes) {
                return;
            }
            callEnter();
            entered = true;
            openRange();
        }

        @Override
        protected void onMethodExit(int opcode) {
            if (!entered || opcode == ATHROW) {
                return; // a throw is seen by the catch-all handler
            }
            closeRange();
            callExitIfOn();
            restartAfterReturn = true;
        }

        @Override
        public void visitInsn(int opcode) {
            boolean isReturn = opcode >= IRETURN && opcode <= RETURN;
            if (!isReturn) {
                rangeHasCode = true;
            }
            super.visitInsn(opcode);
            if (restartAfterReturn) {
                restartAfterReturn = false;
                openRange();
            }
        }

        @Override
        public void visitIntInsn(int opcode, int operand) {
            rangeHasCode = true;
            super.visitIntInsn(opcode, operand);
            if (owner.alloc && opcode == NEWARRAY) {
                countArray(newarrayDescriptor(operand));
            }
        }

        @Override
        public void visitVarInsn(int opcode, int var) {
            rangeHasCode = true;
            super.visitVarInsn(opcode, var);
        }

        @Override
        public void visitTypeInsn(int opcode, String type) {
            rangeHasCode = true;
            super.visitTypeInsn(opcode, type);
            if (owner.alloc && opcode == NEW) {
                countObject(type);
            } else if (owner.alloc && opcode == ANEWARRAY) {
                countArray(type.startsWith("[") ? "[" + type : "[L" + type + ";");
            }
        }

        @Override
        public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
            rangeHasCode = true;
            super.visitFieldInsn(opcode, owner, name, descriptor);
        }

        @Override
        public void visitMethodInsn(int opcode, String owner, String name, String descriptor,
                boolean isInterface) {
            rangeHasCode = true;
            super.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
        }

        @Override
        public void visitInvokeDynamicInsn(String name, String descriptor, Handle bsm,
                Object... bsmArgs) {
            rangeHasCode = true;
            super.visitInvokeDynamicInsn(name, descriptor, bsm, bsmArgs);
        }

        @Override
        public void visitJumpInsn(int opcode, Label label) {
            rangeHasCode = true;
            super.visitJumpInsn(opcode, label);
        }

        @Override
        public void visitLdcInsn(Object value) {
            rangeHasCode = true;
            super.visitLdcInsn(value);
        }

        @Override
        public void visitIincInsn(int var, int increment) {
            rangeHasCode = true;
            super.visitIincInsn(var, increment);
        }

        @Override
        public void visitTableSwitchInsn(int min, int max, Label dflt, Label... labels) {
            rangeHasCode = true;
            super.visitTableSwitchInsn(min, max, dflt, labels);
        }

        @Override
        public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] labels) {
            rangeHasCode = true;
            super.visitLookupSwitchInsn(dflt, keys, labels);
        }

        @Override
        public void visitMultiANewArrayInsn(String descriptor, int numDimensions) {
            rangeHasCode = true;
            super.visitMultiANewArrayInsn(descriptor, numDimensions);
            if (owner.alloc) {
                countMultiArray(descriptor, numDimensions);
            }
        }

        @Override
        public void visitLineNumber(int line, Label start) {
            lines.see(line);
            super.visitLineNumber(line, start);
        }

        @Override
        public void visitMaxs(int maxStack, int maxLocals) {
            if (entered) {
                closeRange();
                if (!rangeStarts.isEmpty()) {
                    Label handler = new Label();
                    for (int i = 0; i < rangeStarts.size(); i++) {
                        mv.visitTryCatchBlock(rangeStarts.get(i), rangeEnds.get(i), handler, null);
                    }
                    mv.visitLabel(handler);
                    callExit();
                    mv.visitInsn(ATHROW);
                }
            }
            super.visitMaxs(maxStack, maxLocals);
        }

        @Override
        public void visitEnd() {
            if (defined) {
                owner.defs.add(new MethodDef(id, owner.packageName, owner.simpleName, methodName,
                        descriptor, owner.sourceFile, lines.first));
                owner.firstLines.add(lines.first);
                owner.lastLines.add(lines.last);
            }
            super.visitEnd();
        }
    }

    /**
     * COMPUTE_FRAMES needs common super classes. Loading classes here would be wrong (the wrong
     * loader, or recursion into class loading), so hierarchies are read from class files through
     * the defining loader's resources; anything unknown merges to java/lang/Object.
     */
    static final class HierarchyClassWriter extends ClassWriter {
        private static final String OBJECT = "java/lang/Object";
        private final ClassLoader loader;
        private final Map<String, String[]> cache = new HashMap<>(); // name -> {super, isInterface}

        HierarchyClassWriter(ClassReader reader, ClassLoader loader) {
            super(reader, ClassWriter.COMPUTE_FRAMES);
            this.loader = loader;
            cache.put(reader.getClassName(), new String[] {reader.getSuperName(),
                (reader.getAccess() & Opcodes.ACC_INTERFACE) != 0 ? "i" : ""});
        }

        @Override
        protected String getCommonSuperClass(String a, String b) {
            try {
                if (a.equals(b)) {
                    return a;
                }
                List<String> chainA = chain(a);
                if (chainA == null) {
                    return OBJECT;
                }
                List<String> chainB = chain(b);
                if (chainB == null) {
                    return OBJECT;
                }
                for (String s : chainB) {
                    if (chainA.contains(s)) {
                        return s;
                    }
                }
                return OBJECT;
            } catch (Throwable t) {
                return OBJECT;
            }
        }

        /** name, its super, ..., java/lang/Object; null for an interface or an unknown class. */
        private List<String> chain(String name) {
            List<String> out = new ArrayList<>();
            String cur = name;
            while (cur != null) {
                out.add(cur);
                if (cur.equals(OBJECT)) {
                    return out;
                }
                String[] info = info(cur);
                if (info == null || !info[1].isEmpty()) {
                    return null;
                }
                cur = info[0];
                if (out.size() > 256) {
                    return null;
                }
            }
            return out;
        }

        private String[] info(String name) {
            String[] known = cache.get(name);
            if (known != null) {
                return known;
            }
            String resource = name + ".class";
            try (InputStream in = loader != null ? loader.getResourceAsStream(resource)
                    : ClassLoader.getSystemResourceAsStream(resource)) {
                InputStream stream = in != null ? in : ClassLoader.getSystemResourceAsStream(resource);
                if (stream == null) {
                    return null;
                }
                try (InputStream s = stream) {
                    ClassReader r = readerFor(s.readAllBytes());
                    String[] info = {r.getSuperName(),
                        (r.getAccess() & Opcodes.ACC_INTERFACE) != 0 ? "i" : ""};
                    cache.put(name, info);
                    return info;
                }
            } catch (Throwable t) {
                return null;
            }
        }
    }
}
