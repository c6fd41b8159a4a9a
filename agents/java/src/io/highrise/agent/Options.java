package io.highrise.agent;

import java.util.ArrayList;
import java.util.List;

/**
 * The agent's options: {@code -javaagent:highrise-agent.jar=key=value,key=value,...}. Options are
 * separated by commas; {@code include} and {@code exclude} may be repeated. Keys: addr
 * (HOST:PORT, default $HIGHRISE_ADDR or 127.0.0.1:7878), token (the viewer's token, asked only by
 * a viewer on another machine listening beyond loopback; default $HIGHRISE_TOKEN), include, exclude (package or class
 * names: each matches itself and everything under it), program, label, buffer (events per thread,
 * rounded up to a power of two, default 16384), lossless (block instead of dropping), alloc
 * (on|off: count the objects and arrays instrumented code creates, default {@link #DEFAULT_ALLOC}),
 * live (on|off, default off: at every phase mark's end, a snapshot of the objects live per class,
 * from the JVM's class histogram after a full collection; needs alloc=on), verbose, stats (at the
 * session's end, one line on stderr: the enter and exit events sent and the events dropped), mode
 * (auto, the default: exact until the probes distort the program, then sampled; exact: every call,
 * from probes in every profiled method, whatever it costs; sampled: no probes, the threads' stacks
 * sampled every {@code sample} milliseconds, default {@link #DEFAULT_SAMPLE_MS}, by the JVM's own
 * sampler (JFR, JDK 14+) and, for blocked threads, by the agent; see {@link Sampling}), classes
 * (loaded, the default: the classes that load; all: also every other profiled class of the jars
 * they load from, read in the background; see {@link JarClasses}), detach (a load that ends the
 * running session, stops the sampler and gives every class its original code back; see
 * {@link Agent#detach}). An attach without mode= is sampled: see {@link #parse(String, boolean)}.
 */
final class Options {
    static final String DEFAULT_ADDR = "127.0.0.1:7878";
    static final int DEFAULT_BUFFER_EVENTS = 1 << 14;
    /** Allocation counting unless alloc=off (see the README's measured cost). */
    static final boolean DEFAULT_ALLOC = true;
    /** The sampled mode's period, milliseconds (JFR's own default for its profile settings). */
    static final int DEFAULT_SAMPLE_MS = 10;

    String host = "127.0.0.1";
    int port = 7878;
    final List<String> includes = new ArrayList<>();
    final List<String> excludes = new ArrayList<>();
    String program;
    String label = "";
    /** Sent in the Hello when not empty; never logged. */
    String token = "";
    int bufferEvents = DEFAULT_BUFFER_EVENTS;
    boolean lossless;
    boolean alloc = DEFAULT_ALLOC;
    /** Live-object snapshots at phase ends (see {@link LiveObjects}). */
    boolean live;
    boolean verbose;
    /** At the session's end, one stderr line: events sent and dropped (for test harnesses). */
    boolean stats;
    /** mode=sampled: no probes; stacks sampled every {@link #sampleMs} (see {@link Sampling}). */
    boolean sampled;
    /** mode=auto (the default): exact until the probes cannot keep up, then sampled (see Sender). */
    boolean auto = true;
    /** Whether mode= was given (an attach without it is sampled). */
    boolean modeGiven;
    /** detach: this load ends the session and takes the agent out (see {@link Agent#detach}). */
    boolean detach;
    /** Loaded into a running program (agentmain), not at its launch. */
    boolean attached;
    int sampleMs = DEFAULT_SAMPLE_MS;
    /** classes=all: the city shows every profiled class of the jars the program loads from. */
    boolean allClasses;
    final List<String> warnings = new ArrayList<>();

    static Options parse(String args) {
        return parse(args, false);
    }

