package io.highrise.agent;

import java.io.File;
import java.io.InputStream;
import java.net.URL;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.util.Enumeration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * classes=all: the city shows the whole program, not only what has loaded. The first time a
 * profiled class loads from a jar (per class loader), every other profiled class of that jar is
 * read for its methods on one low-priority background thread, under the ids the loader would
 * give them, so code that has not run yet stands in the city as stubs from the start. The
 * program's thread only queues the jar. A class that loads later keeps those ids (its
 * definitions are already sent).
 */
final class JarClasses {
    private static final Set<String> SEEN = ConcurrentHashMap.newKeySet();
    private static final LinkedBlockingQueue<String[]> QUEUE = new LinkedBlockingQueue<>();
    /** Classes read from jars, and those that could not be. */
    static final AtomicLong CLASSES_READ = new AtomicLong();
    static final AtomicLong CLASSES_FAILED = new AtomicLong();
    private static volatile Thread reader;

    private JarClasses() {}

    /** A profiled class loaded from {@code domain}'s code source by the loader of that key. */
    static void see(String loaderKey, ProtectionDomain domain, Options.Filter filter, boolean verbose) {
        if (domain == null) {
            return;
        }
        CodeSource source = domain.getCodeSource();
        URL url = source == null ? null : source.getLocation();
        if (url == null || !"file".equals(url.getProtocol()) || !url.getPath().endsWith(".jar")) {
            return;
        }
        if (!SEEN.add(loaderKey + url)) {
            return;
        }
        QUEUE.add(new String[] {loaderKey, url.toString()});
        startReader(filter, verbose);
    }

    private static synchronized void startReader(Options.Filter filter, boolean verbose) {
        if (reader != null) {
            return;
        }
        Thread t = new Thread(() -> {
            while (true) {
                String[] job;
                try {
                    job = QUEUE.take();
                } catch (InterruptedException e) {
                    return;
                }
                readJar(job[0], job[1], filter, verbose);
            }
        }, "highrise-jar-classes");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        reader = t;
        t.start();
    }

    /** Every profiled class of the jar at {@code url}, defined for the loader of that key. */
    static void readJar(String loaderKey, String url, Options.Filter filter, boolean verbose) {
        try (JarFile jar = new JarFile(new File(new URL(url).toURI()))) {
            Enumeration<JarEntry> entries = jar.entries();
            while (entries.hasMoreElements()) {
                JarEntry entry = entries.nextElement();
                String name = entry.getName();
                if (!name.endsWith(".class") || name.startsWith("META-INF/")
                        || name.endsWith("module-info.class") || name.endsWith("package-info.class")) {
                    continue;
                }
                String internalName = name.substring(0, name.length() - ".class".length());
                if (!filter.accepts(internalName)) {
                    continue;
                }
                try (InputStream in = jar.getInputStream(entry)) {
                    Transformer.define(loaderKey, in.readAllBytes());
                    CLASSES_READ.incrementAndGet();
                } catch (Throwable t) {
                    CLASSES_FAILED.incrementAndGet();
                    if (verbose) {
                        Sender.log("could not read " + internalName + " from " + url + ": " + t);
                    }
                }
            }
        } catch (Throwable t) {
            if (verbose) {
                Sender.log("could not read the classes of " + url + ": " + t);
            }
        }
    }
}
