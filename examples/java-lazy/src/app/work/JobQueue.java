package app.work;

import java.util.ArrayDeque;

/** A bounded blocking queue of jobs. */
public final class JobQueue {
    private final ArrayDeque<Job> jobs = new ArrayDeque<>();
    private final int capacity;

    public JobQueue(int capacity) {
        this.capacity = capacity;
    }

    public synchronized boolean submit(Job job) {
        if (jobs.size() >= capacity) {
            return false;
        }
        jobs.add(job);
        notifyAll();
        return true;
    }

    public synchronized Job take(long timeoutMillis) throws InterruptedException {
        if (jobs.isEmpty()) {
            wait(timeoutMillis);
        }
        return jobs.poll();
    }

    public synchronized int size() {
        return jobs.size();
    }
}
