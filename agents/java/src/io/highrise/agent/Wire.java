package io.highrise.agent;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The protocol encoder (agent-protocol/SPEC.md): a growable byte buffer with bincode 2 "standard"
 * varints, LEB128 for packed events and packed records, and one method per agent message. A frame is built as
 * {@code beginFrame()}, one message, {@code endFrame(start)}; the buffer then holds
 * length:u32 LE + payload, ready to write. Not thread-safe: the sender thread owns its Wire.
 */
public final class Wire {
    public static final byte[] MAGIC = {'H', 'R', 'S', 'E'};
    public static final int PROTOCOL_VERSION = 2;
    public static final int MAX_FRAME_BYTES = 4 * 1024 * 1024;

    public static final int TAG_HELLO = 0;
    public static final int TAG_DEFINE_METHODS = 1;
    public static final int TAG_THREAD_START = 2;
    public static final int TAG_THREAD_END = 3;
    public static final int TAG_EVENTS = 4;
    public static final int TAG_HEARTBEAT = 5;
    public static final int TAG_RESYNC = 6;
    public static final int TAG_DROPPED = 7;
    public static final int TAG_GOODBYE = 8;
    /** Version 2: class definitions, packed records (enter, exit, memory), memory drop totals. */
    public static final int TAG_DEFINE_CLASSES = 9;
    public static final int TAG_RECORDS = 10;
    public static final int TAG_MEMORY_DROPPED = 11;
    public static final int TAG_LIVE_OBJECTS = 12;
    public static final int TAG_CLASS_RELATIONS = 13;
    public static final int TAG_MEASURE = 14;
    public static final int TAG_NOTICE = 15;
    public static final int MEASURE_EXACT = 0;
    public static final int MEASURE_SAMPLED = 1;
    public static final int MEASURE_ADAPTIVE = 2;

    /** Class relation kinds (SPEC "Class relations"). */
    public static final int RELATION_EXTENDS = 0;
    public static final int RELATION_IMPLEMENTS = 1;
    public static final int RELATION_FIELD = 2;

    /** Record kinds (SPEC "Packed records"): the low two bits of a record's head. */
    public static final int RECORD_ENTER = 0;
    public static final int RECORD_EXIT = 1;
    public static final int RECORD_MEMORY = 2;

    byte[] buf;
    int len;

    public Wire(int capacity) {
        buf = new byte[Math.max(16, capacity)];
    }

    public Wire() {
        this(1 << 16);
    }

    public byte[] array() {
        return buf;
    }

    public int length() {
        return len;
    }

    public void clear() {
        len = 0;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(buf, len);
    }

    void ensure(int more) {
        if (len + more > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
        }
    }

    public void u8(int v) {
        ensure(1);
        buf[len++] = (byte) v;
    }

    public void raw(byte[] bytes, int off, int n) {
        ensure(n);
        System.arraycopy(bytes, off, buf, len, n);
        len += n;
    }

    private void le(long v, int bytes) {
        ensure(bytes);
        for (int i = 0; i < bytes; i++) {
            buf[len++] = (byte) (v >>> (8 * i));
        }
    }

    /** A bincode varint (u16/u32/u64 alike): shortest of 1, 0xfb+2, 0xfc+4, 0xfd+8 bytes. */
    public void varint(long v) {
        if (v >= 0 && v < 251) {
            u8((int) v);
        } else if (v >= 0 && v < (1L << 16)) {
            u8(251);
            le(v, 2);
        } else if (v >= 0 && v < (1L << 32)) {
            u8(252);
            le(v, 4);
        } else {
            u8(253);
            le(v, 8);
        }
    }

