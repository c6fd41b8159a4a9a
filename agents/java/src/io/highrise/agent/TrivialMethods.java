package io.highrise.agent;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LookupSwitchInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TableSwitchInsnNode;

/**
 * mode=auto's trivial methods: which methods are small and simple enough ({@link #trivial}) to be
 * defined without a probe (see {@link Transformer}), and their code lengths read from the class
 * file ({@link #codeBytes}), so that only the small ones are looked at whole.
 */
final class TrivialMethods {
    private TrivialMethods() {
    }

    /** Methods left without a probe as trivial (mode=auto), over the JVM's life. */
    static final AtomicLong TRIVIAL_METHODS = new AtomicLong();
    /**
     * At most this many bytes of code make a method trivial: HotSpot's MaxInlineSize, under which
     * it inlines a method at any call site.
     */
    static final int TRIVIAL_CODE_BYTES = 35;
    /** Calls into these may block or wait: a method making one is never trivial. */
    private static final String[] MAY_BLOCK = {"java/lang/Thread", "java/lang/Process",
        "java/util/concurrent/", "java/io/", "java/nio/", "java/net/", "javax/", "sun/", "jdk/"};

    /**
     * Each method's code length in bytes (name + descriptor), read from the class file's Code
     * attributes: ASM's visitors do not give it, and rewriting every method to learn it would cost
     * class loading a second pass.
     */
    static Map<String, Integer> codeBytes(ClassReader r) {
        Map<String, Integer> out = new HashMap<>();
        char[] buf = new char[r.getMaxStringLength()];
        int u = r.header + 6; // access, this class, super class
        u += 2 + 2 * r.readUnsignedShort(u); // interfaces
        int fields = r.readUnsignedShort(u);
        u += 2;
        for (int f = 0; f < fields; f++) {
            int attributes = r.readUnsignedShort(u + 6);
            u += 8;
            for (int a = 0; a < attributes; a++) {
                u += 6 + r.readInt(u + 2);
            }
        }
        int methods = r.readUnsignedShort(u);
        u += 2;
        for (int m = 0; m < methods; m++) {
            String key = r.readUTF8(u + 2, buf) + r.readUTF8(u + 4, buf);
            int attributes = r.readUnsignedShort(u + 6);
            u += 8;
            for (int a = 0; a < attributes; a++) {
                if ("Code".equals(r.readUTF8(u, buf))) {
                    out.put(key, r.readInt(u + 10)); // after max_stack and max_locals
                }
                u += 6 + r.readInt(u + 2);
            }
        }
        return out;
    }

    /**
     * A trivial method: at most {@link #TRIVIAL_CODE_BYTES} of code, no loop, no lock, no allocation
     * while allocations are counted, and no call that may block (into the JDK's threads, locks,
     * I/O). Such a method runs a few dozen bytecodes and returns: its own time is too short to
     * measure by probes, and what it calls in the program has probes of its own.
     */
    static boolean trivial(MethodNode m, boolean alloc) {
        if ((m.access & Opcodes.ACC_SYNCHRONIZED) != 0) {
            return false;
        }
        InsnList code = m.instructions;
        for (AbstractInsnNode n = code.getFirst(); n != null; n = n.getNext()) {
            int op = n.getOpcode();
            if (op == Opcodes.MONITORENTER) {
                return false;
            }
            if (alloc && (op == Opcodes.NEW || op == Opcodes.NEWARRAY || op == Opcodes.ANEWARRAY
                    || op == Opcodes.MULTIANEWARRAY)) {
                return false;
            }
            if (n instanceof JumpInsnNode && backward(code, n, ((JumpInsnNode) n).label)) {
                return false;
            }
            if (n instanceof TableSwitchInsnNode || n instanceof LookupSwitchInsnNode) {
                List<LabelNode> targets = n instanceof TableSwitchInsnNode ? ((TableSwitchInsnNode) n).labels
                        : ((LookupSwitchInsnNode) n).labels;
                LabelNode dflt = n instanceof TableSwitchInsnNode ? ((TableSwitchInsnNode) n).dflt
                        : ((LookupSwitchInsnNode) n).dflt;
                if (backward(code, n, dflt)) {
                    return false;
                }
                for (LabelNode t : targets) {
                    if (backward(code, n, t)) {
                        return false;
                    }
                }
            }
            if (n instanceof MethodInsnNode) {
                String owner = ((MethodInsnNode) n).owner;
                if (owner.equals("java/lang/Object") && ((MethodInsnNode) n).name.equals("wait")) {
                    return false;
                }
                for (String p : MAY_BLOCK) {
                    if (owner.startsWith(p)) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    private static boolean backward(InsnList code, AbstractInsnNode from, LabelNode to) {
        return code.indexOf(to) <= code.indexOf(from);
    }
}
