package app.editor;

import app.AppContext;
import app.io.Codec;
import app.io.Compression;
import app.util.log.Metrics;

/** A height-map editor with undo. */
public final class Editor {
    private final int size;
    private final float[] heights;
    private final UndoStack undo = new UndoStack(32);
    private final AppContext ctx;

    public Editor(int size, AppContext ctx) {
        this.size = size;
        this.heights = new float[size * size];
        this.ctx = ctx;
    }

    public void applyBrush(Brush b, int cx, int cz) {
        undo.push(new UndoStack.Edit(cx, cz, snapshot(cx, cz, b.radius())));
        b.stroke(heights, size, cx, cz);
    }

    float[] snapshot(int cx, int cz, int r) {
        float[] out = new float[(2 * r + 1) * (2 * r + 1)];
        int k = 0;
        for (int z = cz - r; z <= cz + r; z++) {
            for (int x = cx - r; x <= cx + r; x++) {
                out[k++] = inside(x, z) ? heights[z * size + x] : 0;
            }
        }
        return out;
    }

    boolean inside(int x, int z) {
        return x >= 0 && z >= 0 && x < size && z < size;
    }

    public boolean undo() {
        UndoStack.Edit e = undo.pop();
        if (e == null) {
            return false;
        }
        int r = (int) Math.sqrt(e.before.length) / 2;
        int k = 0;
        for (int z = e.z - r; z <= e.z + r; z++) {
            for (int x = e.x - r; x <= e.x + r; x++) {
                if (inside(x, z)) {
                    heights[z * size + x] = e.before[k];
                }
                k++;
            }
        }
        return true;
    }

    public int save(String name) {
        byte[] data = Compression.compress(Codec.encode(heights));
        Metrics.counter("editor.saved_bytes").add(data.length);
        ctx.assets().load(name + "-preview", 1024);
        return data.length;
    }
}
