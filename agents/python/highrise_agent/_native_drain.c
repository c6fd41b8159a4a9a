/* highrise_agent._native: drain, what the sender thread calls. Every thread's buffer is taken with
 * the GIL held, its timestamps converted and its records packed into whole Events or Records
 * frames with the GIL released (the wire encoding: LEB128 records, bincode varint heads), then
 * handed back as the thread's spare buffer. Also the packers' entry points for the golden tests. */
#include "_native.h"

#define BATCH_EVENTS 8192u
#define IDLE_DRAINS 50u /* an idle thread's buffers are freed after this many drains (~0.5 s) */

/* LEB128 into out; returns bytes written. */
static inline size_t put_leb128(unsigned char *out, uint64_t value)
{
    size_t n = 0;
    while (value >= 0x80) {
        out[n++] = (unsigned char)(value | 0x80);
        value >>= 7;
    }
    out[n++] = (unsigned char)value;
    return n;
}

/* Slots `events[0..slots)` of one thread as packed events (v1, `records` false) or packed
 * records (v2: memory records take two slots and carry their payload) into `out` (at least
 * slots * 18 bytes); returns the bytes written. Touches no Python object. */
static size_t pack(const Event *events, uint32_t slots, uint64_t base, int records, unsigned char *out)
{
    size_t n = 0;
    uint64_t previous = base;
    for (uint32_t i = 0; i < slots; i++) {
        uint64_t ts = events[i].ts;
        uint64_t delta = 0;
        if (ts >= previous) {
            delta = ts - previous;
            previous = ts;
        }
        uint32_t code = events[i].code;
        n += put_leb128(out + n, code);
        n += put_leb128(out + n, delta);
        if (records && (code & 3u) == KIND_MEMORY && i + 1 < slots) {
            const MemPayload *payload = (const MemPayload *)&events[++i];
            n += put_leb128(out + n, (payload->count << 1) | (events[i - 1].free ? 1u : 0u));
            n += put_leb128(out + n, payload->bytes);
        }
    }
    return n;
}

/* The slots taken by the record at events[i]. */
static inline uint32_t record_slots(const Event *events, uint32_t i, int records)
{
    return records && (events[i].code & 3u) == KIND_MEMORY ? 2 : 1;
}

/* One batch of a thread's records as a whole frame: its `len` bytes start at bytes + at. */
typedef struct {
    uint64_t base;
    uint32_t records;
    size_t at, len;
    unsigned char *bytes; /* owned (malloc) */
} Packed;

/* Room before the packed bytes for the frame's head: u32 length, then five varints. */
#define FRAME_HEAD_ROOM 64u

/* bincode 2's unsigned varint (_wire.varint): below 251 one byte, else a marker byte (251, 252,
 * 253) and the value as u16, u32 or u64 little-endian. Returns bytes written (at most 9). */
static size_t put_varint(unsigned char *out, uint64_t value)
{
    if (value < 251) {
        out[0] = (unsigned char)value;
        return 1;
    }
    size_t width = value < (1ull << 16) ? 2 : value < (1ull << 32) ? 4 : 8;
    out[0] = width == 2 ? 251 : width == 4 ? 252 : 253;
    for (size_t i = 0; i < width; i++) {
        out[1 + i] = (unsigned char)(value >> (8 * i));
    }
    return 1 + width;
}

/* The head of an Events / Records frame (as _wire.events / _wire.records make it) for `len`
 * packed bytes: u32 LE payload length, then tag, thread id, base timestamp, record count and
 * packed length as bincode varints. Returns its length (at most FRAME_HEAD_ROOM). */
