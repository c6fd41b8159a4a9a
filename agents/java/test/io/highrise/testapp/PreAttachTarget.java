package io.highrise.testapp;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * A program started without the agent whose threads are already inside profiled methods when the
 * agent attaches (for the pre-session frame tests). Arguments: N, a flag file, a stop file.
 * <ul>
 *   <li>{@code stuck-0..N-1}: in {@link Stuck#run} from the start to the end (the paper's leaked
 *       threads): must read as running {@code Stuck.run} from the attach on;</li>
 *   <li>{@code phased}: {@link Phased#run} → {@link Phased#waitForFlag}, which polls a profiled
 *       method until the flag file exists, returns into {@code run}, which then calls the
 *       profiled {@link Phased#busy} for 400 ms and sleeps in {@code run} for good (the thread
 *       settles its own pre-session frame in a hook);</li>
 *   <li>{@code quiet}: {@link Quiet#run} → {@link Quiet#waitForFlag} (sleeps until the flag),
 *       returns into {@code run}, which sleeps for good without calling anything profiled (the
 *       sender settles it from outside);</li>
 *   <li>{@code main}: waits in {@code main} for the stop file, then calls System.exit (its frame
 *       stays open).</li>
 * </ul>
 * Prints READY pid once every thread is in place, FLAG SEEN when phased and quiet have returned
 * from waitForFlag, and BYE before exiting.
 */
public class PreAttachTarget {
    static Path flag;
    static volatile int returned;

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        flag = Paths.get(args[1]);
        Path stop = Paths.get(args[2]);
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(new Stuck(), "stuck-" + i);
            t.setDaemon(true);
            t.start();
        }
        Thread phased = new Thread(new Phased(), "phased");
        phased.setDaemon(true);
        phased.start();
        Thread quiet = new Thread(new Quiet(), "quiet");
        quiet.setDaemon(true);
        quiet.start();
        Thread.sleep(200);
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        boolean seen = false;
        while (!Files.exists(stop)) {
            if (!seen && returned == 2) {
                seen = true;
                System.out.println("FLAG SEEN");
                System.out.flush();
            }
            Thread.sleep(5);
        }
        System.out.println("BYE");
        System.out.flush();
        System.exit(0);
    }

}

class Stuck implements Runnable {
    @Override
    public void run() {
        while (true) {
            try {
                Thread.sleep(20); // unprofiled: the time is run's own
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}

class Phased implements Runnable {
    static long polls;
    static long work;

    @Override
    public void run() {
        waitForFlag();
        synchronized (PreAttachTarget.class) {
            PreAttachTarget.returned++;
        }
        long end = System.nanoTime() + 400_000_000L;
        while (System.nanoTime() < end) {
            work += busy(100);
        }
        while (true) {
            // Mostly unprofiled (the time is run's own); one profiled call now and then, so a
            // loss of events at the end of busy() is closed by a Resync (a thread that loses
            // events and then calls nothing profiled keeps its last stack until its next call).
            polls += poll();
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    void waitForFlag() {
        while (!Files.exists(PreAttachTarget.flag)) {
            polls += poll();
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    static int poll() {
        return 1;
    }

    static long busy(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += i * 31L;
        }
        return s;
    }
}

class Quiet implements Runnable {
    @Override
    public void run() {
        waitForFlag();
        synchronized (PreAttachTarget.class) {
            PreAttachTarget.returned++;
        }
        while (true) {
            try {
                Thread.sleep(20); // unprofiled: the time is run's own
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    void waitForFlag() {
        while (!Files.exists(PreAttachTarget.flag)) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
