package app.util;

/** Numeric helpers. */
public final class Maths {
    private Maths() {}

    public static int clamp(int v, int lo, int hi) {
        return v < lo ? lo : v > hi ? hi : v;
    }

    public static double clamp(double v, double lo, double hi) {
        return v < lo ? lo : v > hi ? hi : v;
    }

    public static float lerp(float a, float b, float t) {
        return a + (b - a) * t;
    }

    public static double lerp(double a, double b, double t) {
        return a + (b - a) * t;
    }

    public static float fastSqrt(float x) {
        if (x <= 0) {
            return 0;
        }
        float g = x;
        for (int i = 0; i < 6; i++) {
            g = 0.5f * (g + x / g);
        }
        return g;
    }

    public static float noise(int x, int y) {
        int n = x * 374761393 + y * 668265263;
        n = (n ^ (n >>> 13)) * 1274126177;
        return ((n ^ (n >>> 16)) & 0xFFFF) / 65535f;
    }

    public static double noise(double x, double y) {
        int xi = (int) Math.floor(x);
        int yi = (int) Math.floor(y);
        double fx = x - xi;
        double fy = y - yi;
        double top = lerp(noise(xi, yi), noise(xi + 1, yi), fx);
        double bottom = lerp(noise(xi, yi + 1), noise(xi + 1, yi + 1), fx);
        return lerp(top, bottom, fy);
    }
}
