package app.game;

import app.AppContext;
import app.model.Entity;
import app.model.Vec3;
import app.util.log.Metrics;

/**
 * One game session, ticking on its own thread. The bug this example carries (the paper's thread
 * leak): {@link #restart} makes a new game and only <em>pauses</em> the old one, whose thread
 * then waits in {@link #run} forever. Each "new game" from the menu leaks one thread; in
 * highrise {@code Game.run} climbs to 100 % with one more thread each time.
 */
public final class Game implements Runnable {
    private final int generation;
    private final AppContext ctx;
    private final Physics physics = new Physics();
    private final Ai ai;
    private final Entity[] actors;
    private volatile boolean paused;
    private volatile boolean stopped;
    private long ticks;

    public Game(int generation, AppContext ctx) {
        this.generation = generation;
        this.ctx = ctx;
        this.ai = new Ai(generation);
        this.actors = new Entity[10];
        for (int i = 0; i < actors.length; i++) {
            Entity.Kind kind = i == 0 ? Entity.Kind.PLAYER : Entity.Kind.ENEMY;
            actors[i] = new Entity(1000 * generation + i, kind, new Vec3(i * 3, 0, generation));
        }
    }

    /** Starts a game thread named game-N. */
    public static Game start(int generation, AppContext ctx) {
        Game g = new Game(generation, ctx);
        ctx.spawn("game-" + generation, g);
        return g;
    }

    /** The bug: pauses the old game instead of stopping it. */
    public static Game restart(Game old, int generation, AppContext ctx) {
        if (old != null) {
            old.pause();
        }
        Metrics.counter("games.restarted").add(1);
        return start(generation, ctx);
    }

    @Override
    public void run() {
        while (!stopped && ctx.running()) {
            if (paused) {
                // Waits for a resume that never comes (nobody holds this game any more).
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
                continue;
            }
            tick();
            ctx.sleepMillis(20);
        }
    }

    void tick() {
        ticks++;
        for (Entity e : actors) {
            ai.think(e, actors[0]);
        }
        physics.step(actors, 0.01);
        if (ticks % 50 == 0) {
            score();
        }
    }

    int score() {
        int alive = 0;
        for (Entity e : actors) {
            if (e.alive()) {
                alive++;
            }
        }
        return alive * generation;
    }

    public void pause() {
        paused = true;
    }

    public void stop() {
        stopped = true;
    }
}
