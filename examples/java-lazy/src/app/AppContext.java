package app;

import app.io.AssetLoader;
import app.io.ConfigParser;
import app.model.Entity;
import app.model.Scene;
import app.model.Vec3;
import app.util.Rng;
import app.util.log.Metrics;
import app.work.Job;
import app.work.JobQueue;
import java.util.ArrayList;
import java.util.List;

/** What every part of the application shares: options, the scene, the job queue, the clock. */
public final class AppContext {
    /** The application's clock. */
    public static final class Clock {
        private final long startNanos = System.nanoTime();

        public double elapsedSeconds() {
            return Math.round((System.nanoTime() - startNanos) / 1e7) / 100.0;
        }

        public long elapsedMillis() {
            return (System.nanoTime() - startNanos) / 1_000_000;
        }
    }

    public final Main.Options options;
    public final Clock clock = new Clock();
    private final long deadlineNanos;
    private final Scene scene = new Scene();
    private final JobQueue jobs = new JobQueue(256);
    private final AssetLoader assets = new AssetLoader(64);
    private final List<Feature> features = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final Rng rng = new Rng(42);

    AppContext(Main.Options options, long deadlineNanos) {
        this.options = options;
        this.deadlineNanos = deadlineNanos;
    }

    public boolean running() {
        return System.nanoTime() < deadlineNanos;
    }

    public Scene scene() {
        return scene;
    }

    public JobQueue jobs() {
        return jobs;
    }

    public AssetLoader assets() {
        return assets;
    }

    public Rng rng() {
        return rng;
    }

    /** Starts a daemon thread (the JVM exits when main is done, leaked threads or not). */
    public Thread spawn(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        synchronized (threads) {
            threads.add(t);
        }
        t.start();
        return t;
    }

    public void register(Feature f) {
        synchronized (features) {
            features.add(f);
        }
        Metrics.counter("features").add(1);
    }

    /** Reads a level description and fills the scene, loading its assets on the workers. */
    public void loadLevel(String name) {
        ConfigParser.Section level = new ConfigParser().parse(levelText(name));
        int count = level.intValue("entities", 40);
        for (int i = 0; i < count; i++) {
            Vec3 at = new Vec3(rng.nextFloat() * 100, 0, rng.nextFloat() * 100);
            scene.add(new Entity(i, i % 5 == 0 ? Entity.Kind.ENEMY : Entity.Kind.PROP, at));
        }
        for (String asset : level.list("assets")) {
            jobs.submit(new Job(Job.Kind.LOAD_ASSET, asset, assets));
        }
    }

    static String levelText(String name) {
        return "[level]\nname = " + name + "\nentities = 30\n"
                + "assets = mesh/ship, mesh/rock, tex/sky, tex/ground, sfx/engine, mesh/tower\n";
    }

    public boolean sleepMillis(long ms) {
        try {
            Thread.sleep(ms);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    String summary() {
        int n;
        synchronized (threads) {
            n = threads.size();
        }
        return n + " threads started, " + features.size() + " features, " + Metrics.snapshot();
    }
}
