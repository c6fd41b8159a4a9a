package io.highrise.bench;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import jdk.jfr.consumer.RecordingStream;

/**
 * Feasibility probe for a sampled mode: the JVM's own sampler streamed in-process, as a sampled
 * mode of the agent would use it. Starts a JFR {@link RecordingStream} of
 * {@code jdk.ExecutionSample} and {@code jdk.NativeMethodSample} at PERIOD_MS on a daemon thread,
 * runs MAIN_CLASS's main with ARGS, and at exit prints on stderr what arrived: samples per
 * second, frames per sample, flushes (how often samples reach a consumer) and the lag of the last
 * sample at its callback. Compare its wall time with the program run plainly (BENCHMARKS.md,
 * "The JVM's own sampler").
 * Usage: JfrSampler PERIOD_MS MAIN_CLASS [ARGS...]
 */
public final class JfrSampler {
    private JfrSampler() {}

    public static void main(String[] args) throws Exception {
        int periodMs = Integer.parseInt(args[0]);
        AtomicLong execution = new AtomicLong();
        AtomicLong nativeSamples = new AtomicLong();
        AtomicLong frames = new AtomicLong();
        AtomicLong flushes = new AtomicLong();
        AtomicLong lagMs = new AtomicLong();
        RecordingStream stream = new RecordingStream();
        stream.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(periodMs));
        stream.enable("jdk.NativeMethodSample").withPeriod(Duration.ofMillis(periodMs));
        stream.setMaxAge(Duration.ofSeconds(5));
        stream.onEvent("jdk.ExecutionSample", e -> {
            execution.incrementAndGet();
            frames.addAndGet(e.getStackTrace() == null ? 0 : e.getStackTrace().getFrames().size());
            lagMs.set(System.currentTimeMillis() - e.getStartTime().toEpochMilli());
        });
        stream.onEvent("jdk.NativeMethodSample", e -> nativeSamples.incrementAndGet());
        stream.onFlush(flushes::incrementAndGet);
        Thread streamer = new Thread(stream::start, "jfr-sampler");
        streamer.setDaemon(true);
        streamer.start();
        long start = System.nanoTime();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            double s = (System.nanoTime() - start) / 1e9;
            long n = execution.get();
            System.err.printf("jfr-sampler: period %d ms, %.1f s: %d execution samples (%.0f/s), %d native"
                    + " samples, %.1f frames/sample, %d flushes, last lag %d ms%n", periodMs, s, n, n / s,
                    nativeSamples.get(), n == 0 ? 0.0 : (double) frames.get() / n, flushes.get(), lagMs.get());
        }));
        Method main = Class.forName(args[1]).getMethod("main", String[].class);
        main.invoke(null, (Object) Arrays.copyOfRange(args, 2, args.length));
    }
}
