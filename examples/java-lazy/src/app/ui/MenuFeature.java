package app.ui;

import app.AppContext;
import app.Feature;
import app.game.Game;
import app.util.log.Log;

/** Phase 1: the main menu, driven by a scripted "user" that starts a new game every few seconds. */
public final class MenuFeature implements Feature {
    private AppContext ctx;
    private Menu menu;
    private Game game;
    private int generation;

    @Override
    public String name() {
        return "menu";
    }

    @Override
    public void start(AppContext context) {
        this.ctx = context;
        this.menu = Menu.main(new Canvas(120, 40));
        game = Game.start(++generation, ctx);
        ctx.spawn("ui", this::uiLoop);
    }

    void uiLoop() {
        long restartMs = (long) (ctx.options.restartSeconds * 1000);
        long nextRestart = ctx.clock.elapsedMillis() + restartMs;
        int step = 0;
        while (ctx.running()) {
            menu.handle(step % 7 == 0 ? InputEvent.click(step % 120, step % 40) : InputEvent.key(step % 5));
            menu.paint();
            if (ctx.clock.elapsedMillis() >= nextRestart && generation <= ctx.options.maxLeaks) {
                newGame();
                nextRestart += restartMs;
            }
            step++;
            ctx.sleepMillis(30);
        }
    }

    void newGame() {
        menu.select(0);
        game = Game.restart(game, ++generation, ctx);
        Log.info("new game " + generation + " at " + ctx.clock.elapsedSeconds() + " s ("
                + (generation - 1) + " game thread(s) leaked)");
    }
}