    /**
     * The options of a load; {@code attached}: into a program already running, where the default
     * mode is sampled: the program is usually a big one at work, and the JVM's own sampler costs
     * it next to nothing, where probes need every loaded class retransformed and then cost every
     * call (a 27,000-method interpreter ran 60-600x slower). mode=exact or auto, or lossless,
     * still ask for probes.
     */
    static Options parse(String args, boolean attached) {
        Options o = new Options();
        o.attached = attached;
        String env = System.getenv("HIGHRISE_ADDR");
        o.setAddr(env != null && !env.isEmpty() ? env : DEFAULT_ADDR);
        String token = System.getenv("HIGHRISE_TOKEN");
        o.token = token == null ? "" : token.trim();
        if (args != null) {
            for (String part : args.split(",")) {
                String item = part.trim();
                if (item.isEmpty()) {
                    continue;
                }
                int eq = item.indexOf('=');
                String key = eq < 0 ? item : item.substring(0, eq).trim();
                String value = eq < 0 ? "" : item.substring(eq + 1).trim();
                switch (key) {
                    case "addr":
                        o.setAddr(value);
                        break;
                    case "token":
                        o.token = value;
                        break;
                    case "include":
                        if (!value.isEmpty()) {
                            o.includes.add(value);
                        }
                        break;
                    case "exclude":
                        if (!value.isEmpty()) {
                            o.excludes.add(value);
                        }
                        break;
                    case "program":
                        o.program = value;
                        break;
                    case "label":
                        o.label = value;
                        break;
                    case "buffer":
                        try {
                            int n = Integer.parseInt(value);
                            o.bufferEvents = Integer.highestOneBit(Math.max(64, Math.min(n, 1 << 26)) * 2 - 1);
                        } catch (NumberFormatException e) {
                            o.warnings.add("buffer=" + value + " is not a number; using " + o.bufferEvents);
                        }
                        break;
                    case "lossless":
                        o.lossless = value.isEmpty() || Boolean.parseBoolean(value);
                        break;
                    case "alloc":
                        if (value.isEmpty() || value.equals("on") || value.equals("true")) {
                            o.alloc = true;
                        } else if (value.equals("off") || value.equals("false")) {
                            o.alloc = false;
                        } else {
                            o.warnings.add("alloc=" + value + " is not on or off; using "
                                    + (o.alloc ? "on" : "off"));
                        }
                        break;
                    case "live":
                        if (value.isEmpty() || value.equals("on") || value.equals("true")) {
                            o.live = true;
                        } else if (value.equals("off") || value.equals("false")) {
                            o.live = false;
                        } else {
                            o.warnings.add("live=" + value + " is not on or off; using off");
                        }
                        break;
                    case "verbose":
                        o.verbose = value.isEmpty() || Boolean.parseBoolean(value);
                        break;
                    case "mode":
                        o.modeGiven = true;
                        o.sampled = value.equals("sampled");
                        o.auto = value.equals("auto");
                        if (!o.sampled && !o.auto && !value.equals("exact")) {
                            o.auto = true;
                            o.warnings.add("mode=" + value + " is not auto, exact or sampled; using auto");
                        }
                        break;
                    case "sample":
                        try {
                            o.sampleMs = Math.max(1, Math.min(1000, Integer.parseInt(value.replace("ms", ""))));
                        } catch (NumberFormatException e) {
                            o.warnings.add("sample=" + value + " is not milliseconds; using " + o.sampleMs);
                        }
                        break;
                    case "classes":
                        o.allClasses = value.equals("all");
                        if (!o.allClasses && !value.equals("loaded")) {
                            o.warnings.add("classes=" + value + " is not all or loaded; using loaded");
                        }
                        break;
                    case "detach":
                        o.detach = value.isEmpty() || Boolean.parseBoolean(value);
                        break;
                    case "stats":
                        o.stats = value.isEmpty() || Boolean.parseBoolean(value);
                        break;
                    default:
                        o.warnings.add("unknown option '" + key + "' ignored");
                }
            }
        }
        if (o.lossless) {
            o.auto = false; // lossless asks for every event, whatever it costs: exact
        } else if (attached && !o.modeGiven) {
            o.sampled = true;
            o.auto = false;
        }
        if (o.sampled && (o.alloc || o.live)) {
            // Samples carry no allocation counts: the probes that count them are what sampling drops.
            o.alloc = false;
            o.live = false;
        }
        if (o.program == null || o.program.isEmpty()) {
            o.program = defaultProgram();
        }
        return o;
    }

    private void setAddr(String addr) {
        int colon = addr.lastIndexOf(':');
        if (colon <= 0) {
            warnings.add("addr=" + addr + " is not HOST:PORT; using " + host + ":" + port);
            return;
        }
        try {
            int p = Integer.parseInt(addr.substring(colon + 1));
            if (p < 0 || p > 65535) {
                throw new NumberFormatException();
            }
            host = addr.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            port = p;
        } catch (NumberFormatException e) {
            warnings.add("addr=" + addr + " has no valid port; using " + host + ":" + port);
        }
    }

    /** The main class or jar from sun.java.command, else "java". */
    static String defaultProgram() {
        String cmd = System.getProperty("sun.java.command", "");
        String first = cmd.trim().split("\\s+")[0];
        if (first.isEmpty()) {
            return "java";
        }
        int slash = Math.max(first.lastIndexOf('/'), first.lastIndexOf('\\'));
        return slash >= 0 ? first.substring(slash + 1) : first;
    }

    /** The class filter for internal names (a/b/C$D). */
    Filter filter() {
        return new Filter(includes, excludes);
    }

    static final class Filter {
        static final String[] BUILT_IN_EXCLUDES = {
            "java/", "javax/", "jdk/", "sun/", "com/sun/", "io/highrise/agent/", "io/highrise/Highrise",
            "org/objectweb/asm/",
        };
        final String[] includes;
        final String[] excludes;

        Filter(List<String> includes, List<String> excludes) {
            this.includes = includes.stream().map(s -> s.replace('.', '/')).toArray(String[]::new);
            this.excludes = excludes.stream().map(s -> s.replace('.', '/')).toArray(String[]::new);
        }

        private static boolean under(String name, String prefix) {
            if (!name.startsWith(prefix)) {
                return false;
            }
            if (name.length() == prefix.length() || prefix.endsWith("/")) {
                return true;
            }
            char c = name.charAt(prefix.length());
            return c == '/' || c == '$';
        }

        boolean accepts(String internalName) {
            for (String p : BUILT_IN_EXCLUDES) {
                if (internalName.startsWith(p)) {
                    return false;
                }
            }
            for (String p : excludes) {
                if (under(internalName, p)) {
                    return false;
                }
            }
            if (includes.length == 0) {
                return true;
            }
            for (String p : includes) {
                if (under(internalName, p)) {
                    return true;
                }
            }
            return false;
        }
    }
}
