package app.editor;

import app.util.Maths;

/** A round brush that raises terrain. */
public final class Brush {
    private final int radius;
    private final float strength;

    public Brush(int radius, float strength) {
        this.radius = radius;
        this.strength = strength;
    }

    public Brush(int radius) {
        this(radius, 1.0f);
    }

    int radius() {
        return radius;
    }

    void stroke(float[] heights, int size, int cx, int cz) {
        for (int z = cz - radius; z <= cz + radius; z++) {
            for (int x = cx - radius; x <= cx + radius; x++) {
                if (x >= 0 && z >= 0 && x < size && z < size) {
                    heights[z * size + x] += falloff(x - cx, z - cz);
                }
            }
        }
    }

    float falloff(int dx, int dz) {
        float d = Maths.fastSqrt(dx * dx + dz * dz) / (radius + 1);
        return strength * (float) Maths.clamp(1.0 - d, 0.0, 1.0);
    }
}
