package io.highrise.agent;

import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The entry points: {@code premain} for -javaagent, {@code agentmain} for attaching. */
public final class Agent {
    private static Transformer transformer;
    private static Instrumentation instrumentation;
    private static Options.Filter filter;
    private static boolean verbose;
    private static Sender sender;
    private static int sessions;
    private static boolean hookInstalled;

    private Agent() {}

    public static void premain(String args, Instrumentation inst) {
        start(args, inst, false);
    }

    public static void agentmain(String args, Instrumentation inst) {
        if (Options.parse(args, true).detach) {
            detach(inst); // not under the lock start holds: the sender takes it as it ends
            return;
        }
        start(args, inst, true);
    }

    private static synchronized void start(String args, Instrumentation inst, boolean attached) {
        try {
            Options options = Options.parse(args, attached);
            for (String w : options.warnings) {
                Sender.log(w);
            }
            if (sender != null && !sender.finished) {
                Sender.log("already attached to " + sender.options.host + ":" + sender.options.port
                        + "; ignoring this load");
                return;
            }
            if (options.live && !options.alloc) {
                Sender.log("live=on needs alloc=on (live objects are counted per allocated class); live is off");
            }
            LiveObjects.enabled = options.live && options.alloc;
            Options.Filter filter = options.filter();
            Agent.instrumentation = inst;
            Agent.filter = filter;
            Agent.verbose = options.verbose;
            boolean firstLoad = transformer == null;
            if (options.alloc) {
                Sizes.init(inst); // before any class is rewritten: the bytecode carries array shapes
                if (options.verbose) {
                    Sender.log("allocation counting on (" + Sizes.method + ")");
                }
            }
            if (!firstLoad && options.sampled) {
                // A new session without probes: those an earlier one left (idle) come out first.
                removeProbes(inst);
                firstLoad = true;
            }
            if (firstLoad) {
                transformer = new Transformer(filter, options.alloc, options.verbose, inst);
                inst.addTransformer(transformer, inst.isRetransformClassesSupported());
            }
            transformer.filter = filter;
            transformer.alloc = options.alloc;
            transformer.defineOnly = options.sampled;
            transformer.skipTrivial = options.auto;
            transformer.wholeJars = options.allClasses;
            int id = ++sessions;
            Sender s = new Sender(id, options);
            sender = s;
            if (options.sampled) {
                // No probes and no retransformation: the classes already loaded are read for their
                // definitions from their class files (Methods.later), and samples (not events)
                // describe every thread, those already running included.
                if (attached) {
                    defineLoaded(inst, filter, options.verbose);
                }
                s.sampling = Sampling.start(options);
            } else if (attached || !firstLoad) {
                // Loaded classes are rewritten while no session records (their hooks do nothing
                // yet), then every thread's profiled frames are captured: exactly the frames that
                // began before the session. Each becomes its thread's first Resync, and the
                // sender watches them until they return (PreSession).
                Recorder.probesOn(); // an earlier session may have turned them off (auto, detach)
                retransformLoaded(inst, filter, options.verbose);
                try {
                    PreSession.currentStack(); // loads the stack walker's classes here, not in a hook
                    s.addPreSession(PreSession.capture());
                } catch (Throwable t) {
                    Sender.log("could not read the running threads' stacks (" + t + "); frames already "
                            + "running are not shown");
                }
                if (options.verbose) {
                    Sender.log("attach: " + s.preFramesAtStart + " profiled frame(s) already running");
                }
            }
            Recorder.current = s;
            Recorder.session = id;
            s.start();
            if (!hookInstalled) {
                hookInstalled = true;
                Runtime.getRuntime().addShutdownHook(new Thread(Agent::shutdown, "highrise-agent-shutdown"));
            }
        } catch (Throwable t) {
            Sender.log("could not start (" + t + "); the program runs on without profiling");
        }
    }

    /**
     * {@code highrise detach} (a load with {@code detach}): the session ends as at exit (what is
     * buffered, then Goodbye; the sampler stops), and the agent takes itself out: its transformer
     * goes and every class it rewrote gets its original code back, so the program runs as before
     * the attach. A later attach starts afresh (ids stay as they were).
     */
    private static void detach(Instrumentation inst) {
        Sender s;
        synchronized (Agent.class) {
            s = sender;
        }
        if (s != null && !s.finished) {
            s.finish(3000);
        }
        synchronized (Agent.class) {
            String restored = removeProbes(inst);
            Sender.log("detached" + (s == null ? " (no session was running)" : " from " + s.options.host + ":"
                    + s.options.port) + restored);
        }
    }

