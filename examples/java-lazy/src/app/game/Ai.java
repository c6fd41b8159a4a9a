package app.game;

import app.model.Entity;
import app.model.Vec3;
import app.util.Maths;
import app.util.Rng;

/** Enemies walk towards the player along a coarse grid path. */
public final class Ai {
    private final Rng rng;

    public Ai(long seed) {
        rng = new Rng(seed + 1);
    }

    public void think(Entity self, Entity player) {
        if (self.kind != Entity.Kind.ENEMY) {
            return;
        }
        Vec3 to = player.position().sub(self.position());
        int[] next = path((int) self.position().x, (int) self.position().z, (int) player.position().x,
                (int) player.position().z);
        float jitter = rng.nextFloat() * 0.1f;
        self.push(new Vec3(next[0] * 0.01f + jitter, 0, next[1] * 0.01f).add(to.scale(0.0001f)));
    }

    int[] path(int x0, int z0, int x1, int z1) {
        int dx = Maths.clamp(x1 - x0, -1, 1);
        int dz = Maths.clamp(z1 - z0, -1, 1);
        return new int[] {dx, score(x0 + dx, z0) < score(x0, z0 + dz) ? 0 : dz};
    }

    float score(int x, int z) {
        return Maths.noise(x, z);
    }
}
