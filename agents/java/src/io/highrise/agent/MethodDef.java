package io.highrise.agent;

/** One method definition (SPEC: MethodDef). {@code line} is -1 when unknown. */
public final class MethodDef {
    public final int id;
    public final String packageName;
    public final String className;
    public final String methodName;
    public final String signature;
    public final String file;
    public final int line;

    public MethodDef(int id, String packageName, String className, String methodName,
            String signature, String file, int line) {
        this.id = id;
        this.packageName = packageName;
        this.className = className;
        this.methodName = methodName;
        this.signature = signature;
        this.file = file;
        this.line = line;
    }
}
