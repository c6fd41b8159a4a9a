package io.highrise.agent;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingStream;

/**
 * The JVM's own sampler for the sampled mode ({@link Sampling}): JFR's {@code jdk.ExecutionSample}
 * (threads running Java code) and {@code jdk.NativeMethodSample} (threads in native code) streamed
 * in-process every {@code sample} ms. Each sample's frames become the thread's profiled stack:
 * the frames of methods the agent defined (its filter's classes), outermost first. JDK 14+
 * ({@code RecordingStream}); built with --release 17 and loaded by name only in the sampled mode,
 * so the rest of the agent still runs on JDK 11.
 */
final class JfrSource implements Sampling.Source {
    /** How often JFR hands its samples over, milliseconds (see {@link #flushOften}). */
    static final long FLUSH_MS = 100;

    private RecordingStream stream;

    @Override
    public void start(Sampling sampling) {
        RecordingStream recording = new RecordingStream();
        Duration period = Duration.ofMillis(sampling.periodMs);
        recording.enable("jdk.ExecutionSample").withPeriod(period);
        recording.enable("jdk.NativeMethodSample").withPeriod(period);
        recording.setMaxAge(Duration.ofSeconds(5));
        flushOften(recording);
        recording.onEvent("jdk.ExecutionSample", e -> take(sampling, e));
        recording.onEvent("jdk.NativeMethodSample", e -> take(sampling, e));
        // Not startAsync: its thread is not a daemon and would keep the JVM from exiting.
        Thread streamer = new Thread(recording::start, "highrise-agent-jfr");
        streamer.setDaemon(true);
        streamer.start();
        stream = recording;
    }

    /**
     * JFR hands a stream its events at each flush, once a second by default; at the program's end
     * the last second's never arrive, and the stack delivered last would hold over it (measured
     * on 1 s Maven builds: one method read 15-24 % of the run that JFR barely sampled). The
     * interval is not public in JDK 17, so it is set through the package the agent opens to
     * itself; where that fails the stream keeps JFR's second.
     */
    private static void flushOften(RecordingStream recording) {
        try {
            Agent.openToAgent(RecordingStream.class.getModule(), "jdk.jfr", "jdk.jfr.consumer");
            java.lang.reflect.Field inner = RecordingStream.class.getDeclaredField("recording");
            inner.setAccessible(true);
            java.lang.reflect.Method set = jdk.jfr.Recording.class.getDeclaredMethod("setFlushInterval",
                    Duration.class);
            set.setAccessible(true);
            set.invoke(inner.get(recording), Duration.ofMillis(FLUSH_MS));
        } catch (Throwable t) {
            Sender.log("JFR flushes every second (" + t + "): the run's last second goes to the last sample");
        }
    }

    @Override
    public void close() {
        RecordingStream recording = stream;
        if (recording != null) {
            recording.close();
        }
    }

    private static void take(Sampling sampling, RecordedEvent event) {
        RecordedThread thread = event.getThread("sampledThread");
        RecordedStackTrace trace = event.getStackTrace();
        if (thread == null || trace == null) {
            return;
        }
        List<RecordedFrame> frames = trace.getFrames();
        int[] ids = new int[frames.size()];
        int n = 0;
        StringBuilder key = new StringBuilder(128);
        for (int i = frames.size() - 1; i >= 0; i--) { // JFR lists the top frame first
            RecordedFrame frame = frames.get(i);
            if (!frame.isJavaFrame()) {
                continue;
            }
            RecordedMethod method = frame.getMethod();
            key.setLength(0);
            key.append(method.getType().getName().replace('.', '/')).append('.')
                    .append(method.getName()).append(method.getDescriptor());
            int id = Methods.lookup(key.toString());
            if (id >= 0) {
                ids[n++] = id;
            }
        }
        Instant at = event.getStartTime();
        long ticks = at.getEpochSecond() * 1_000_000_000L + at.getNano() - Sender.CLOCK_ZERO_UNIX_NS;
        sampling.offerFromJfr(thread.getJavaThreadId(), thread.getJavaName(), Math.max(0, ticks),
                java.util.Arrays.copyOf(ids, n));
    }
}
