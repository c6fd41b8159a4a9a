package io.highrise.agent;

import java.util.Arrays;

/**
 * What the session has told the viewer of the registries (sender thread only): the method
 * definitions ({@link Methods}), class definitions ({@link Classes}) and class relations
 * ({@link Relations}) sent so far, and the sending of the new ones, in frames of at most
 * {@link #DEFS_PER_FRAME}, before any event, record or relation on the wire names them.
 */
final class SentDefinitions {
    static final int DEFS_PER_FRAME = 1000;

    private final Wire wire;
    private boolean[] sentIds = new boolean[1024];
    private int defsSent;
    /** Class ids below this one are defined on the wire (ids are dense). */
    int classDefsSent;
    private int relationsSent;

    SentDefinitions(Wire wire) {
        this.wire = wire;
    }

    /** Method {@code id} defined on the wire, with every method registered since the last send. */
    void ensureDefined(int id) {
        if (id < sentIds.length && sentIds[id]) {
            return;
        }
        sendDefinitions();
    }

    /** Every method registered since the last send. */
    void sendDefinitions() {
        if (Methods.count() <= defsSent) {
            return;
        }
        MethodDef[] defs = Methods.since(defsSent);
        for (int from = 0; from < defs.length; from += DEFS_PER_FRAME) {
            int to = Math.min(defs.length, from + DEFS_PER_FRAME);
            wire.defineMethods(defs, from, to);
        }
        for (MethodDef d : defs) {
            if (d.id >= sentIds.length) {
                sentIds = Arrays.copyOf(sentIds, Math.max(sentIds.length * 2, d.id + 1));
            }
            sentIds[d.id] = true;
        }
        defsSent += defs.length;
    }

    /** Every class id reserved so far (dense, in id order), before a record names one. */
    void sendClassDefinitions() {
        if (Classes.count() <= classDefsSent) {
            return;
        }
        ClassDef[] defs = Classes.since(classDefsSent);
        for (int from = 0; from < defs.length; from += DEFS_PER_FRAME) {
            wire.defineClasses(defs, from, Math.min(defs.length, from + DEFS_PER_FRAME));
        }
        classDefsSent += defs.length;
    }

    /** Class relations not sent yet, after the definitions of every class they name. */
    void sendRelations() {
        if (Relations.count() <= relationsSent) {
            return;
        }
        sendClassDefinitions();
        relationsSent = Relations.send(wire, relationsSent, DEFS_PER_FRAME, classDefsSent);
    }
}
