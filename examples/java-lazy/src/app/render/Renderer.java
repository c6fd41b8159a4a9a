package app.render;

import app.AppContext;
import app.model.Entity;
import app.model.Material;
import app.model.Mat4;
import app.model.Mesh;
import app.model.Scene;
import app.model.Vec3;
import app.util.log.Metrics;
import java.util.List;

/** The render loop: about 60 frames a second of culling, transforming and shading. */
public final class Renderer {
    private final Scene scene;
    private final AppContext ctx;
    private final Camera camera = new Camera(new Vec3(50, 20, -10));
    private final Rasterizer rasterizer = new Rasterizer(160, 90);
    private final Shader shader = Shader.compile("phong");
    private final FrameStats stats = new FrameStats(120);
    private final Mesh[] meshes = {Mesh.cube(1), Mesh.grid(4)};
    private final Material[] materials = {new Material(0xC04030), new Material(0x3060C0)};
    private long frames;

    public Renderer(Scene scene, AppContext ctx) {
        this.scene = scene;
        this.ctx = ctx;
    }

    public void run() {
        while (ctx.running()) {
            long start = System.nanoTime();
            frame();
            long spent = System.nanoTime() - start;
            stats.record(spent);
            long sleepMs = Math.max(1, 16 - spent / 1_000_000);
            ctx.sleepMillis(sleepMs);
        }
    }

    void frame() {
        frames++;
        scene.update(1 / 60.0);
        camera.orbit(frames * 0.01);
        List<Entity> visible = scene.visible(camera.eye(), 60);
        rasterizer.clear();
        int drawn = 0;
        for (Entity e : visible) {
            if (drawn++ == 8) {
                break; // a draw budget per frame
            }
            Mat4 model = Mat4.translate(e.position());
            rasterizer.draw(meshes[e.id % meshes.length], model, camera);
            shader.shade(e.velocity(), materials[e.id % materials.length]);
        }
        if (frames % 30 == 0) {
            rasterizer.draw(meshes, camera);
            meshes[frames % 60 == 0 ? 0 : 1].transform(Mat4.rotationY(frames * 0.01));
        }
        present();
    }

    void present() {
        Metrics.counter("frames").add(1);
        if (frames % 600 == 0) {
            stats.reset();
        }
    }
}
