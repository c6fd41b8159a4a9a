package app;

import app.util.log.Log;

/** Loads a feature by its name relative to this package, the way plug-ins are loaded. */
final class FeatureLoader {
    private FeatureLoader() {}

    static Feature load(AppContext ctx, String relativeName) {
        String name = qualify(relativeName);
        try {
            Class<?> c = Class.forName(name);
            Feature f = (Feature) c.getDeclaredConstructor().newInstance();
            ctx.register(f);
            f.start(ctx);
            return f;
        } catch (ReflectiveOperationException e) {
            Log.warn("cannot load feature " + name + ": " + e);
            return null;
        }
    }

    static String qualify(String relativeName) {
        return FeatureLoader.class.getPackageName() + "." + relativeName;
    }
}
