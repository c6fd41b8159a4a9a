package app.render;

import app.model.Material;
import app.model.Vec3;
import app.util.Maths;

/** Per-vertex lighting. */
public final class Shader {
    private final String name;
    private final Vec3 light = new Vec3(0.3f, 1, 0.2f).normalize();

    private Shader(String name) {
        this.name = name;
    }

    public static Shader compile(String source) {
        return new Shader(source);
    }

    public int shade(Vec3 normal, Material m) {
        float l = lighting(normal.normalize(), light);
        return new Material(m.r * l, m.g * l, m.b * l, m.shininess).rgb();
    }

    public float[] shade(float[] intensities) {
        float[] out = new float[intensities.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = (float) Maths.clamp(intensities[i] * 0.8 + 0.2, 0, 1);
        }
        return out;
    }

    static float lighting(Vec3 n, Vec3 l) {
        return (float) Maths.clamp(n.dot(l), 0.15, 1.0);
    }

    public String name() {
        return name;
    }
}
