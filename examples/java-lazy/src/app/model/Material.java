package app.model;

import app.util.Maths;

/** A colour and how shiny it is. */
public final class Material {
    public final float r;
    public final float g;
    public final float b;
    public final float shininess;

    public Material(float r, float g, float b, float shininess) {
        this.r = r;
        this.g = g;
        this.b = b;
        this.shininess = shininess;
    }

    public Material(int rgb) {
        this(((rgb >> 16) & 0xFF) / 255f, ((rgb >> 8) & 0xFF) / 255f, (rgb & 0xFF) / 255f, 0.5f);
    }

    public Material blend(Material o, float t) {
        return new Material(Maths.lerp(r, o.r, t), Maths.lerp(g, o.g, t), Maths.lerp(b, o.b, t),
                Maths.lerp(shininess, o.shininess, t));
    }

    public int rgb() {
        return ((int) (r * 255) << 16) | ((int) (g * 255) << 8) | (int) (b * 255);
    }
}
