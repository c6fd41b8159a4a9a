package app.editor;

import app.AppContext;
import app.Feature;

/** Phase 3: the level editor; a scripted user paints terrain, undoes and saves. */
public final class EditorFeature implements Feature {
    @Override
    public String name() {
        return "level editor";
    }

    @Override
    public void start(AppContext ctx) {
        Editor editor = new Editor(64, ctx);
        ctx.spawn("editor", () -> editLoop(ctx, editor));
    }

    static void editLoop(AppContext ctx, Editor editor) {
        Brush[] brushes = {new Brush(2, 0.5f), new Brush(5, 0.2f), new Brush(1)};
        int step = 0;
        while (ctx.running()) {
            Brush b = brushes[step % brushes.length];
            editor.applyBrush(b, ctx.rng().nextInt(64), ctx.rng().nextInt(64));
            if (step % 9 == 8) {
                editor.undo();
            }
            if (step % 50 == 49) {
                editor.save("level-draft");
            }
            step++;
            ctx.sleepMillis(25);
        }
    }
}