    /** LEB128 (packed events): 7 bits a byte, low group first. Treats v as unsigned. */
    public void leb128(long v) {
        ensure(10);
        while ((v & ~0x7FL) != 0) {
            buf[len++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[len++] = (byte) v;
    }

    public void string(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        varint(b.length);
        raw(b, 0, b.length);
    }

    public void optionString(String s) {
        if (s == null) {
            u8(0);
        } else {
            u8(1);
            string(s);
        }
    }

    /** Reserves the 4-byte length; returns where the frame starts. */
    public int beginFrame() {
        int start = len;
        ensure(4);
        len += 4;
        return start;
    }

    /** Writes the payload length into the header reserved by {@link #beginFrame()}. */
    public void endFrame(int start) {
        int payload = len - start - 4;
        buf[start] = (byte) payload;
        buf[start + 1] = (byte) (payload >>> 8);
        buf[start + 2] = (byte) (payload >>> 16);
        buf[start + 3] = (byte) (payload >>> 24);
    }

    // ---- messages (each writes one whole frame) ----

    public void hello(String agent, String program, String versionLabel, long pid,
            long clockUnitNs, long clockZeroUnixNs) {
        hello(agent, program, versionLabel, pid, clockUnitNs, clockZeroUnixNs, null);
    }

    /**
     * The Hello with a token (SPEC.md "Tokens"): its optional last field, which only a viewer
     * listening beyond loopback asks of agents on other machines. Null or empty: left out, the
     * bytes of the plain Hello.
     */
    public void hello(String agent, String program, String versionLabel, long pid,
            long clockUnitNs, long clockZeroUnixNs, String token) {
        int f = beginFrame();
        varint(TAG_HELLO);
        raw(MAGIC, 0, 4);
        varint(PROTOCOL_VERSION);
        string(agent);
        string(program);
        string(versionLabel);
        varint(pid);
        varint(clockUnitNs);
        varint(clockZeroUnixNs);
        if (token != null && !token.isEmpty()) {
            string(token);
        }
        endFrame(f);
    }

    /** One method definition, as an element of DefineMethods (no frame). */
    public void methodDef(MethodDef d) {
        varint(d.id);
        string(d.packageName);
        string(d.className);
        string(d.methodName);
        optionString(d.signature);
        optionString(d.file);
        if (d.line < 0) {
            u8(0);
        } else {
            u8(1);
            varint(d.line);
        }
    }

    public void defineMethods(MethodDef[] defs, int from, int to) {
        int f = beginFrame();
        varint(TAG_DEFINE_METHODS);
        varint(to - from);
        for (int i = from; i < to; i++) {
            methodDef(defs[i]);
        }
        endFrame(f);
    }

    public void threadStart(long threadId, String name, long timestamp) {
        int f = beginFrame();
        varint(TAG_THREAD_START);
        varint(threadId);
        string(name);
        varint(timestamp);
        endFrame(f);
    }

    public void threadEnd(long threadId, long timestamp) {
        int f = beginFrame();
        varint(TAG_THREAD_END);
        varint(threadId);
        varint(timestamp);
        endFrame(f);
    }

    /** An Events frame around already packed events. */
    public void events(long threadId, long baseTimestamp, int eventCount, byte[] packed, int packedLen) {
        int f = beginFrame();
        varint(TAG_EVENTS);
        varint(threadId);
        varint(baseTimestamp);
        varint(eventCount);
        varint(packedLen);
        raw(packed, 0, packedLen);
        endFrame(f);
    }

    public void heartbeat(long timestamp) {
        int f = beginFrame();
        varint(TAG_HEARTBEAT);
        varint(timestamp);
        endFrame(f);
    }

    public void resync(long threadId, long timestamp, int[] stack, int depth) {
        int f = beginFrame();
        varint(TAG_RESYNC);
        varint(threadId);
        varint(timestamp);
        varint(depth);
        for (int i = 0; i < depth; i++) {
            varint(stack[i] & 0xFFFFFFFFL);
        }
        endFrame(f);
    }

    /** How this session measures (tag 14): a MEASURE_ mode, the sample period and sampled methods. */
    public void measure(int mode, long samplePeriodUs, long sampledMethods) {
        int f = beginFrame();
        varint(TAG_MEASURE);
        varint(mode);
        varint(samplePeriodUs);
        varint(sampledMethods);
        endFrame(f);
    }

    /** A fact the session's user should see (SPEC "Notice"); replaces the last one with its key. */
    public void notice(String key, String text) {
        int f = beginFrame();
        varint(TAG_NOTICE);
        string(key);
        string(text);
        endFrame(f);
    }

    public void dropped(long eventsDropped, long batchesDropped) {
        int f = beginFrame();
        varint(TAG_DROPPED);
        varint(eventsDropped);
        varint(batchesDropped);
        endFrame(f);
    }

    public void goodbye(long timestamp) {
        int f = beginFrame();
        varint(TAG_GOODBYE);
        varint(timestamp);
        endFrame(f);
    }

    /** One class definition, as an element of DefineClasses (no frame). */
    public void classDef(ClassDef d) {
        varint(d.id & 0xFFFFFFFFL);
        string(d.packageName);
        string(d.name);
        varint(d.kind);
    }

    /** DefineClasses (version 2): {@code defs[from..to)}. */
    public void defineClasses(ClassDef[] defs, int from, int to) {
        int f = beginFrame();
        varint(TAG_DEFINE_CLASSES);
        varint(to - from);
        for (int i = from; i < to; i++) {
            classDef(defs[i]);
        }
        endFrame(f);
    }

    /**
     * ClassRelations (tag 13, a version-2 addition): {@code n} relations, the i-th from class
     * {@code from[i]} to {@code to[i]} of kind {@code kinds[i]} (RELATION_*), through field
     * {@code fields[i]} ("" unless a field), {@code many[i]} when the field holds a collection.
     */
    public void classRelations(int[] from, int[] to, int[] kinds, String[] fields, boolean[] many, int n) {
        int f = beginFrame();
        varint(TAG_CLASS_RELATIONS);
        varint(n);
        for (int i = 0; i < n; i++) {
            varint(from[i] & 0xFFFFFFFFL);
            varint(to[i] & 0xFFFFFFFFL);
            varint(kinds[i]);
            string(fields[i]);
            u8(many[i] ? 1 : 0);
        }
        endFrame(f);
    }

    /** A Records frame (version 2) around already packed records (see {@link RecordPacker}). */
    public void records(long threadId, long baseTimestamp, int recordCount, byte[] packed, int packedLen) {
        int f = beginFrame();
        varint(TAG_RECORDS);
        varint(threadId);
        varint(baseTimestamp);
        varint(recordCount);
        varint(packedLen);
        raw(packed, 0, packedLen);
        endFrame(f);
    }

    /** MemoryDropped (version 2): running totals of the counts lost with dropped memory records. */
    public void memoryDropped(long allocationsDropped, long bytesDropped, long freesDropped) {
        int f = beginFrame();
        varint(TAG_MEMORY_DROPPED);
        varint(allocationsDropped);
        varint(bytesDropped);
        varint(freesDropped);
        endFrame(f);
    }

    /**
     * LiveObjects (tag 12, a version-2 addition): objects live per class as a phase of
     * {@code threadId} ended: {@code n} entries of {@code classIds}, {@code counts},
     * {@code bytes}; {@code heapLiveBytes} &lt; 0 when unknown.
     */
    public void liveObjects(long threadId, long timestamp, long heapLiveBytes,
            int[] classIds, long[] counts, long[] bytes, int n) {
        int f = beginFrame();
        varint(TAG_LIVE_OBJECTS);
        varint(threadId);
        varint(timestamp);
        if (heapLiveBytes < 0) {
            u8(0);
        } else {
            u8(1);
            varint(heapLiveBytes);
        }
        varint(n);
        for (int i = 0; i < n; i++) {
            varint(classIds[i]);
            varint(counts[i]);
            varint(bytes[i]);
        }
        endFrame(f);
    }

    /**
     * Packs events for one Events message (SPEC "Packed events"): per event LEB128(code) and
     * LEB128(delta), where code = method_id * 2 + kind. Timestamps going backwards write delta 0.
     */
    public static final class EventPacker {
        final Wire out = new Wire(1 << 15);
        long base;
        long last;
        int count;

        public void start(long baseTimestamp) {
            out.clear();
            base = baseTimestamp;
            last = baseTimestamp;
            count = 0;
        }

        public void push(int code, long timestamp) {
            long delta = timestamp - last;
            if (delta < 0) {
                delta = 0;
            } else {
                last = timestamp;
            }
            out.leb128(code & 0xFFFFFFFFL);
            out.leb128(delta);
            count++;
        }

        public int count() {
            return count;
        }

        public int bytes() {
            return out.len;
        }

        public void writeTo(Wire w, long threadId) {
            w.events(threadId, base, count, out.buf, out.len);
        }
    }

    /**
     * Packs records for one Records message (SPEC "Packed records", version 2): per record
     * LEB128(head) and LEB128(delta), head = id * 4 + kind (kind 0 enter, 1 exit: id is a method
     * id; 2 memory: id is a class id, then LEB128(count * 2 + free) and LEB128(bytes)). Deltas as
     * in {@link EventPacker}: from the previous record (the first from the base); a clock that
     * steps back writes delta 0.
     */
    public static final class RecordPacker {
        final Wire out = new Wire(1 << 15);
        long base;
        long last;
        int count;

        public void start(long baseTimestamp) {
            out.clear();
            base = baseTimestamp;
            last = baseTimestamp;
            count = 0;
        }

        private void head(int id, int kind, long timestamp) {
            long delta = timestamp - last;
            if (delta < 0) {
                delta = 0;
            } else {
                last = timestamp;
            }
            out.leb128(((id & 0xFFFFFFFFL) << 2) | kind);
            out.leb128(delta);
            count++;
        }

        public void enter(int methodId, long timestamp) {
            head(methodId, RECORD_ENTER, timestamp);
        }

        public void exit(int methodId, long timestamp) {
            head(methodId, RECORD_EXIT, timestamp);
        }

        /**
         * A memory record: since the thread's previous record, its innermost open frame created
         * ({@code free} false) or freed {@code objects} objects of class {@code classId},
         * {@code bytes} shallow bytes in all (0 = not measured).
         */
        public void memory(int classId, long timestamp, long objects, boolean free, long bytes) {
            head(classId, RECORD_MEMORY, timestamp);
            out.leb128((objects << 1) | (free ? 1 : 0));
            out.leb128(bytes);
        }

        public int count() {
            return count;
        }

        public int bytes() {
            return out.len;
        }

        public void writeTo(Wire w, long threadId) {
            w.records(threadId, base, count, out.buf, out.len);
        }
    }
}
