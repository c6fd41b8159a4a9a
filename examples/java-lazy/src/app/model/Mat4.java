package app.model;

/** A 4x4 row-major matrix. */
public final class Mat4 {
    final float[] m = new float[16];

    public static Mat4 identity() {
        Mat4 r = new Mat4();
        r.m[0] = r.m[5] = r.m[10] = r.m[15] = 1;
        return r;
    }

    public static Mat4 rotationY(double angle) {
        Mat4 r = identity();
        float c = (float) Math.cos(angle);
        float s = (float) Math.sin(angle);
        r.m[0] = c;
        r.m[2] = s;
        r.m[8] = -s;
        r.m[10] = c;
        return r;
    }

    public static Mat4 translate(Vec3 t) {
        Mat4 r = identity();
        r.m[3] = t.x;
        r.m[7] = t.y;
        r.m[11] = t.z;
        return r;
    }

    public Mat4 multiply(Mat4 o) {
        Mat4 r = new Mat4();
        for (int i = 0; i < 4; i++) {
            for (int j = 0; j < 4; j++) {
                float s = 0;
                for (int k = 0; k < 4; k++) {
                    s += m[i * 4 + k] * o.m[k * 4 + j];
                }
                r.m[i * 4 + j] = s;
            }
        }
        return r;
    }

    public Vec3 multiply(Vec3 v) {
        return new Vec3(m[0] * v.x + m[1] * v.y + m[2] * v.z + m[3],
                m[4] * v.x + m[5] * v.y + m[6] * v.z + m[7],
                m[8] * v.x + m[9] * v.y + m[10] * v.z + m[11]);
    }
}