static size_t frame_head(unsigned char *head, uint32_t tag, uint64_t thread_id, uint64_t base, uint32_t count,
                         size_t len)
{
    size_t h = 4;
    h += put_varint(head + h, tag);
    h += put_varint(head + h, thread_id);
    h += put_varint(head + h, base);
    h += put_varint(head + h, count);
    h += put_varint(head + h, len);
    uint32_t payload = (uint32_t)(h - 4 + len);
    head[0] = (unsigned char)payload;
    head[1] = (unsigned char)(payload >> 8);
    head[2] = (unsigned char)(payload >> 16);
    head[3] = (unsigned char)(payload >> 24);
    return h;
}

typedef struct {
    Rec *rec; /* the header (never freed); its buffers only while rec->gen == gen */
    uint32_t gen;
    uint64_t thread_id;
    PyObject *name; /* owned */
    Event *events;  /* owned: given back to the thread as its spare buffer when it still runs */
    uint32_t count, cap;
    uint64_t last_ts; /* the thread's last drained timestamp, before, then after this drain */
    uint32_t *stack;  /* owned; the resync stack when resync is set */
    uint32_t depth;
    int resync;
    int ended;
    Packed *packed; /* owned */
    uint32_t packed_count;
    uint64_t calls; /* enter and exit records packed (memory records not) */
    int failed; /* out of memory while packing */
} Snapshot;

/* Phase 2 of drain, without the GIL: the snapshot's timestamps to nanoseconds since the clock
 * zero (never going back within the thread), then its records in batches of at most
 * BATCH_EVENTS (a memory record's two slots together), each packed into a frame of `tag`. */
static void pack_snapshot(Snapshot *snap, int records, double ns_per_tsc, uint32_t tag)
{
    uint32_t batches = snap->count / BATCH_EVENTS + 1; /* a batch holds BATCH_EVENTS records or more slots */
    snap->packed = calloc(batches, sizeof(Packed));
    if (snap->packed == NULL) {
        snap->failed = snap->count > 0;
        return;
    }
    uint64_t last = snap->last_ts;
    for (uint32_t start = 0; start < snap->count && snap->packed_count < batches;) {
        /* The batch's timestamps converted in the pass that finds its end, so that pack reads
         * the batch from the cache (the program's thread wrote it, on another core). */
        uint32_t end = start, n = 0;
        while (end < snap->count && n < BATCH_EVENTS) {
            uint64_t ts = snap->events[end].ts;
            if (hr_use_tsc) {
                ts = ts > hr_tsc_anchor ? hr_mono_anchor + (uint64_t)((double)(ts - hr_tsc_anchor) * ns_per_tsc)
                                     : hr_mono_anchor;
            }
            if (ts < last) {
                ts = last;
            }
            snap->events[end].ts = last = ts;
            uint32_t record = record_slots(snap->events, end, records);
            snap->calls += record == 1;
            end += record;
            n++;
        }
        snap->last_ts = last;
        if (end > snap->count) {
            end = snap->count;
        }
        Packed *packed = &snap->packed[snap->packed_count];
        packed->bytes = malloc(FRAME_HEAD_ROOM + (size_t)(end - start) * 18 + 1);
        if (packed->bytes == NULL) {
            snap->failed = 1;
            return;
        }
        packed->base = snap->events[start].ts;
        packed->records = n;
        size_t len = pack(snap->events + start, end - start, packed->base, records, packed->bytes + FRAME_HEAD_ROOM);
        unsigned char head[FRAME_HEAD_ROOM];
        size_t h = frame_head(head, tag, snap->thread_id, packed->base, n, len);
        packed->at = FRAME_HEAD_ROOM - h;
        packed->len = h + len;
        memcpy(packed->bytes + packed->at, head, h);
        snap->packed_count++;
        start = end;
    }
}

/* The snapshot's thread still runs in this session (a new session's install freed the buffers
 * of the old one's threads): it takes back its last timestamp and its buffer as a spare. */
static inline int still_running(const Snapshot *snap)
{
    return !snap->ended && snap->rec->gen == snap->gen && hr_generation == snap->gen;
}

PyThread_type_lock hr_drain_lock; /* one drain at a time (phase 2 runs without the GIL) */

