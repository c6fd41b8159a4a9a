package app.game;

import app.model.Entity;
import app.model.Vec3;

/** Integration and naive pairwise collisions. */
public final class Physics {
    private static final Vec3 GRAVITY = new Vec3(0, -9.81f, 0);

    public void step(Entity[] entities, double dt) {
        for (Entity e : entities) {
            integrate(e, dt);
        }
        for (int i = 0; i < entities.length; i++) {
            for (int j = i + 1; j < entities.length; j++) {
                if (collide(entities[i], entities[j])) {
                    resolve(entities[i], entities[j]);
                }
            }
        }
    }

    void integrate(Entity e, double dt) {
        if (e.position().y > 0) {
            e.push(GRAVITY.scale((float) dt));
        }
        e.update(dt);
    }

    boolean collide(Entity a, Entity b) {
        Vec3 d = a.position().sub(b.position());
        return d.dot(d) < 1.0f;
    }

    void resolve(Entity a, Entity b) {
        Vec3 push = a.position().sub(b.position()).normalize().scale(0.1f);
        a.push(push);
        b.push(push.scale(-1));
        a.damage(1);
    }
}
