package io.highrise.agent;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Phase marks ({@code io.highrise.Highrise.phase("parse")} of the API jar, which finds this class
 * reflectively when the agent is loaded): a phase is a frame of the method
 * {@code highrise.phase.NAME} on the thread that opened it, until it is closed, so that
 * {@code highrise classes} and {@code highrise predict --phase phase.NAME} cut the run there
 * (Murphy &amp; Saenko 1998's phases). Never throws.
 */
public final class Phases {
    private static final ConcurrentHashMap<String, Integer> IDS = new ConcurrentHashMap<>();

    private Phases() {}

    /** An open phase: its thread's ring and its method. */
    static final class Open {
        final Ring ring;
        final int id;

        Open(Ring ring, int id) {
            this.ring = ring;
            this.id = id;
        }
    }

    /** Opens phase {@code name} on this thread; what {@link #exit(Object)} takes (null: not recorded). */
    public static Object enter(String name) {
        if (Recorder.session == 0 || name == null || name.isEmpty()) {
            return null;
        }
        int id = idOf(name);
        if (id < 0) {
            return null;
        }
        Ring ring = Recorder.enter(id);
        return ring == null ? null : new Open(ring, id);
    }

    /** Closes what {@link #enter(String)} opened. */
    public static void exit(Object open) {
        if (open instanceof Open) {
            Open o = (Open) open;
            if (LiveObjects.enabled) {
                LiveObjects.snapshot(o.ring);
            }
            Recorder.exit(o.ring, o.id);
        }
    }

    private static int idOf(String name) {
        Integer known = IDS.get(name);
        if (known != null) {
            return known;
        }
        int id = Methods.reserve("highrise.phase." + name + " (phase)");
        if (id >= 0) {
            Methods.define(new MethodDef(id, "highrise", "phase", name, null, null, -1));
            IDS.put(name, id);
        }
        return id;
    }
}
