package app.render;

import app.model.Mat4;
import app.model.Vec3;

/** A camera orbiting the scene's centre. */
public final class Camera {
    private Vec3 eye;
    private Vec3 target = new Vec3(50, 0, 50);
    private Mat4 view = Mat4.identity();

    public Camera(Vec3 eye) {
        this.eye = eye;
    }

    public void orbit(double angle) {
        eye = Mat4.rotationY(angle).multiply(new Vec3(0, 20, -60)).add(target);
        lookAt(target);
    }

    public void lookAt(Vec3 t) {
        target = t;
        Vec3 forward = t.sub(eye).normalize();
        Vec3 right = forward.cross(Vec3.UP).normalize();
        view = Mat4.translate(eye.scale(-1)).multiply(Mat4.rotationY(Math.atan2(right.z, right.x)));
    }

    public int[] project(Vec3 p, int width, int height) {
        Vec3 v = view.multiply(p);
        float depth = Math.max(0.1f, v.z + 60);
        return new int[] {(int) (width / 2 + v.x * 40 / depth), (int) (height / 2 - v.y * 40 / depth)};
    }

    public Vec3 eye() {
        return eye;
    }
}
