package app.util.log;

/** Console logging with a level. */
public final class Log {
    /** Severity. */
    public enum Level { DEBUG, INFO, WARN }

    private static volatile Level level = Level.INFO;

    private Log() {}

    public static void setLevel(Level l) {
        level = l;
    }

    public static void info(String message) {
        write(Level.INFO, message);
    }

    public static void warn(String message) {
        write(Level.WARN, message);
    }

    public static void debug(String format, Object... args) {
        if (level == Level.DEBUG) {
            write(Level.DEBUG, format(format, args));
        }
    }

    static String format(String format, Object[] args) {
        return String.format(format, args);
    }

    private static synchronized void write(Level l, String message) {
        if (l.ordinal() >= level.ordinal()) {
            System.out.println("java-lazy: " + message);
            System.out.flush();
        }
    }
}
