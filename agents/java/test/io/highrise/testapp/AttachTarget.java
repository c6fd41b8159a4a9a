package io.highrise.testapp;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * A program started without the agent, for the attach test: prints READY and its pid, then calls
 * {@link Work#step} in a loop on two threads until the file named by its argument exists, and
 * prints DONE with the number of steps and their checksum (which must not depend on the agent).
 */
public class AttachTarget {
    static volatile boolean stop;

    public static void main(String[] args) throws Exception {
        Path stopFile = Paths.get(args[0]);
        long[] helperSteps = new long[1];
        Thread helper = new Thread(() -> {
            while (!stop) {
                helperSteps[0] += Work.batch(100);
                sleep();
            }
        }, "helper");
        helper.start();
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        long steps = 0;
        long sum = 0;
        while (!Files.exists(stopFile)) {
            for (int i = 0; i < 1000; i++) {
                sum += Work.step(i);
                steps++;
            }
            sleep();
        }
        stop = true;
        helper.join();
        long expectedSum = (steps / 1000) * Work.expectedBlock();
        System.out.println("DONE " + steps + " " + (sum == expectedSum ? "checksum-ok" : "checksum-bad"));
    }

    static void sleep() {
        try {
            Thread.sleep(2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

class Work {
    static int step(int i) {
        return inner(i) + 1;
    }

    static int inner(int i) {
        if (i % 100 == 0) {
            try {
                throw new IllegalArgumentException("odd");
            } catch (IllegalArgumentException e) {
                return 0;
            }
        }
        return i & 7;
    }

    static long batch(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += step(i);
        }
        return n;
    }

    static long expectedBlock() {
        long s = 0;
        for (int i = 0; i < 1000; i++) {
            s += (i % 100 == 0 ? 0 : i & 7) + 1;
        }
        return s;
    }
}
