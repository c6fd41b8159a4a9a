package io.highrise.agent;

import java.util.ArrayList;
import java.util.List;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.commons.AdviceAdapter;

/**
 * The method visitor that inserts the probes, the bytecode rewriting (ASM 9). Each accepted method
 * gets {@code ring = Recorder.enter(id)} at entry (ring in a new local),
 * {@code if (Recorder.on()) Recorder.exit(ring, id)} before every return, and a catch-all handler
 * (last in the exception table, so the method's own handlers run first) that calls exit and
 * rethrows. The handler's ranges exclude the exit calls at the returns, so a frame exits exactly
 * once even if a hook itself fails. Choices:
 * <ul>
 *   <li>constructors: enter right after the super()/this() call (AdviceAdapter finds it), so the
 *       handler never covers the uninitialised-this region; the super constructor shows as a
 *       sibling call just before;</li>
 *   <li>static initialisers are instrumented like methods;</li>
 *   <li>abstract and native methods have no code: skipped;</li>
 *   <li>bridge methods and compiler accessors (synthetic) are skipped; lambda bodies (synthetic
 *       {@code lambda$...}) are kept, they are the user's code; hidden lambda proxy classes are
 *       never offered to transformers;</li>
 *   <li>mode=auto only: a trivial method (see {@link TrivialMethods#trivial}) is defined but gets
 *       no probe, as profilers' trivial-method filters do: its time goes to its caller until the switch to
 *       samples, which see it. Probes more than double such a method's bytecode, past the size
 *       under which HotSpot inlines it, so they would slow the program even once switched off;</li>
 *   <li>any failure leaves the class unchanged ({@link Transformer}).</li>
 * </ul>
 * With allocation counting on ({@code alloc=on}), every {@code new}, {@code newarray},
 * {@code anewarray} and {@code multianewarray} is followed by a call that counts what it created
 * (class id from {@link Classes}, assigned here) for the method's frame: {@code Recorder.alloc(ring,
 * id)}, {@code Recorder.array(length, ring, id, shape)}, {@code Recorder.multiArray(array, ring, id,
 * dims)}. After the instruction, so a {@code new} that fails counts nothing, and a constructor that
 * throws leaves its object counted where the {@code new} ran. Before a constructor's
 * super()/this() call (where the method has no ring yet) the {@code ...Here} variants look the
 * thread's ring up.
 */
final class ProbeMethodAdapter extends AdviceAdapter {
    static final String RECORDER = "io/highrise/agent/Recorder";
    static final String RING = "io/highrise/agent/Ring";
    static final String ENTER_DESC = "(I)L" + RING + ";";
    static final String EXIT_DESC = "(L" + RING + ";I)V";

    final int id;
    final String methodName;
    final String descriptor;
    final ProbeClassAdapter owner;
    final List<Label> rangeStarts = new ArrayList<>();
    final List<Label> rangeEnds = new ArrayList<>();
    boolean entered;
    Label rangeStart;
    boolean rangeHasCode;
    boolean restartAfterReturn;
    final ClassReading.Lines lines = new ClassReading.Lines();
    int ringLocal = -1;
    /** False for a trivial method: defined, with its lines, but left as it was. */
    final boolean probes;
    boolean defined;

    ProbeMethodAdapter(MethodVisitor mv, int access, String name, String descriptor, int id,
            ProbeClassAdapter owner, boolean probes) {
        super(Opcodes.ASM9, mv, access, name, descriptor);
        this.id = id;
        this.methodName = name;
        this.descriptor = descriptor;
        this.owner = owner;
        this.probes = probes;
    }

    private void pushId() {
        pushInt(id);
    }

    private void pushInt(int v) {
        if (v >= -1 && v <= 5) {
            mv.visitInsn(Opcodes.ICONST_0 + v);
        } else if (v >= Byte.MIN_VALUE && v <= Byte.MAX_VALUE) {
            mv.visitIntInsn(Opcodes.BIPUSH, v);
        } else if (v >= Short.MIN_VALUE && v <= Short.MAX_VALUE) {
            mv.visitIntInsn(Opcodes.SIPUSH, v);
        } else {
            mv.visitLdcInsn(v);
        }
    }

    // ---------------------------------------------------- allocation counting

