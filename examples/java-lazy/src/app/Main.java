package app;

import app.util.log.Log;
import app.work.JobQueue;
import app.work.Worker;
import app.render.Renderer;
import java.util.ArrayList;
import java.util.List;

/**
 * A headless "game studio" application whose classes load in phases, for watching a city grow
 * in highrise: start-up (util, model, io, render, work), then after a few seconds the menu
 * (app.ui, app.game: each "new game" leaks the previous game's thread, stuck in Game.run as in
 * the paper's thread-leak case study), later multiplayer (app.net) and the level editor
 * (app.editor). Features are loaded by name through {@link FeatureLoader}, so their classes load
 * only when their phase begins.
 *
 * Usage: java app.Main [--seconds N] [--phase-seconds S] [--restart-seconds R] [--max-leaks K]
 */
public final class Main {
    /** Command-line options. */
    public static final class Options {
        public double seconds;
        public double phaseSeconds = 2.0;
        public double restartSeconds = 3.0;
        public int maxLeaks = 6;
        public int workers = 2;

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                String v = i + 1 < args.length ? args[i + 1] : "0";
                switch (a) {
                    case "--seconds": o.seconds = Double.parseDouble(v); i++; break;
                    case "--phase-seconds": o.phaseSeconds = Double.parseDouble(v); i++; break;
                    case "--restart-seconds": o.restartSeconds = Double.parseDouble(v); i++; break;
                    case "--max-leaks": o.maxLeaks = Integer.parseInt(v); i++; break;
                    case "--workers": o.workers = Integer.parseInt(v); i++; break;
                    default:
                        if (a.matches("[0-9.]+")) {
                            o.seconds = Double.parseDouble(a);
                        } else {
                            throw new IllegalArgumentException("unknown option " + a);
                        }
                }
            }
            return o;
        }

        long deadlineNanos(long start) {
            return seconds > 0 ? start + (long) (seconds * 1e9) : Long.MAX_VALUE;
        }
    }

    private Main() {}

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        long start = System.nanoTime();
        AppContext ctx = new AppContext(options, options.deadlineNanos(start));
        Log.info("pid " + ProcessHandle.current().pid() + ", package " + Main.class.getPackageName()
                + (options.seconds > 0 ? ", running " + options.seconds + " s" : ", running until killed"));
        startUp(ctx);
        String[][] phases = {
            {"ui.MenuFeature", "menu"},
            {"net.NetFeature", "multiplayer"},
            {"editor.EditorFeature", "level editor"},
        };
        for (int i = 0; i < phases.length && ctx.running(); i++) {
            ctx.sleepMillis((long) (options.phaseSeconds * 1000));
            if (!ctx.running()) {
                break;
            }
            Log.info("phase " + (i + 1) + " at " + ctx.clock.elapsedSeconds() + " s: loading "
                    + Main.class.getPackageName() + "." + phases[i][0] + " (" + phases[i][1] + ")");
            FeatureLoader.load(ctx, phases[i][0]);
        }
        while (ctx.running()) {
            ctx.sleepMillis(100);
        }
        Log.info("done after " + ctx.clock.elapsedSeconds() + " s: " + ctx.summary());
        System.exit(0);
    }

    /** Phase 0: the renderer and the workers. */
    static void startUp(AppContext ctx) {
        Log.info("phase 0 at " + ctx.clock.elapsedSeconds() + " s: start-up (util, model, io, render, work)");
        JobQueue jobs = ctx.jobs();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < ctx.options.workers; i++) {
            threads.add(ctx.spawn("worker-" + i, new Worker(i, jobs, ctx)));
        }
        Renderer renderer = new Renderer(ctx.scene(), ctx);
        threads.add(ctx.spawn("render", renderer::run));
        ctx.loadLevel("assets/level-1.cfg");
    }
}
