package app.model;

/** Something in the scene. */
public final class Entity {
    /** What kind of thing. */
    public enum Kind { PLAYER, ENEMY, PROP }

    public final int id;
    public final Kind kind;
    private Vec3 position;
    private Vec3 velocity = Vec3.ZERO;
    private int health = 100;

    public Entity(int id, Kind kind, Vec3 position) {
        this.id = id;
        this.kind = kind;
        this.position = position;
    }

    public void update(double dt) {
        position = position.add(velocity.scale((float) dt));
        if (position.y < 0) {
            position = new Vec3(position.x, 0, position.z);
        }
    }

    public void push(Vec3 impulse) {
        velocity = velocity.add(impulse);
    }

    public void damage(int amount) {
        health = Math.max(0, health - amount);
    }

    public boolean alive() {
        return health > 0;
    }

    public Vec3 position() {
        return position;
    }

    public Vec3 velocity() {
        return velocity;
    }
}