    /** Right after {@code new}: the uninitialised object stays on the stack, untouched. */
    private void countObject(String internalName) {
        count(internalName, "alloc", "", () -> { });
    }

    /** Right after {@code newarray}/{@code anewarray} (array descriptor {@code desc}): array on the stack. */
    private void countArray(String desc) {
        count(desc, "array", "I", () -> {
            mv.visitInsn(Opcodes.DUP);
            mv.visitInsn(Opcodes.ARRAYLENGTH);
        }, Sizes.shapeOf(desc.charAt(1)));
    }

    /** Right after {@code multianewarray} ({@code dims} dimensions): array on the stack. */
    private void countMultiArray(String desc, int dims) {
        count(desc, "multiArray", "Ljava/lang/Object;", () -> mv.visitInsn(Opcodes.DUP), dims);
    }

    /**
     * Counts an allocation of class {@code type} (its index reserved here; nothing when it
     * cannot be): {@code Recorder.<recorder>(lead..., ring, class, extra...)} in a probed
     * method, skipped while recording is off; {@code Recorder.<recorder>Here(lead..., class,
     * extra...)} elsewhere. {@code pushLead} pushes the leading operands (descriptor
     * {@code lead}) from the value on the stack, which stays there.
     */
    private void count(String type, String recorder, String lead, Runnable pushLead, int... extra) {
        int c = Classes.reserve(type, owner.loader);
        if (c < 0) {
            return;
        }
        Label skip = entered ? skipWhenOff() : null;
        pushLead.run();
        if (entered) {
            mv.visitVarInsn(Opcodes.ALOAD, ringLocal);
        }
        pushInt(c);
        for (int value : extra) {
            pushInt(value);
        }
        String ints = "I".repeat(1 + extra.length);
        if (entered) {
            mv.visitMethodInsn(Opcodes.INVOKESTATIC, RECORDER, recorder,
                    "(" + lead + "L" + RING + ";" + ints + ")V", false);
            mv.visitLabel(skip);
        } else {
            mv.visitMethodInsn(Opcodes.INVOKESTATIC, RECORDER, recorder + "Here", "(" + lead + ints + ")V", false);
        }
    }

    private static String newarrayDescriptor(int operand) {
        switch (operand) {
            case Opcodes.T_BOOLEAN: return "[Z";
            case Opcodes.T_CHAR: return "[C";
            case Opcodes.T_FLOAT: return "[F";
            case Opcodes.T_DOUBLE: return "[D";
            case Opcodes.T_BYTE: return "[B";
            case Opcodes.T_SHORT: return "[S";
            case Opcodes.T_INT: return "[I";
            default: return "[J";
        }
    }

