package io.highrise.agent;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;

/**
 * The agent's class file transformer: which classes are rewritten (the filter, a loader that
 * sees {@link Recorder}, a named module given a read edge to the agent), in which mode (probes,
 * allocation counting, sampled mode's definitions only, mode=auto's trivial methods left
 * without a probe), and the classes that could not be instrumented, counted and named. Any
 * failure leaves the class unchanged. The rewriting itself: {@link ProbeClassAdapter} and
 * {@link ProbeMethodAdapter} (where the probes and their choices are described), frames computed
 * by {@link HierarchyClassWriter}; the reading shared with sampled mode: {@link ClassReading};
 * trivial methods: {@link TrivialMethods}.
 */
final class Transformer implements ClassFileTransformer {
    volatile Options.Filter filter;
    /** Count allocations in the code rewritten from now on. */
    volatile boolean alloc;
    /** Sampled mode: classes are read for their methods' definitions and left unchanged. */
    volatile boolean defineOnly;
    /** classes=all: every profiled class of each jar a profiled class loads from is defined. */
    volatile boolean wholeJars;
    /** mode=auto: trivial methods get no probe. */
    volatile boolean skipTrivial;
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
        ClassReader reader = ClassReading.readerFor(bytes);
        if ((reader.getAccess() & Opcodes.ACC_MODULE) != 0) {
            return;
        }
        ClassReading.Definer definer = new ClassReading.Definer(loaderKey);
        reader.accept(definer, ClassReader.SKIP_FRAMES);
        for (ClassReading.Definer.Method m : definer.methods) {
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

    static String loaderKey(ClassLoader loader) {
        return Integer.toHexString(System.identityHashCode(loader)) + ":";
    }

    /** The class rewritten with its probes, or null when it has no method to define. */
    static byte[] instrument(ClassLoader loader, String className, byte[] bytes, boolean alloc,
            Options.Filter filter, boolean skipTrivial) {
        ClassReader reader = ClassReading.readerFor(bytes);
        if ((reader.getAccess() & Opcodes.ACC_MODULE) != 0) {
            return null;
        }
        ClassWriter writer = new HierarchyClassWriter(reader, loader);
        String loaderKey = loaderKey(loader);
        ProbeClassAdapter adapter = new ProbeClassAdapter(writer, loaderKey, alloc ? loader : null, alloc, filter);
        adapter.majorVersion = ClassReading.majorVersion(bytes); // written back as it was (see readerFor)
        adapter.codeBytes = skipTrivial ? TrivialMethods.codeBytes(reader) : null;
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
}
