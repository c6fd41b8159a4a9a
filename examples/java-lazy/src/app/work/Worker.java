package app.work;

import app.AppContext;
import app.util.log.Metrics;

/** A worker thread: takes jobs, and when idle makes some (texture streaming). */
public final class Worker implements Runnable {
    private static final String[] STREAMED = {"tex/far-0", "tex/far-1", "tex/far-2", "mesh/lod-3", "sfx/wind"};
    private final int index;
    private final JobQueue queue;
    private final AppContext ctx;
    private int round;

    public Worker(int index, JobQueue queue, AppContext ctx) {
        this.index = index;
        this.queue = queue;
        this.ctx = ctx;
    }

    @Override
    public void run() {
        while (ctx.running()) {
            try {
                Job job = queue.take(20);
                if (job != null) {
                    process(job);
                } else {
                    idle();
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    void process(Job job) {
        long result = job.execute();
        Metrics.counter("jobs." + job.kind.name().toLowerCase()).add(1);
        if (result < 0) {
            Metrics.counter("jobs.failed").add(1);
        }
    }

    void idle() {
        round++;
        String name = STREAMED[(round + index) % STREAMED.length] + "-" + (round % 40);
        Job.Kind kind = round % 3 == 0 ? Job.Kind.CHECKSUM : round % 3 == 1 ? Job.Kind.ENCODE : Job.Kind.LOAD_ASSET;
        process(new Job(kind, name, ctx.assets()));
    }
}
