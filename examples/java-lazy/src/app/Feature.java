package app;

/** A part of the application loaded on demand (its classes load when it starts). */
public interface Feature {
    String name();

    void start(AppContext ctx);
}
