package app.editor;

import java.util.ArrayDeque;

/** A bounded undo history. */
final class UndoStack {
    /** One edit: where, and the heights before it. */
    static final class Edit {
        final int x;
        final int z;
        final float[] before;

        Edit(int x, int z, float[] before) {
            this.x = x;
            this.z = z;
            this.before = before;
        }
    }

    private final ArrayDeque<Edit> edits = new ArrayDeque<>();
    private final int limit;

    UndoStack(int limit) {
        this.limit = limit;
    }

    void push(Edit e) {
        edits.push(e);
        if (edits.size() > limit) {
            edits.removeLast();
        }
    }

    Edit pop() {
        return edits.poll();
    }

    void clear() {
        edits.clear();
    }
}
