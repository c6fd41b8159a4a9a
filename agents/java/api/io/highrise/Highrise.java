package io.highrise;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The highrise API a Java program compiles against ({@code build/highrise-api.jar}, a few
 * classes, no dependencies): phase marks for {@code highrise classes} and {@code highrise
 * predict}.
 *
 * <pre>
 * try (Highrise.Phase p = Highrise.phase("parse")) {
 *     tree = parser.parse(text);
 * }
 * </pre>
 *
 * With the highrise agent loaded ({@code -javaagent:highrise-agent.jar} or {@code highrise
 * attach}), a phase is a frame of the method {@code highrise.phase.NAME} on the thread that
 * opened it until it is closed; without it, a phase costs a static field read.
 */
public final class Highrise {
    private Highrise() {}

    /** Opens phase {@code name} on this thread; close it (try-with-resources) on the same thread. */
    public static Phase phase(String name) {
        MethodHandle enter = Agent.ENTER;
        if (enter == null) {
            return Phase.NONE;
        }
        try {
            return new Phase((Object) enter.invokeExact(name));
        } catch (Throwable ignored) {
            return Phase.NONE;
        }
    }

    /** An open phase. */
    public static final class Phase implements AutoCloseable {
        static final Phase NONE = new Phase(null);
        private final Object open;

        Phase(Object open) {
            this.open = open;
        }

        /** Ends the phase. */
        @Override
        public void close() {
            MethodHandle exit = Agent.EXIT;
            if (open == null || exit == null) {
                return;
            }
            try {
                exit.invokeExact(open);
            } catch (Throwable ignored) {
                // never disturbs the program
            }
        }
    }

    /** The agent's phase hooks, when the agent is loaded (looked up once). */
    private static final class Agent {
        static final MethodHandle ENTER;
        static final MethodHandle EXIT;

        static {
            MethodHandle enter = null;
            MethodHandle exit = null;
            try {
                Class<?> phases = Class.forName("io.highrise.agent.Phases", true, ClassLoader.getSystemClassLoader());
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                enter = lookup.findStatic(phases, "enter", MethodType.methodType(Object.class, String.class));
                exit = lookup.findStatic(phases, "exit", MethodType.methodType(void.class, Object.class));
            } catch (Throwable notLoaded) {
                enter = null;
                exit = null;
            }
            ENTER = enter;
            EXIT = exit;
        }
    }
}
