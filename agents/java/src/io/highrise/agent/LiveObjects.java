package io.highrise.agent;

import java.lang.management.ManagementFactory;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Live-object snapshots at phase ends ({@code live=on}): as a phase mark closes, the JVM's class
 * histogram of live objects ({@code GC.class_histogram}, the diagnostic command {@code jcmd} runs,
 * called in-process through its MBean) counts every object still reachable per class after a
 * full collection; the agent keeps the classes it has ids for (those instrumented code creates)
 * and sends them, with the histogram's total as the heap's live bytes, as one LiveObjects
 * message taken just before the phase's exit. Exact, at the cost of a full GC per phase end
 * (measured in the README). Runs on the program's thread; never throws.
 */
final class LiveObjects {
    /** Set from the {@code live} option. */
    static volatile boolean enabled;

    private static final Pattern ROW = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");
    private static final Pattern TOTAL = Pattern.compile("^Total\\s+(\\d+)\\s+(\\d+)");
    private static volatile boolean warned;

    /** One snapshot, handed to the sender (which converts the clock and writes it). */
    static final class Snapshot {
        final long threadId;
        final long nanos;
        final long heapLiveBytes;
        final int[] classIds;
        final long[] counts;
        final long[] bytes;
        final int n;

        Snapshot(long threadId, long nanos, long heapLiveBytes, int[] classIds, long[] counts, long[] bytes, int n) {
            this.threadId = threadId;
            this.nanos = nanos;
            this.heapLiveBytes = heapLiveBytes;
            this.classIds = classIds;
            this.counts = counts;
            this.bytes = bytes;
            this.n = n;
        }
    }

    private LiveObjects() {}

    /** Takes a snapshot for the phase {@code ring}'s thread is closing, and queues it. */
    static void snapshot(Ring ring) {
        Sender sender = Recorder.current;
        if (sender == null || ring == null) {
            return;
        }
        try {
            String histogram = histogram();
            int classes = Classes.count();
            long[] counts = new long[classes];
            long[] bytes = new long[classes];
            long heapLiveBytes = -1;
            Matcher row = ROW.matcher("");
            Matcher total = TOTAL.matcher("");
            for (String line : histogram.split("\n")) {
                if (row.reset(line).find()) {
                    int id = Classes.idOf(row.group(3).replace('.', '/'));
                    if (id >= 0 && id < classes) {
                        counts[id] += Long.parseLong(row.group(1));
                        bytes[id] += Long.parseLong(row.group(2));
                    }
                } else if (total.reset(line).find()) {
                    heapLiveBytes = Long.parseLong(total.group(2));
                }
            }
            int[] ids = new int[classes];
            for (int i = 0; i < classes; i++) {
                ids[i] = i;
            }
            sender.queueLiveObjects(new Snapshot(ring.threadId, System.nanoTime(), heapLiveBytes, ids, counts, bytes, classes));
        } catch (Throwable t) {
            if (!warned) {
                warned = true;
                Sender.log("live-object snapshots unavailable (" + t + "); phases carry no live counts");
            }
        }
    }

    /** The text of {@code GC.class_histogram} (a full collection first: only live objects). */
    private static String histogram() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName("com.sun.management:type=DiagnosticCommand");
        Object text = server.invoke(name, "gcClassHistogram", new Object[] {new String[0]},
                new String[] {String[].class.getName()});
        return String.valueOf(text);
    }
}
