package app.work;

import app.io.AssetLoader;
import app.io.Codec;

/** A unit of background work. */
public final class Job {
    /** What the job does. */
    public enum Kind { LOAD_ASSET, ENCODE, CHECKSUM }

    final Kind kind;
    final String name;
    final AssetLoader assets;

    public Job(Kind kind, String name, AssetLoader assets) {
        this.kind = kind;
        this.name = name;
        this.assets = assets;
    }

    long execute() {
        switch (kind) {
            case LOAD_ASSET:
                return assets.load(name).length;
            case ENCODE:
                return Codec.encode(new int[] {name.length(), name.hashCode(), 7, 11}).length;
            default:
                return Codec.checksum(assets.load(name, 8192));
        }
    }
}
