package app.model;

import app.util.Maths;

/** An immutable 3-vector. */
public final class Vec3 {
    public static final Vec3 ZERO = new Vec3(0, 0, 0);
    public static final Vec3 UP = new Vec3(0, 1, 0);
    public final float x;
    public final float y;
    public final float z;

    public Vec3(float x, float y, float z) {
        this.x = x;
        this.y = y;
        this.z = z;
    }

    public Vec3(float[] xyz) {
        this(xyz[0], xyz[1], xyz[2]);
    }

    public Vec3 add(Vec3 o) {
        return new Vec3(x + o.x, y + o.y, z + o.z);
    }

    public Vec3 sub(Vec3 o) {
        return new Vec3(x - o.x, y - o.y, z - o.z);
    }

    public Vec3 scale(float f) {
        return new Vec3(x * f, y * f, z * f);
    }

    public Vec3 scale(Vec3 f) {
        return new Vec3(x * f.x, y * f.y, z * f.z);
    }

    public float dot(Vec3 o) {
        return x * o.x + y * o.y + z * o.z;
    }

    public Vec3 cross(Vec3 o) {
        return new Vec3(y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x);
    }

    public float length() {
        return Maths.fastSqrt(dot(this));
    }

    public Vec3 normalize() {
        float l = length();
        return l == 0 ? this : scale(1 / l);
    }

    @Override
    public String toString() {
        return "(" + x + ", " + y + ", " + z + ")";
    }
}
