package io.highrise.agent;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.MethodNode;

/**
 * The class visitor of the rewriting ({@link Transformer#instrument}): gives each profiled method
 * its id and a {@link ProbeMethodAdapter} (with or without probes: mode=auto's trivial methods,
 * {@link TrivialMethods}), gathers the methods' definitions to register once the class is
 * written, and with allocation counting on reads the class diagram's relations (supertypes and
 * fields that are the program's classes, {@link Relations}).
 */
final class ProbeClassAdapter extends ClassReading.NamingVisitor {
    final ClassLoader loader;
    final boolean alloc;
    /** mode=auto: the methods' code lengths, to find trivial ones; null to probe every method. */
    Map<String, Integer> codeBytes;
    final List<MethodDef> defs = new ArrayList<>();
    final List<Integer> firstLines = new ArrayList<>();
    final List<Integer> lastLines = new ArrayList<>();

    /** With alloc: the program's classes, for the class diagram ({@link Relations}). */
    final Options.Filter filter;
    /** Whether this class's relations are read (alloc on, not a module). */
    boolean relating;

    ProbeClassAdapter(ClassVisitor next, String loaderKey, ClassLoader loader, boolean alloc,
            Options.Filter filter) {
        super(next, loaderKey);
        this.loader = loader;
        this.alloc = alloc;
        this.filter = filter;
    }

    /** A relation from this class to {@code target}: both get class ids only now, when needed. */
    private void relate(String target, int kind, String field, boolean many) {
        Relations.add(Classes.reserve(internalName, loader), Classes.reserve(target, loader), kind, field, many);
    }

    /** The class diagram: supertypes that are the program's classes (fields: visitField). */
    private void relateSupertypes(String superName, String[] interfaces, int access) {
        relating = alloc && filter != null && (access & Opcodes.ACC_MODULE) == 0;
        if (!relating) {
            return;
        }
        if (superName != null && filter.accepts(superName)) {
            relate(superName, Wire.RELATION_EXTENDS, "", false);
        }
        for (String i : interfaces == null ? new String[0] : interfaces) {
            if (filter.accepts(i)) {
                relate(i, Wire.RELATION_IMPLEMENTS, "", false);
            }
        }
    }

    @Override
    public org.objectweb.asm.FieldVisitor visitField(int access, String name, String descriptor,
            String signature, Object value) {
        if (relating && (access & Opcodes.ACC_STATIC) == 0) {
            Relations.fieldTargets(descriptor, signature, filter,
                    (target, many) -> relate(target, Wire.RELATION_FIELD, name, many));
        }
        return super.visitField(access, name, descriptor, signature, value);
    }

    @Override
    public void visit(int version, int access, String name, String signature, String superName,
            String[] interfaces) {
        super.visit(version, access, name, signature, superName, interfaces); // names it
        relateSupertypes(superName, interfaces, access);
    }

    @Override
    public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
            String[] exceptions) {
        MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
        if (!ClassReading.profiled(access, name)) {
            return mv;
        }
        int id = reserve(name, descriptor);
        if (id < 0) {
            return mv;
        }
        Integer length = codeBytes == null ? null : codeBytes.get(name + descriptor);
        if (length == null || length > TrivialMethods.TRIVIAL_CODE_BYTES) {
            return new ProbeMethodAdapter(mv, access, name, descriptor, id, this, true);
        }
        // Small enough to be trivial: held whole, then written with or without probes.
        MethodVisitor next = mv; // (inside MethodNode, `mv` names its own field)
        return new MethodNode(Opcodes.ASM9, access, name, descriptor, signature, exceptions) {
            @Override
            public void visitEnd() {
                boolean probes = !TrivialMethods.trivial(this, alloc);
                if (!probes) {
                    TrivialMethods.TRIVIAL_METHODS.incrementAndGet();
                }
                accept(new ProbeMethodAdapter(next, access, name, descriptor, id, ProbeClassAdapter.this, probes));
            }
        };
    }
}
