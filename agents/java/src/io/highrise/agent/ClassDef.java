package io.highrise.agent;

/**
 * One class definition (SPEC: ClassDef, protocol version 2), naming the class of memory records.
 * Class ids are their own dense id space, apart from method ids. {@code kind} is one of
 * {@link #CLASS}, {@link #ARRAY}, {@link #UNTYPED} (the wire's ClassKind tag).
 */
public final class ClassDef {
    public static final int CLASS = 0;
    public static final int ARRAY = 1;
    public static final int UNTYPED = 2;

    public final int id;
    public final String packageName;
    public final String name;
    public final int kind;

    public ClassDef(int id, String packageName, String name, int kind) {
        if (kind < CLASS || kind > UNTYPED) {
            throw new IllegalArgumentException("class kind " + kind);
        }
        this.id = id;
        this.packageName = packageName;
        this.name = name;
        this.kind = kind;
    }
}