    /** ring = Recorder.enter(id) */
    private void callEnter() {
        ringLocal = newLocal(org.objectweb.asm.Type.getObjectType(RING));
        pushId();
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, RECORDER, "enter", ENTER_DESC, false);
        mv.visitVarInsn(Opcodes.ASTORE, ringLocal);
    }

    /** Recorder.exit(ring, id) */
    private void callExit() {
        mv.visitVarInsn(Opcodes.ALOAD, ringLocal);
        pushId();
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, RECORDER, "exit", EXIT_DESC, false);
    }

    /** if (Recorder.on()) Recorder.exit(ring, id), before a return. */
    private void callExitIfOn() {
        Label skip = skipWhenOff();
        callExit();
        mv.visitLabel(skip);
    }

    /**
     * {@code if (!Recorder.on()) goto skip}, for the caller to place {@code skip} after its
     * hook. The test is in the method's own code: once the probes are off (mode=auto's switch)
     * it is a constant, and the JIT drops the hook with it, even in a frame that entered
     * before the switch and holds a ring. Left to the hook, a hook that is compiled already is
     * called, not inlined, where the call is rare ("already compiled into a medium method"): a
     * real call at every return of every method inlined into a hot loop.
     */
    private Label skipWhenOff() {
        Label skip = new Label();
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, RECORDER, "on", "()Z", false);
        mv.visitJumpInsn(Opcodes.IFEQ, skip);
        return skip;
    }

    private void openRange() {
        rangeStart = new Label();
        mv.visitLabel(rangeStart);
        rangeHasCode = false;
    }

    private void closeRange() {
        Label end = new Label();
        mv.visitLabel(end);
        if (rangeHasCode) {
            rangeStarts.add(rangeStart);
            rangeEnds.add(end);
        }
    }

    @Override
    protected void onMethodEnter() {
        defined = true;
        if (!probes) {
            return;
        }
        callEnter();
        entered = true;
        openRange();
    }

    @Override
    protected void onMethodExit(int opcode) {
        if (!entered || opcode == ATHROW) {
            return; // a throw is seen by the catch-all handler
        }
        closeRange();
        callExitIfOn();
        restartAfterReturn = true;
    }

    @Override
    public void visitInsn(int opcode) {
        boolean isReturn = opcode >= IRETURN && opcode <= RETURN;
        if (!isReturn) {
            rangeHasCode = true;
        }
        super.visitInsn(opcode);
        if (restartAfterReturn) {
            restartAfterReturn = false;
            openRange();
        }
    }

    @Override
    public void visitIntInsn(int opcode, int operand) {
        rangeHasCode = true;
        super.visitIntInsn(opcode, operand);
        if (owner.alloc && opcode == NEWARRAY) {
            countArray(newarrayDescriptor(operand));
        }
    }

    @Override
    public void visitVarInsn(int opcode, int var) {
        rangeHasCode = true;
        super.visitVarInsn(opcode, var);
    }

    @Override
    public void visitTypeInsn(int opcode, String type) {
        rangeHasCode = true;
        super.visitTypeInsn(opcode, type);
        if (owner.alloc && opcode == NEW) {
            countObject(type);
        } else if (owner.alloc && opcode == ANEWARRAY) {
            countArray(type.startsWith("[") ? "[" + type : "[L" + type + ";");
        }
    }

    @Override
    public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
        rangeHasCode = true;
        super.visitFieldInsn(opcode, owner, name, descriptor);
    }

    @Override
    public void visitMethodInsn(int opcode, String owner, String name, String descriptor,
            boolean isInterface) {
        rangeHasCode = true;
        super.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
    }

    @Override
    public void visitInvokeDynamicInsn(String name, String descriptor, Handle bsm,
            Object... bsmArgs) {
        rangeHasCode = true;
        super.visitInvokeDynamicInsn(name, descriptor, bsm, bsmArgs);
    }

    @Override
    public void visitJumpInsn(int opcode, Label label) {
        rangeHasCode = true;
        super.visitJumpInsn(opcode, label);
    }

    @Override
    public void visitLdcInsn(Object value) {
        rangeHasCode = true;
        super.visitLdcInsn(value);
    }

    @Override
    public void visitIincInsn(int var, int increment) {
        rangeHasCode = true;
        super.visitIincInsn(var, increment);
    }

    @Override
    public void visitTableSwitchInsn(int min, int max, Label dflt, Label... labels) {
        rangeHasCode = true;
        super.visitTableSwitchInsn(min, max, dflt, labels);
    }

    @Override
    public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] labels) {
        rangeHasCode = true;
        super.visitLookupSwitchInsn(dflt, keys, labels);
    }

    @Override
    public void visitMultiANewArrayInsn(String descriptor, int numDimensions) {
        rangeHasCode = true;
        super.visitMultiANewArrayInsn(descriptor, numDimensions);
        if (owner.alloc) {
            countMultiArray(descriptor, numDimensions);
        }
    }

    @Override
    public void visitLineNumber(int line, Label start) {
        lines.see(line);
        super.visitLineNumber(line, start);
    }

    @Override
    public void visitMaxs(int maxStack, int maxLocals) {
        if (entered) {
            closeRange();
            if (!rangeStarts.isEmpty()) {
                Label handler = new Label();
                for (int i = 0; i < rangeStarts.size(); i++) {
                    mv.visitTryCatchBlock(rangeStarts.get(i), rangeEnds.get(i), handler, null);
                }
                mv.visitLabel(handler);
                callExit();
                mv.visitInsn(ATHROW);
            }
        }
        super.visitMaxs(maxStack, maxLocals);
    }

    @Override
    public void visitEnd() {
        if (defined) {
            owner.defs.add(new MethodDef(id, owner.packageName, owner.simpleName, methodName,
                    descriptor, owner.sourceFile, lines.first));
            owner.firstLines.add(lines.first);
            owner.lastLines.add(lines.last);
        }
        super.visitEnd();
    }
}
