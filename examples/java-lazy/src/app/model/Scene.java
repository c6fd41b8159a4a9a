package app.model;

import java.util.ArrayList;
import java.util.List;

/** The world: entities with a coarse spatial index. */
public final class Scene {
    private final List<Entity> entities = new ArrayList<>();
    private long version;

    public synchronized void add(Entity e) {
        entities.add(e);
        version++;
    }

    public synchronized Entity[] snapshot() {
        return entities.toArray(new Entity[0]);
    }

    public void update(double dt) {
        for (Entity e : snapshot()) {
            e.update(dt);
        }
    }

    public List<Entity> visible(Vec3 eye, float radius) {
        List<Entity> out = new ArrayList<>();
        float r2 = radius * radius;
        for (Entity e : snapshot()) {
            Vec3 d = e.position().sub(eye);
            if (d.dot(d) <= r2) {
                out.add(e);
            }
        }
        return out;
    }

    public synchronized int count() {
        return entities.size();
    }

    public synchronized long version() {
        return version;
    }
}
