package app.model;

/** Triangles as a flat array of vertices. */
public final class Mesh {
    private final String name;
    private final Vec3[] vertices;

    public Mesh(String name, Vec3[] vertices) {
        this.name = name;
        this.vertices = vertices;
    }

    public static Mesh cube(float size) {
        Vec3[] v = new Vec3[36];
        for (int i = 0; i < v.length; i++) {
            v[i] = new Vec3((i & 1) * size, ((i >> 1) & 1) * size, ((i >> 2) & 1) * size);
        }
        return new Mesh("cube", v);
    }

    public static Mesh grid(int cells) {
        Vec3[] v = new Vec3[cells * cells * 6];
        for (int i = 0; i < v.length; i++) {
            int c = i / 6;
            v[i] = new Vec3(c % cells, 0, c / cells);
        }
        return new Mesh("grid" + cells, v);
    }

    public String name() {
        return name;
    }

    public int vertexCount() {
        return vertices.length;
    }

    public Vec3 vertex(int i) {
        return vertices[i];
    }

    public float[] bounds() {
        float[] b = {Float.MAX_VALUE, Float.MAX_VALUE, -Float.MAX_VALUE, -Float.MAX_VALUE};
        for (Vec3 v : vertices) {
            b[0] = Math.min(b[0], v.x);
            b[1] = Math.min(b[1], v.z);
            b[2] = Math.max(b[2], v.x);
            b[3] = Math.max(b[3], v.z);
        }
        return b;
    }

    public Mesh transform(Mat4 m) {
        Vec3[] out = new Vec3[vertices.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = m.multiply(vertices[i]);
        }
        return new Mesh(name, out);
    }
}
