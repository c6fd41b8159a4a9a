package app.render;

import app.model.Mat4;
import app.model.Mesh;
import app.util.Maths;

/** Draws meshes as lines into a small frame buffer. */
public final class Rasterizer {
    private final int width;
    private final int height;
    private final int[] pixels;

    public Rasterizer(int width, int height) {
        this.width = width;
        this.height = height;
        this.pixels = new int[width * height];
    }

    public void clear() {
        fill(pixels, 0);
    }

    static void fill(int[] buffer, int value) {
        java.util.Arrays.fill(buffer, value);
    }

    public void draw(Mesh mesh, Camera camera) {
        int n = Math.min(mesh.vertexCount(), 6);
        for (int i = 0; i + 1 < n; i += 2) {
            int[] a = camera.project(mesh.vertex(i), width, height);
            int[] b = camera.project(mesh.vertex(i + 1), width, height);
            drawLine(a[0], a[1], b[0], b[1]);
        }
    }

    public void draw(Mesh mesh, Mat4 model, Camera camera) {
        int n = Math.min(mesh.vertexCount(), 4);
        for (int i = 0; i + 1 < n; i += 2) {
            int[] a = camera.project(model.multiply(mesh.vertex(i)), width, height);
            int[] b = camera.project(model.multiply(mesh.vertex(i + 1)), width, height);
            drawLine(a[0], a[1], b[0], b[1]);
        }
    }

    public void draw(Mesh[] meshes, Camera camera) {
        for (Mesh m : meshes) {
            draw(m, camera);
        }
    }

    void drawLine(int x0, int y0, int x1, int y1) {
        int steps = Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0));
        steps = Maths.clamp(steps, 1, 64);
        if (!clip(x0, y0) && !clip(x1, y1)) {
            return;
        }
        for (int s = 0; s <= steps; s++) {
            int x = x0 + (x1 - x0) * s / steps;
            int y = y0 + (y1 - y0) * s / steps;
            if (x >= 0 && y >= 0 && x < width && y < height) {
                pixels[y * width + x] = 0xFFFFFF;
            }
        }
    }

    boolean clip(int x, int y) {
        return x >= 0 && y >= 0 && x < width && y < height;
    }
}