    /**
     * Sender thread, as an attached agent's session ends without a detach or the JVM's exit:
     * the viewer closed it (its panel's Detach) or went away. The agent takes itself out as
     * {@link #detach} does, on a thread of its own, unless a new session started meanwhile.
     */
    static void viewerEnded(Sender ended) {
        Thread t = new Thread(() -> {
            synchronized (Agent.class) {
                Instrumentation inst = instrumentation;
                if (sender != ended || inst == null) {
                    return;
                }
                Sender.log("the viewer ended the session: the agent took itself out" + removeProbes(inst));
            }
        }, "highrise-agent-detach");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Takes the transformer out and gives the classes it rewrote their original code (a
     * retransformation with no transformer). As at mode=auto's switch, a class with a frame
     * running now keeps its code, idle: the probes are off for the JIT, and a retransformation
     * would leave that frame interpreted until it returns. Returns what it did, for the detach's line.
     */
    private static String removeProbes(Instrumentation inst) {
        Transformer t = transformer;
        if (t == null) {
            return "";
        }
        inst.removeTransformer(t);
        transformer = null;
        if (t.classesInstrumented.get() == 0) {
            return "";
        }
        Recorder.probesOff();
        java.util.Set<String> running = new java.util.HashSet<>();
        for (StackTraceElement[] trace : Thread.getAllStackTraces().values()) {
            for (StackTraceElement frame : trace) {
                if (t.filter.accepts(frame.getClassName().replace('.', '/'))) {
                    running.add(frame.getClassName());
                }
            }
        }
        int restored = retransformLoaded(inst, t.filter, verbose, running);
        return "; original code back in " + restored + " classes" + (running.isEmpty() ? ""
                : " (" + running.size() + " with a frame running keep their probes, switched off)");
    }

    /**
     * The sampled mode in a program already running: every loaded class of the filter is read for
     * its methods from its class file (its loader's resource, as the JVM loaded it), in the
     * background at a bounded rate or at once when a sample names it ({@link Methods#later}); no
     * class is retransformed. A class with no class file to read (generated at run time) gets no
     * building; its frames' time goes to the nearest profiled caller.
     */
    private static void defineLoaded(Instrumentation inst, Options.Filter filter, boolean verbose) {
        int queued = 0;
        for (Class<?> c : inst.getAllLoadedClasses()) {
            ClassLoader loader = c.getClassLoader();
            if (loader == null || c.isArray() || c.isPrimitive()) {
                continue;
            }
            if (c.getName().indexOf('/') >= 0) {
                continue; // hidden classes (lambda proxies)
            }
            String internalName = c.getName().replace('.', '/');
            if (!filter.accepts(internalName)) {
                continue;
            }
            String key = Transformer.loaderKey(loader);
            Methods.later(internalName, 0, () -> Transformer.defineFromResource(key, loader, internalName, verbose));
            queued++;
        }
        if (verbose) {
            Sender.log("attach: " + queued + " loaded classes to read for their methods (no retransformation)");
        }
    }

    /** The class transformer while the agent is in the program, else null. */
    static synchronized Transformer transformer() {
        return transformer;
    }

    /** Opens {@code packages} of {@code module} to the agent's own module (deep reflection). */
    static void openToAgent(Module module, String... packages) {
        Module agent = Agent.class.getModule();
        java.util.Map<String, java.util.Set<Module>> opens = new java.util.HashMap<>();
        for (String p : packages) {
            opens.put(p, java.util.Set.of(agent));
        }
        instrumentation.redefineModule(module, java.util.Set.of(), java.util.Map.of(), opens,
                java.util.Set.of(), java.util.Map.of());
    }

    /**
     * mode=auto's switch to samples: classes loading from now on are only read for definitions,
     * and those already rewritten get their original code back (a retransformation without
     * probes), on the calling thread: the program thread whose ring overflowed pauses once for it
     * (measured: Rhino's 243 classes, well under a second), so its next hot loop starts on clean
     * code; done in the background, the race lost it (1.8x). The probes left in code (below) are
     * turned off for the JIT ({@link Recorder#probesOff}).
     */
    static void dropProbes() {
        Transformer t = transformer;
        Instrumentation inst = instrumentation;
        if (t == null || inst == null) {
            return;
        }
        t.defineOnly = true;
        // A class with a frame running now keeps its (now idle) probes: its running frames would
        // turn obsolete, and the JVM runs an obsolete method interpreted until it returns (a
        // long loop then never gets compiled code again: measured 5.5x on Rhino's interpreter;
        // so does a method retransformed to the same code, EMCP, not obsolete: 60x on Busy, whose
        // main loop was still interpreted). Those probes call a constant from now on, which the
        // JIT compiles away (a deoptimization, after which loops compile again): Busy's switch
        // inside its loop now runs as fast as mode=sampled, against 2-3x slower with probes that
        // read the session on each call.
        Recorder.probesOff();
        Map<Thread, StackTraceElement[]> stacks = Thread.getAllStackTraces();
        java.util.Set<String> running = new java.util.HashSet<>();
        for (StackTraceElement[] trace : stacks.values()) {
            for (StackTraceElement frame : trace) {
                running.add(frame.getClassName());
            }
        }
        stacksAtSwitch = stacks;
        retransformLoaded(inst, filter, verbose, running);
    }

    /** The threads' stacks at mode=auto's switch, until {@link #dropTransientProbes} reads them. */
    private static volatile Map<Thread, StackTraceElement[]> stacksAtSwitch;

    /**
     * Sender thread, a moment after mode=auto's switch: the classes that kept their idle probes
     * only for a frame that was passing through then (a helper a loop called) get their
     * original code back ({@link #passingClasses}). Those with a frame still in place (the
     * loop, the frames waiting below it) keep them: a retransformation would leave that frame
     * interpreted until it returns, for good for a program's main loop.
     */
    static void dropTransientProbes() {
        Map<Thread, StackTraceElement[]> before = stacksAtSwitch;
        Instrumentation inst = instrumentation;
        stacksAtSwitch = null;
        if (before == null || inst == null) {
            return;
        }
        java.util.Set<String> passing = new java.util.TreeSet<>();
        for (String name : passingClasses(before, Thread.getAllStackTraces())) {
            if (filter.accepts(name.replace('.', '/'))) {
                passing.add(name);
            }
        }
        if (passing.isEmpty()) {
            return;
        }
        java.util.Set<String> keep = new java.util.HashSet<>();
        for (Class<?> c : inst.getAllLoadedClasses()) {
            if (!passing.contains(c.getName())) {
                keep.add(c.getName());
            }
        }
        retransformLoaded(inst, filter, false, keep);
        if (verbose) {
            Sender.log("original code back for " + passing + " (their frames were passing through at the switch)");
        }
    }

    /**
     * The classes with a frame in {@code then} that was passing through: above the frames its
     * thread still has in place in {@code now} (the same methods, outermost first), and with no
     * frame in place anywhere. A frame in place may be a long-running one (a loop, or a frame
     * waiting for one) or a hot method caught twice; either way its class is left alone.
     */
    static java.util.Set<String> passingClasses(Map<Thread, StackTraceElement[]> then,
            Map<Thread, StackTraceElement[]> now) {
        java.util.Set<String> seen = new java.util.HashSet<>();
        java.util.Set<String> inPlace = new java.util.HashSet<>();
        for (Map.Entry<Thread, StackTraceElement[]> e : then.entrySet()) {
            StackTraceElement[] before = e.getValue();
            StackTraceElement[] later = now.get(e.getKey());
            int common = 0;
            if (later != null) {
                while (common < before.length && common < later.length
                        && sameMethod(before[before.length - 1 - common], later[later.length - 1 - common])) {
                    common++;
                }
            }
            for (int i = 0; i < before.length; i++) {
                seen.add(before[i].getClassName());
                if (i >= before.length - common) {
                    inPlace.add(before[i].getClassName());
                }
            }
        }
        seen.removeAll(inPlace);
        return seen;
    }

    private static boolean sameMethod(StackTraceElement a, StackTraceElement b) {
        return a.getClassName().equals(b.getClassName()) && a.getMethodName().equals(b.getMethodName());
    }

    /** Rewrites the application classes loaded before the agent came (attach). */
    private static void retransformLoaded(Instrumentation inst, Options.Filter filter, boolean verbose) {
        retransformLoaded(inst, filter, verbose, java.util.Collections.emptySet());
    }

    /**
     * As above, leaving alone the classes named in {@code keep} (binary names); returns the
     * classes retransformed.
     */
    private static int retransformLoaded(Instrumentation inst, Options.Filter filter, boolean verbose,
            java.util.Set<String> keep) {
        if (!inst.isRetransformClassesSupported()) {
            Sender.log("this JVM cannot retransform classes; only classes loaded from now on are profiled");
            return 0;
        }
        List<Class<?>> todo = new ArrayList<>();
        for (Class<?> c : inst.getAllLoadedClasses()) {
            if (c.getClassLoader() == null || c.isArray() || c.isPrimitive() || !inst.isModifiableClass(c)) {
                continue;
            }
            String name = c.getName();
            if (name.indexOf('/') >= 0) {
                continue; // hidden classes (lambda proxies)
            }
            if (filter.accepts(name.replace('.', '/')) && !keep.contains(name)) {
                todo.add(c);
            }
        }
        int failed = 0;
        for (int i = 0; i < todo.size(); i += 64) {
            List<Class<?>> chunk = todo.subList(i, Math.min(todo.size(), i + 64));
            try {
                inst.retransformClasses(chunk.toArray(new Class<?>[0]));
            } catch (Throwable t) {
                for (Class<?> c : chunk) {
                    try {
                        inst.retransformClasses(c);
                    } catch (Throwable t2) {
                        failed++;
                        if (verbose) {
                            Sender.log("could not retransform " + c.getName() + ": " + t2);
                        }
                    }
                }
            }
        }
        if (verbose) {
            List<String> kept = new ArrayList<>();
            for (String name : keep) {
                if (filter.accepts(name.replace('.', '/'))) {
                    kept.add(name);
                }
            }
            Sender.log("retransformed " + (todo.size() - failed) + " loaded classes (" + failed + " failed)"
                    + (kept.isEmpty() ? "" : "; kept, running: " + kept));
        }
        return todo.size() - failed;
    }

    /** At JVM exit: send what is buffered, Goodbye, and close (bounded wait). */
    private static void shutdown() {
        Sender s;
        synchronized (Agent.class) {
            s = sender;
        }
        if (s != null && !s.finished) {
            s.finish(3000);
        }
    }
}