/* drain(now_ticks, tag) -> [(thread_id, name, ended, [segment...])], a segment being
 * (base_timestamp, event_count, frame) or (timestamp, [method ids]) for a resync; a frame is a
 * whole Events or Records frame (`tag`: TAG_EVENTS or TAG_RECORDS), ready to send.
 * Phase 1 takes every thread's buffer with the GIL held (handing it its spare one), phase 2
 * converts and packs them with the GIL released (the program's threads run on), phase 3 builds
 * the answer and gives each buffer back as its thread's spare: a busy thread writes into the
 * same two buffers all along, warm in the cache, instead of a fresh allocation per drain. */
PyObject *hr_drain(PyObject *module, PyObject *args)
{
    (void)module;
    unsigned long long now;
    unsigned int tag;
    if (!PyArg_ParseTuple(args, "KI", &now, &tag)) {
        return NULL;
    }
    if (!PyThread_acquire_lock(hr_drain_lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(hr_drain_lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
    /* Phase 1: capture every buffer. No Python object is allocated here, so no other thread
     * can run a hook in between: the captured stacks match the captured events exactly. */
    size_t count = 0;
    for (Rec *rec = hr_registry; rec != NULL; rec = rec->next) {
        count++;
    }
    Snapshot *snaps = calloc(count ? count : 1, sizeof(Snapshot));
    if (snaps == NULL) {
        PyThread_release_lock(hr_drain_lock);
        return PyErr_NoMemory();
    }
    double ns_per_tsc = 0.0;
    if (hr_use_tsc) {
        uint64_t tsc_now, mono_now;
        clock_pair(&tsc_now, &mono_now);
        if (tsc_now > hr_tsc_anchor && mono_now > hr_mono_anchor) {
            ns_per_tsc = (double)(mono_now - hr_mono_anchor) / (double)(tsc_now - hr_tsc_anchor);
        }
    }
    size_t used = 0;
    uint32_t slots = 0;
    int records = hr_code_shift == 2;
    Rec **link = &hr_registry;
    while (*link != NULL) {
        Rec *rec = *link;
        int ended = rec->ended;
        if (rec->pend_used != 0) {
            /* Counts of a frame still running (the thread is not: we hold the GIL). */
            hr_flush_pending(rec, now_ticks());
        }
        if (rec->len == 0 && !rec->drops_pending && !ended) {
            /* Idle for IDLE_DRAINS drains in a row: its buffers go (it grows one again when it
             * records), so a thread that was busy once does not keep two of them for good. */
            if (++rec->idle_drains == IDLE_DRAINS) {
                hr_free_event_buffers(rec);
            }
            link = &rec->next;
            continue;
        }
        rec->idle_drains = 0;
        Snapshot *snap = &snaps[used++];
        snap->rec = rec;
        snap->gen = rec->gen;
        snap->thread_id = rec->thread_id;
        snap->events = rec->events;
        snap->count = rec->len;
        snap->cap = rec->cap;
        snap->last_ts = rec->last_ts;
        slots += rec->len;
        rec->events = rec->spare;
        rec->cap = rec->spare_cap;
        rec->spare = NULL;
        rec->spare_cap = 0;
        rec->len = 0;
        snap->ended = ended;
        if (rec->drops_pending) {
            /* Every event since the first drop was dropped, so the current stack is exactly
             * where the next events continue from. */
            snap->resync = 1;
            /* Frames hidden below an event loop (Rec.hidden) stay closed on the wire. */
            uint32_t shown = rec->depth > rec->hidden ? rec->depth - rec->hidden : 0;
            snap->depth = shown;
            if (shown > 0) {
                snap->stack = malloc((size_t)shown * sizeof(uint32_t));
                if (snap->stack == NULL) {
                    snap->depth = 0; /* out of memory: an empty resync is still consistent-ish */
                }
                else {
                    memcpy(snap->stack, rec->stack + (rec->depth - shown), (size_t)shown * sizeof(uint32_t));
                }
            }
            if (ended) {
                free(rec->stack); /* the thread is gone */
                rec->stack = NULL;
                rec->depth = rec->stack_cap = 0;
            }
            rec->drops_pending = 0;
        }
        if (ended) {
            snap->name = rec->name; /* moved */
            rec->name = NULL;
            hr_dropped_gone += rec->dropped;
            for (int k = 0; k < 3; k++) {
                hr_mem_dropped_gone[k] += rec->mem_dropped[k];
            }
            hr_free_rec_buffers(rec);
            *link = rec->next; /* unlink; the header stays allocated (see tls_rec) */
        }
        else {
            snap->name = rec->name;
            Py_XINCREF(snap->name);
            link = &rec->next;
        }
    }
    /* Phase 2: convert and pack. Worth a GIL round trip only for a large drain. */
    PyThreadState *released = slots >= 4096 ? PyEval_SaveThread() : NULL;
    for (size_t i = 0; i < used; i++) {
        pack_snapshot(&snaps[i], records, ns_per_tsc, tag);
    }
    if (released != NULL) {
        PyEval_RestoreThread(released);
    }
    /* Phase 3: build the answer. */
    PyObject *result = PyList_New(0);
    for (size_t i = 0; i < used; i++) {
        Snapshot *snap = &snaps[i];
        if (snap->failed) {
            Py_CLEAR(result);
            PyErr_NoMemory();
        }
        if (result == NULL) {
            break;
        }
        if (still_running(snap)) {
            snap->rec->last_ts = snap->last_ts;
        }
        hr_calls_drained_total += snap->calls;
        PyObject *segments = PyList_New(0);
        int failed = segments == NULL;
        for (uint32_t k = 0; !failed && k < snap->packed_count; k++) {
            Packed *packed = &snap->packed[k];
            PyObject *bytes = PyBytes_FromStringAndSize((const char *)packed->bytes + packed->at, (Py_ssize_t)packed->len);
            PyObject *segment =
                bytes ? Py_BuildValue("(KIN)", (unsigned long long)packed->base, packed->records, bytes) : NULL;
            failed = segment == NULL || PyList_Append(segments, segment) < 0;
            Py_XDECREF(segment);
        }
        if (!failed && snap->resync) {
            PyObject *stack = PyList_New(snap->depth);
            failed = stack == NULL;
            for (uint32_t d = 0; !failed && d < snap->depth; d++) {
                PyObject *id = PyLong_FromUnsignedLong(snap->stack[d]);
                failed = id == NULL;
                if (!failed) {
                    PyList_SET_ITEM(stack, d, id);
                }
            }
            PyObject *segment = failed ? NULL : Py_BuildValue("(KN)", (unsigned long long)now, stack);
            if (segment == NULL) {
                Py_XDECREF(failed ? stack : NULL);
            }
            failed = segment == NULL || PyList_Append(segments, segment) < 0;
            Py_XDECREF(segment);
        }
        PyObject *item = NULL;
        if (!failed) {
            item = Py_BuildValue("(KOON)", (unsigned long long)snap->thread_id,
                                 snap->name ? snap->name : Py_None,
                                 snap->ended ? Py_True : Py_False, segments);
            segments = NULL;
        }
        Py_XDECREF(segments);
        if (item == NULL || PyList_Append(result, item) < 0) {
            Py_CLEAR(result);
        }
        Py_XDECREF(item);
    }
    for (size_t i = 0; i < used; i++) {
        Snapshot *snap = &snaps[i];
        Rec *rec = snap->rec;
        /* A thread still running keeps the buffer as its spare. */
        if (still_running(snap) && rec->spare == NULL && snap->events != NULL) {
            rec->spare = snap->events;
            rec->spare_cap = snap->cap;
        }
        else {
            free(snap->events);
        }
        for (uint32_t k = 0; k < snap->packed_count; k++) {
            free(snap->packed[k].bytes);
        }
        free(snap->packed);
        free(snap->stack);
        Py_XDECREF(snap->name);
    }
    free(snaps);
    PyThread_release_lock(hr_drain_lock);
    return result;
}

/* buffered_bytes() -> the bytes of every thread's event buffers (its own and its spare). */
PyObject *hr_buffered_bytes(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    uint64_t total = 0;
    for (Rec *rec = hr_registry; rec != NULL; rec = rec->next) {
        total += ((uint64_t)rec->cap + rec->spare_cap) * sizeof(Event);
    }
    return PyLong_FromUnsignedLongLong(total);
}

/* pack() into a new bytes object; NULL with the error set. */
static PyObject *pack_to_bytes(const Event *events, uint32_t slots, uint64_t base, int records)
{
    PyObject *bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)slots * 18 + 1);
    if (bytes == NULL) {
        return NULL;
    }
    size_t n = pack(events, slots, base, records, (unsigned char *)PyBytes_AS_STRING(bytes));
    if (_PyBytes_Resize(&bytes, (Py_ssize_t)n) < 0) {
        return NULL;
    }
    return bytes;
}

/* The golden tests' packers: pack_events_for_test(base, [(timestamp, code)]) -> bytes (the
 * events packer) and pack_records_for_test(base, [(timestamp, head) or (timestamp, head, count,
 * free, bytes)]) -> bytes (the records packer; head = id << 2 | kind). */
static PyObject *pack_for_test(PyObject *args, int records)
{
    unsigned long long base;
    PyObject *list;
    if (!PyArg_ParseTuple(args, "KO!", &base, &PyList_Type, &list)) {
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(list);
    Event *events = calloc(n ? (size_t)n * 2 : 1, sizeof(Event));
    if (events == NULL) {
        return PyErr_NoMemory();
    }
    uint32_t slots = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned long long ts, count = 0, nbytes = 0;
        unsigned int code;
        int free_ = 0;
        const char *format = records ? "KI|KpK" : "KI";
        if (!PyArg_ParseTuple(PyList_GET_ITEM(list, i), format, &ts, &code, &count, &free_, &nbytes)) {
            free(events);
            return NULL;
        }
        events[slots].ts = ts;
        events[slots].code = code;
        events[slots].free = (uint32_t)free_;
        slots++;
        if (records && (code & 3u) == KIND_MEMORY) {
            MemPayload *payload = (MemPayload *)&events[slots++];
            payload->count = count;
            payload->bytes = nbytes;
        }
    }
    PyObject *packed = pack_to_bytes(events, slots, base, records);
    free(events);
    return packed;
}

PyObject *hr_pack_events_for_test(PyObject *module, PyObject *args)
{
    (void)module;
    return pack_for_test(args, 0);
}

PyObject *hr_pack_records_for_test(PyObject *module, PyObject *args)
{
    (void)module;
    return pack_for_test(args, 1);
}

/* frame_for_test(tag, thread_id, base, count, packed) -> bytes: the frame drain makes around
 * packed bytes when given a tag, for the golden test. */
PyObject *hr_frame_for_test(PyObject *module, PyObject *args)
{
    (void)module;
    unsigned int tag, count;
    unsigned long long thread_id, base;
    const char *packed;
    Py_ssize_t len;
    if (!PyArg_ParseTuple(args, "IKKIy#", &tag, &thread_id, &base, &count, &packed, &len)) {
        return NULL;
    }
    unsigned char head[FRAME_HEAD_ROOM];
    size_t h = frame_head(head, tag, thread_id, base, count, (size_t)len);
    PyObject *frame = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)h + len);
    if (frame != NULL) {
        memcpy(PyBytes_AS_STRING(frame), head, h);
        memcpy(PyBytes_AS_STRING(frame) + h, packed, (size_t)len);
    }
    return frame;
}
