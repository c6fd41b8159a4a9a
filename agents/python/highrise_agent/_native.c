/* highrise_agent._native: the C recorder of the highrise Python agent.
 *
 * A C-level hook (sys.monitoring callbacks on 3.12+, the C profile hook PyEval_SetProfile on 3.11
 * or when no monitoring tool id is free, PyEval_SetProfileAllThreads then) that records
 * (timestamp, method_id * 2 + kind) into a bounded per-thread buffer, keeps a shadow stack per
 * thread, and never calls into Python on the hot path:
 *   - each code object's classification (method id, or excluded) is cached in the code object's
 *     co_extra slot (the API CPython provides for profilers/JITs), tagged with a generation so a
 *     restarted agent re-classifies; the Python resolver runs once per code object;
 *   - the per-thread record is found through a C thread-local pointer; a sentinel object in the
 *     thread state's dict marks the record ended when the thread state goes away.
 * Everything here runs with the GIL held (the hook, drain, install), which is what makes the
 * buffers safe without atomics: drain() captures all buffers before it allocates any Python
 * object, so no hook can run in between. Free-threaded builds are not supported (the build fails
 * and the pure-Python recorder is used).
 *
 * Allocation counting (optional, install's alloc_mode): objects the program creates are added to
 * the thread's pending counters (per class) while a profiled frame is open; the counters are
 * written into the thread's own buffer as memory records just before its next enter or exit (with
 * that event's clock) and at every drain, so each count belongs to the frame that made it, with no
 * stack walk. 3.13+: the reference tracer (PyRefTracer_SetTracer) gives every object's creation
 * and destruction with its type; the object-domain allocator hook only tells an object's size.
 * 3.11/3.12: the object-domain allocator hook counts blocks and bytes (untyped), and instances of
 * heap types (classes defined in Python) are typed through their tp_alloc. The agent's own
 * allocations (classifying code, naming threads, the sender thread, the interpreter's frame
 * objects and offsets made for the hooks) are left out. See "allocation counting" below.
 *
 * asyncio tasks (3.12+, sys.monitoring): a task's events go to a task slot, a thread of its own,
 * where its coroutines stay open while they await. See "tasks".
 *
 * Start at profile_cb / mon_start (the hooks), then drain (what the sender thread calls).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <errno.h>
#include <frameobject.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if PY_VERSION_HEX < 0x030B0000
#error "highrise_agent._native needs CPython 3.11 or newer"
#endif
#ifdef Py_GIL_DISABLED
#error "highrise_agent._native relies on the GIL; free-threaded builds use the pure-Python recorder"
#endif
#if UINTPTR_MAX < 0xFFFFFFFFFFFFFFFFu
#error "highrise_agent._native needs 64-bit pointers"
#endif

/* asyncio tasks as threads (3.11 with the profile hook, 3.12 and 3.13 with sys.monitoring): a
 * coroutine's frame and the chain of coroutines awaiting it are read from the interpreter's
 * frames, whose layout is internal: read from this very version's headers. See "tasks" below. */
#if PY_VERSION_HEX < 0x030E0000
#define HR_TASKS 1
#define Py_BUILD_CORE 1
#include "internal/pycore_frame.h"
#undef Py_BUILD_CORE
#endif

#if PY_VERSION_HEX >= 0x030C0000
#define HR_GET_EXTRA PyUnstable_Code_GetExtra
#define HR_SET_EXTRA PyUnstable_Code_SetExtra
#define HR_REQUEST_INDEX PyUnstable_Eval_RequestCodeExtraIndex
#else
#define HR_GET_EXTRA _PyCode_GetExtra
#define HR_SET_EXTRA _PyCode_SetExtra
#define HR_REQUEST_INDEX _PyEval_RequestCodeExtraIndex
#endif

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

#define MAX_METHOD_ID 16777216u
#define BATCH_EVENTS 8192u
#define FIRST_EVENTS_CAP 256u
#define FIRST_STACK_CAP 64u
#define MAX_STACK_DEPTH (1u << 20)
#define IDLE_DRAINS 50u /* an idle thread's buffers are freed after this many drains (~0.5 s) */

typedef struct {
    uint64_t ts;
    uint32_t code; /* method_id << code_shift | kind; a memory record: class_id << 2 | 2 */
    uint32_t free; /* a memory record: objects freed (1) or created (0) */
} Event;

/* A memory record takes two slots: its Event, then this payload. */
typedef struct {
    uint64_t count;
    uint64_t bytes;
} MemPayload;

#define KIND_MEMORY 2u
#define PEND_SLOTS 64u /* per thread: classes with counts not yet written (a power of 2) */
#define PEND_MAX 48u   /* all written out when one more class would make this many in use */

/* Counts of one class since the thread's last memory records. */
typedef struct {
    const void *key; /* the PyTypeObject, or UNTYPED_KEY; NULL: slot unused */
    uint32_t class_id;
    uint32_t unit;         /* 3.13+: the type's last measured allocation size */
    uint64_t count, bytes; /* objects created (frees are not counted, see reftrace) */
} PendSlot;

typedef struct Rec {
    uint64_t thread_id;
    unsigned long ident; /* the OS thread's ident (threading.get_ident()) */
    uint32_t gen;
    int ended;         /* the thread state is gone (set by the sentinel) */
    int drops_pending; /* events were dropped since the last drain: resync at the next */
    PyObject *name;    /* str, owned */
    Event *events;
    uint32_t len, cap;
    Event *spare; /* the buffer drained last time, given back: the next drain swaps it in */
    uint32_t spare_cap;
    uint32_t idle_drains; /* drains in a row that found nothing recorded */
    uint32_t *stack;
    uint32_t depth, stack_cap;
    uint64_t dropped; /* events dropped on this thread, total */
    uint64_t last_ts; /* the last timestamp drained (converted), for monotonic output */
    struct Rec *next; /* registry link */
    uint32_t pend_used;
    uint8_t pend_order[PEND_MAX]; /* the slots in use, in order of first use */
    PendSlot pend[PEND_SLOTS];
    uint64_t mem_dropped[3]; /* allocations, bytes, frees lost with dropped memory records */
    /* An OS thread running an event loop: its `hidden` bottom frames (the code that started the
     * loop) were closed on the wire when its first task ran, so that the loop's thread, a
     * carrier of tasks, does not show `<module>` waiting in the loop; their own exits are not
     * sent again. */
    uint32_t hidden;
    /* A task slot (see "tasks"): the thread of the city that the tasks it is lent to run in. */
    int slot;
    const void *task_key;  /* the task it is lent to: its outermost coroutine's frame */
    struct Rec *free_next; /* the free slots' link */
} Rec;

#define RECENT 16u /* a power of 2 */

/* Per OS thread. Rec headers are never freed (only their buffers): the pointer may still name one
 * after its thread state ended, and reading its `ended`/`gen` must stay valid. */
typedef struct {
    Rec *rec;
    int guard;                /* > 0 while the agent's own code runs here: nothing is counted */
    PyTypeObject *typed;      /* 3.11/3.12: the heap type the next object allocation is made for */
    void *last_ptr;           /* the last object-domain allocation on this thread, and its size */
    size_t last_size;
    /* 3.11/3.12 (blocks): the last RECENT untyped blocks counted, so objects the collector
     * made for gc.callbacks can be taken back (gc_phase) */
    void *recent_ptr[RECENT];
    size_t recent_size[RECENT];
    uint32_t recent_at;
    Rec *task;          /* the task slot this thread's events go to now (a task runs), or NULL */
    uint32_t task_open; /* frames entered or resumed in that task since, not yet left */
} Tls;
static __thread Tls tls __attribute__((tls_model("initial-exec")));
#define tls_rec (tls.rec)
static Rec *registry;
static uint64_t next_thread_id = 1;
static uint32_t generation = 0;
static int active = 0;
static Py_ssize_t extra_index = -1;
static PyObject *resolver = NULL; /* callable(code, module_name) -> int id or -1 */
static PyObject *namer = NULL;    /* callable(ident) -> str */
static PyObject *dict_key = NULL; /* key of the sentinel in the thread state dict */
static uint64_t zero_ns = 0;
static uint32_t max_events = 65536;
static uint64_t dropped_gone = 0; /* dropped events of records already removed */
static uint64_t calls_drained_total = 0; /* enter and exit records drained (memory records not) */
static int all_threads = 0;       /* installed with PyEval_SetProfileAllThreads */
#if PY_VERSION_HEX >= 0x030C0000
static int profiling = 0; /* the profile hook (not sys.monitoring) is installed */
#endif

/* Allocation counting (install's alloc_mode). */
#define ALLOC_OFF 0
#define ALLOC_BLOCKS 1 /* object-domain blocks and bytes, heap types typed (3.11/3.12) */
#define ALLOC_TYPES 2  /* every object's type through the reference tracer (3.13+) */
static int alloc_mode = ALLOC_OFF;
static int counting = 0;   /* alloc_mode != OFF and active */
static int code_shift = 1; /* 1: v1 events (id*2+kind); 2: packed records (id*4+kind) */
static uint64_t mem_dropped_gone[3] = {0, 0, 0};
static const char untyped_key_storage = 0;
#define UNTYPED_KEY ((const void *)&untyped_key_storage)

/* Nanoseconds since the agent's clock zero (CLOCK_MONOTONIC, what time.monotonic_ns reads). */
static inline uint64_t mono_ticks(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    return ns >= zero_ns ? ns - zero_ns : 0;
}

/* The event clock. Where the kernel itself uses the TSC as its clocksource (the agent checks),
 * events store raw TSC values (one RDTSC, ~9 ns, instead of ~22 ns for clock_gettime) and
 * drain() converts them to nanoseconds against CLOCK_MONOTONIC, calibrated from the install
 * anchor to the drain's. Elsewhere events store mono_ticks() directly. */
static int use_tsc = 0;
static uint64_t tsc_anchor = 0;  /* TSC at install */
static uint64_t mono_anchor = 0; /* mono_ticks() at install */

#if defined(__x86_64__)
#include <x86intrin.h>
static inline uint64_t read_tsc(void) { return __rdtsc(); }
#else
static inline uint64_t read_tsc(void) { return 0; }
#endif

static inline uint64_t now_ticks(void)
{
    if (LIKELY(use_tsc)) {
        return read_tsc();
    }
    return mono_ticks();
}

/* A TSC reading and the monotonic time at (nearly) the same instant. */
static void clock_pair(uint64_t *tsc, uint64_t *mono)
{
    uint64_t before = read_tsc();
    *mono = mono_ticks();
    uint64_t after = read_tsc();
    *tsc = before + (after - before) / 2;
}

/* ---- the sentinel: marks a record ended when its thread state's dict is cleared ---- */

typedef struct {
    PyObject_HEAD Rec *rec;
} Sentinel;

static void sentinel_dealloc(PyObject *self)
{
    Rec *rec = ((Sentinel *)self)->rec;
    if (rec != NULL) {
        rec->ended = 1;
    }
    Py_TYPE(self)->tp_free(self);
}

static PyTypeObject SentinelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "highrise_agent._native.ThreadSentinel",
    .tp_basicsize = sizeof(Sentinel),
    .tp_dealloc = sentinel_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
};

/* ---- records ---- */

static Rec *new_rec(void)
{
    Rec *rec = calloc(1, sizeof(Rec));
    if (rec == NULL) {
        return NULL;
    }
    rec->gen = generation;
    rec->thread_id = next_thread_id++;
    rec->ident = PyThread_get_thread_ident();
    tls.guard++;
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    if (namer != NULL) {
        PyObject *ident = PyLong_FromUnsignedLong(PyThread_get_thread_ident());
        if (ident != NULL) {
            rec->name = PyObject_CallOneArg(namer, ident);
            Py_DECREF(ident);
        }
        if (rec->name != NULL && !PyUnicode_Check(rec->name)) {
            Py_CLEAR(rec->name);
        }
    }
    if (rec->name == NULL) {
        PyErr_Clear();
        rec->name = PyUnicode_FromFormat("thread-%lu", PyThread_get_thread_ident());
        if (rec->name == NULL) {
            PyErr_Clear();
        }
    }
    PyObject *dict = PyThreadState_GetDict();
    if (dict != NULL && dict_key != NULL) {
        Sentinel *sentinel = PyObject_New(Sentinel, &SentinelType);
        if (sentinel != NULL) {
            sentinel->rec = rec;
            /* Replacing an older sentinel ends that older record. */
            if (PyDict_SetItem(dict, dict_key, (PyObject *)sentinel) < 0) {
                PyErr_Clear();
            }
            Py_DECREF(sentinel);
        }
        else {
            PyErr_Clear();
        }
    }
    PyErr_Restore(type, value, traceback);
    tls.guard--;
    rec->next = registry;
    registry = rec;
    return rec;
}

static inline Rec *current_rec(void)
{
    if (UNLIKELY(tls.task != NULL)) {
        if (LIKELY(tls.task->gen == generation && !tls.task->ended)) {
            return tls.task;
        }
        tls.task = NULL; /* a slot of an ended session */
    }
    Rec *rec = tls_rec;
    if (LIKELY(rec != NULL && rec->gen == generation && !rec->ended)) {
        return rec;
    }
    rec = new_rec();
    tls_rec = rec;
    return rec;
}

static int grow_events(Rec *rec)
{
    if (rec->cap >= max_events) {
        return 0;
    }
    uint32_t cap = rec->cap ? rec->cap * 2 : FIRST_EVENTS_CAP;
    if (cap > max_events) {
        cap = max_events;
    }
    Event *events = realloc(rec->events, (size_t)cap * sizeof(Event));
    if (events == NULL) {
        return 0;
    }
    rec->events = events;
    rec->cap = cap;
    return 1;
}

static int grow_stack(Rec *rec)
{
    if (rec->stack_cap >= MAX_STACK_DEPTH) {
        return 0;
    }
    uint32_t cap = rec->stack_cap ? rec->stack_cap * 2 : FIRST_STACK_CAP;
    uint32_t *stack = realloc(rec->stack, (size_t)cap * sizeof(uint32_t));
    if (stack == NULL) {
        return 0;
    }
    rec->stack = stack;
    rec->stack_cap = cap;
    return 1;
}

static inline void record_at(Rec *rec, uint32_t code, uint64_t ts)
{
    if (UNLIKELY(rec->drops_pending || (rec->len == rec->cap && !grow_events(rec)))) {
        /* Once dropping, keep dropping until the sender drains and resyncs this thread. */
        rec->dropped++;
        rec->drops_pending = 1;
        return;
    }
    Event *event = &rec->events[rec->len++];
    event->ts = ts;
    event->code = code;
}

static inline void record(Rec *rec, uint32_t code) { record_at(rec, code, now_ticks()); }

/* ---- allocation counting: pending counters and memory records ---- */

/* One memory record (two slots): `count` objects of `class_id`, `bytes` in all, created or
 * freed by the frame on top of this thread's stream. Dropped (and counted) like any record. */
static void put_memory(Rec *rec, uint64_t ts, uint32_t class_id, uint64_t count, uint64_t bytes, int free)
{
    if (rec->drops_pending || (rec->len + 2 > rec->cap && !(grow_events(rec) && rec->len + 2 <= rec->cap))) {
        rec->dropped++;
        rec->drops_pending = 1;
        if (free) {
            rec->mem_dropped[2] += count;
        }
        else {
            rec->mem_dropped[0] += count;
            rec->mem_dropped[1] += bytes;
        }
        return;
    }
    Event *event = &rec->events[rec->len];
    event->ts = ts;
    event->code = (class_id << 2) | KIND_MEMORY;
    event->free = free ? 1u : 0u;
    MemPayload *payload = (MemPayload *)&rec->events[rec->len + 1];
    payload->count = count;
    payload->bytes = bytes;
    rec->len += 2;
}

static uint32_t *class_units; /* by class id: the last measured allocation size (3.13+) */

/* Writes the thread's pending counts as memory records at `ts` and clears them. */
static void flush_pending(Rec *rec, uint64_t ts)
{
    for (uint32_t i = 0; i < rec->pend_used; i++) {
        PendSlot *slot = &rec->pend[rec->pend_order[i]];
        if (slot->count) {
            put_memory(rec, ts, slot->class_id, slot->count, slot->bytes, 0);
        }
        if (slot->unit && class_units != NULL) {
            class_units[slot->class_id] = slot->unit;
        }
        slot->key = NULL;
    }
    rec->pend_used = 0;
}

/* The class table: type (or UNTYPED_KEY) -> dense class id, holding a reference to each type so
 * that its address is never reused for another while the session runs. */
typedef struct {
    const void *key;
    uint32_t id;
} ClassEntry;
static ClassEntry *class_hash;   /* open addressing, load <= 1/2 */
static uint32_t class_hash_cap;  /* a power of 2, or 0 */
static const void **class_keys;  /* by id */
static uint32_t class_count, class_cap, classes_taken;
#define MAX_CLASS_ID 16777216u
#define NO_CLASS UINT32_MAX

static inline uint32_t hash_ptr(const void *key)
{
    return (uint32_t)((((uintptr_t)key >> 4) * 0x9E3779B97F4A7C15ull) >> 32);
}

static int class_hash_insert(ClassEntry *table, uint32_t cap, const void *key, uint32_t id)
{
    uint32_t mask = cap - 1;
    for (uint32_t h = hash_ptr(key) & mask;; h = (h + 1) & mask) {
        if (table[h].key == NULL) {
            table[h].key = key;
            table[h].id = id;
            return 1;
        }
    }
}

/* The class id of `key` if registered, else NO_CLASS. */
static uint32_t class_lookup(const void *key)
{
    if (class_hash_cap) {
        uint32_t mask = class_hash_cap - 1;
        for (uint32_t h = hash_ptr(key) & mask;; h = (h + 1) & mask) {
            if (class_hash[h].key == key) {
                return class_hash[h].id;
            }
            if (class_hash[h].key == NULL) {
                break;
            }
        }
    }
    return NO_CLASS;
}

/* The class id of `key`, registered on first sight; NO_CLASS when out of ids or memory. Never
 * calls into Python (it runs inside allocation hooks): naming happens in take_classes. */
static uint32_t class_id_of(const void *key)
{
    uint32_t known = class_lookup(key);
    if (known != NO_CLASS) {
        return known;
    }
    if (class_count >= MAX_CLASS_ID) {
        return NO_CLASS;
    }
    if ((class_count + 1) * 2 > class_hash_cap) {
        uint32_t cap = class_hash_cap ? class_hash_cap * 2 : 256;
        ClassEntry *table = calloc(cap, sizeof(ClassEntry));
        if (table == NULL) {
            return NO_CLASS;
        }
        for (uint32_t i = 0; i < class_hash_cap; i++) {
            if (class_hash[i].key != NULL) {
                class_hash_insert(table, cap, class_hash[i].key, class_hash[i].id);
            }
        }
        free(class_hash);
        class_hash = table;
        class_hash_cap = cap;
    }
    if (class_count == class_cap) {
        uint32_t cap = class_cap ? class_cap * 2 : 128;
        const void **keys = realloc(class_keys, cap * sizeof(*keys));
        if (keys == NULL) {
            return NO_CLASS;
        }
        class_keys = keys;
        uint32_t *units = realloc(class_units, cap * sizeof(*units));
        if (units == NULL) {
            return NO_CLASS;
        }
        class_units = units;
        class_cap = cap;
    }
    uint32_t id = class_count++;
    class_keys[id] = key;
    class_units[id] = 0;
    class_hash_insert(class_hash, class_hash_cap, key, id);
    if (key != UNTYPED_KEY) {
        Py_INCREF((PyObject *)key);
    }
    return id;
}

/* Forgets every class (a new session). Runs with the GIL, outside any hook. */
static void clear_classes(void)
{
    const void **keys = class_keys;
    uint32_t count = class_count;
    class_keys = NULL;
    free(class_hash);
    class_hash = NULL;
    free(class_units);
    class_units = NULL;
    class_hash_cap = class_count = class_cap = classes_taken = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (keys[i] != UNTYPED_KEY) {
            Py_DECREF((PyObject *)keys[i]);
        }
    }
    free(keys);
}

/* The pending slot of `key` on this thread if it has one, else NULL. */
static PendSlot *pend_find(Rec *rec, const void *key)
{
    uint32_t mask = PEND_SLOTS - 1;
    for (uint32_t h = hash_ptr(key) & mask;; h = (h + 1) & mask) {
        PendSlot *slot = &rec->pend[h];
        if (slot->key == key || slot->key == NULL) {
            return slot->key == key ? slot : NULL;
        }
    }
}

/* Takes one object of `bytes` back from `slot`'s counts (never below zero). */
static void uncount(PendSlot *slot, uint64_t bytes)
{
    if (slot != NULL && slot->count != 0) {
        slot->count--;
        slot->bytes -= bytes < slot->bytes ? bytes : slot->bytes;
    }
}

/* The pending slot of `key` on this thread, made on first use (writing the others out when the
 * table is full); NULL when the class cannot be registered. */
static inline PendSlot *pend_slot(Rec *rec, const void *key)
{
    uint32_t mask = PEND_SLOTS - 1;
    uint32_t start = hash_ptr(key) & mask;
    for (uint32_t h = start;; h = (h + 1) & mask) {
        PendSlot *slot = &rec->pend[h];
        if (LIKELY(slot->key == key)) {
            return slot;
        }
        if (slot->key == NULL) {
            break;
        }
    }
    if (rec->pend_used >= PEND_MAX) {
        flush_pending(rec, now_ticks());
    }
    uint32_t class_id = class_id_of(key);
    if (class_id == NO_CLASS) {
        return NULL;
    }
    for (uint32_t h = start;; h = (h + 1) & mask) {
        PendSlot *slot = &rec->pend[h];
        if (slot->key == NULL) {
            slot->key = key;
            slot->class_id = class_id;
            slot->count = slot->bytes = 0;
            slot->unit = class_units[class_id];
            rec->pend_order[rec->pend_used++] = (uint8_t)h;
            return slot;
        }
    }
}

/* The thread's record when its allocations count now: a profiled frame is open, the agent's own
 * code is not running, and the record is this session's. */
static inline Rec *counting_rec(Tls *t)
{
    Rec *rec = t->task != NULL ? t->task : t->rec;
    if (LIKELY(rec != NULL && rec->depth != 0 && t->guard == 0 && rec->gen == generation && !rec->ended && counting)) {
        return rec;
    }
    return NULL;
}

/* ---- allocation counting: the hooks ---- */

#ifdef Py_TPFLAGS_PREHEADER
#define HR_PREHEADER_FLAGS Py_TPFLAGS_PREHEADER
#else
#define HR_PREHEADER_FLAGS Py_TPFLAGS_MANAGED_DICT
#endif

/* Bytes CPython allocates in front of an object of `type` (the GC header, the managed dict and
 * weakref pointers): an object made by the allocator starts this far into its block. */
static inline size_t preheader_of(PyTypeObject *type)
{
    return (PyType_IS_GC(type) ? 2 * sizeof(void *) : 0) +
           ((type->tp_flags & HR_PREHEADER_FLAGS) ? 2 * sizeof(void *) : 0);
}

/* `obj` was made by the interpreter for one of our hooks (the offset argument of a
 * sys.monitoring callback, a frame object a profile hook needs): it is not the program's, so
 * its count (made just before the hook, with no event in between) is taken back. `created`:
 * known to be new; otherwise only when it is the thread's last allocation. */
static void forget_recent_block(Rec *rec, void *block);

static void forget_hooks_object(PyObject *obj, int created)
{
    Tls *t = &tls;
    Rec *rec = counting_rec(t);
    if (rec == NULL) {
        return;
    }
    PyTypeObject *type = Py_TYPE(obj);
    int fresh = t->last_ptr != NULL && (char *)t->last_ptr == (char *)obj - preheader_of(type);
    const void *key;
    if (alloc_mode == ALLOC_TYPES) {
        if (!created && !fresh) {
            return;
        }
        key = type;
    }
    else {
        if (!fresh) {
            /* A collection that started with this very allocation made its own objects for
             * gc.callbacks after it (taken back by gc_phase): the block is among the recent. */
            if (alloc_mode == ALLOC_BLOCKS) {
                forget_recent_block(rec, (char *)obj - preheader_of(type));
            }
            return;
        }
        key = UNTYPED_KEY;
    }
    PendSlot *slot = pend_find(rec, key);
    if (slot == NULL || slot->count == 0) {
        return;
    }
    uncount(slot, fresh ? t->last_size : slot->unit);
    t->last_ptr = NULL;
}

/* Takes back the count of `block`, one of the thread's last RECENT untyped blocks. */
static void forget_recent_block(Rec *rec, void *block)
{
    Tls *t = &tls;
    for (uint32_t back = 1; block != NULL && back <= RECENT; back++) { /* newest first */
        uint32_t i = (t->recent_at - back) & (RECENT - 1);
        if (t->recent_ptr[i] == block) {
            t->recent_ptr[i] = NULL;
            uncount(pend_find(rec, UNTYPED_KEY), t->recent_size[i]);
            return;
        }
    }
}

/* An object the collector made for gc.callbacks just now: not the running method's. */
static void forget_gc_object(Rec *rec, PyObject *obj)
{
    if (alloc_mode == ALLOC_TYPES) {
        forget_hooks_object(obj, 1);
    }
    else {
        forget_recent_block(rec, (char *)obj - preheader_of(Py_TYPE(obj)));
    }
}

/* gc_phase(phase, info), first in gc.callbacks while allocations are counted. At each
 * collection's start and stop CPython makes the phase string (3.12+ even with no callbacks) and,
 * with callbacks, the info dict, in whatever method is running: without this, a collection that
 * starts in a method adds them to its allocations. Each such object is taken back here:
 * the phase string, the info dict, its block of keys, and its keys and values made for it (held
 * only by the dict, not immortal). Finalizers the collector runs still count, in their methods. */
static PyObject *gc_phase(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    Rec *rec = counting_rec(&tls);
    if (rec == NULL || nargs != 2) {
        Py_RETURN_NONE;
    }
    PyObject *info = args[1];
    if (PyDict_CheckExact(info)) {
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        while (PyDict_Next(info, &pos, &key, &value)) {
            if (Py_REFCNT(key) == 1) {
                forget_gc_object(rec, key);
            }
            if (Py_REFCNT(value) == 1) {
                forget_gc_object(rec, value);
            }
        }
        if (alloc_mode == ALLOC_BLOCKS) {
            forget_recent_block(rec, ((PyDictObject *)info)->ma_keys);
        }
        forget_gc_object(rec, info);
    }
    if (PyUnicode_CheckExact(args[0])) {
        forget_gc_object(rec, args[0]);
    }
    Py_RETURN_NONE;
}

/* The object-domain allocator: forwarded to the one installed before ours. 3.11/3.12 count each
 * block here (typed when it is a heap type's instance); 3.13+ only note its size for the
 * reference tracer. */
static PyMemAllocatorEx obj_orig;
static int obj_hooked = 0;

static inline void note_alloc(void *ptr, size_t size)
{
    Tls *t = &tls;
    t->last_ptr = ptr;
    t->last_size = size;
    if (alloc_mode == ALLOC_BLOCKS) {
        Rec *rec = counting_rec(t);
        if (rec != NULL) {
            const void *key = t->typed != NULL ? (const void *)t->typed : UNTYPED_KEY;
            t->typed = NULL;
            uint32_t at = t->recent_at++ & (RECENT - 1);
            t->recent_ptr[at] = key == UNTYPED_KEY ? ptr : NULL;
            t->recent_size[at] = size;
            PendSlot *slot = pend_slot(rec, key);
            if (LIKELY(slot != NULL)) {
                slot->count++;
                slot->bytes += size;
            }
        }
    }
}

static void *hr_malloc(void *ctx, size_t size)
{
    void *ptr = obj_orig.malloc(obj_orig.ctx, size);
    if (LIKELY(ptr != NULL)) {
        note_alloc(ptr, size);
    }
    return ptr;
}

static void *hr_calloc(void *ctx, size_t nelem, size_t elsize)
{
    void *ptr = obj_orig.calloc(obj_orig.ctx, nelem, elsize);
    if (LIKELY(ptr != NULL)) {
        note_alloc(ptr, nelem * elsize);
    }
    return ptr;
}

/* A resize counts as one block of the new size (the old one's size is not known). */
static void *hr_realloc(void *ctx, void *old, size_t size)
{
    void *ptr = obj_orig.realloc(obj_orig.ctx, old, size);
    if (LIKELY(ptr != NULL)) {
        note_alloc(ptr, size);
    }
    return ptr;
}

static void hr_free(void *ctx, void *ptr) { obj_orig.free(obj_orig.ctx, ptr); }

static void hook_object_allocator(void)
{
    if (obj_hooked) {
        return;
    }
    PyMemAllocatorEx ours = {NULL, hr_malloc, hr_calloc, hr_realloc, hr_free};
    PyMem_GetAllocator(PYMEM_DOMAIN_OBJ, &obj_orig);
    PyMem_SetAllocator(PYMEM_DOMAIN_OBJ, &ours);
    obj_hooked = 1;
}

/* Puts the previous allocator back, unless someone (tracemalloc) installed theirs over ours:
 * ours then stays, forwarding (and counting nothing once `counting` is off). */
static void unhook_object_allocator(void)
{
    if (!obj_hooked) {
        return;
    }
    PyMemAllocatorEx current;
    PyMem_GetAllocator(PYMEM_DOMAIN_OBJ, &current);
    if (current.malloc == hr_malloc) {
        PyMem_SetAllocator(PYMEM_DOMAIN_OBJ, &obj_orig);
        obj_hooked = 0;
    }
}

#if PY_VERSION_HEX >= 0x030D0000
/* 3.13+: every object's creation, with its type. Destructions are not counted: 3.13's eval loop
 * frees most objects without telling the tracer. */
static int reftracer_installed = 0;

static int reftrace(PyObject *op, PyRefTracerEvent event, void *data)
{
    (void)data;
    if (event != PyRefTracer_CREATE) {
        return 0;
    }
    Tls *t = &tls;
    Rec *rec = counting_rec(t);
    if (rec == NULL) {
        return 0;
    }
    PyTypeObject *type = Py_TYPE(op);
    PendSlot *slot = pend_slot(rec, type);
    if (UNLIKELY(slot == NULL)) {
        return 0;
    }
    uint64_t bytes;
    if (t->last_ptr != NULL && (char *)t->last_ptr == (char *)op - preheader_of(type)) {
        bytes = t->last_size; /* made by the allocator just now */
        slot->unit = bytes < UINT32_MAX ? (uint32_t)bytes : UINT32_MAX;
        t->last_ptr = NULL;
    }
    else { /* reused from one of CPython's free lists: the type's last measured size */
        bytes = slot->unit ? slot->unit : (uint64_t)type->tp_basicsize + preheader_of(type);
    }
    slot->count++;
    slot->bytes += bytes;
    return 0;
}
#endif

/* 3.11/3.12: heap types (classes made by `class` statements) get this tp_alloc, which names the
 * block their instance is made in; new classes are patched as type.__new__ makes them. The
 * patches stay after the agent stops (they then only forward). */
static PyObject *hr_tp_alloc(PyTypeObject *type, Py_ssize_t nitems)
{
    tls.typed = type;
    PyObject *obj = PyType_GenericAlloc(type, nitems);
    tls.typed = NULL;
    return obj;
}

static newfunc type_new_orig = NULL;

static void patch_type(PyTypeObject *type)
{
    if ((type->tp_flags & Py_TPFLAGS_HEAPTYPE) && type->tp_alloc == PyType_GenericAlloc) {
        type->tp_alloc = hr_tp_alloc;
    }
}

static PyObject *hr_type_new(PyTypeObject *meta, PyObject *args, PyObject *kwds)
{
    PyObject *made = type_new_orig(meta, args, kwds);
    if (made != NULL && PyType_Check(made)) {
        patch_type((PyTypeObject *)made);
    }
    return made;
}

/* patch_types([types]): every class that exists already (the agent lists them). Metaclasses
 * that inherited type.__new__ get ours too, so type.__new__'s safety check still holds. */
static PyObject *patch_types(PyObject *module, PyObject *list)
{
    (void)module;
    if (!PyList_Check(list)) {
        PyErr_SetString(PyExc_TypeError, "patch_types needs a list");
        return NULL;
    }
    if (type_new_orig == NULL) {
        type_new_orig = PyType_Type.tp_new;
        PyType_Type.tp_new = hr_type_new;
    }
    Py_ssize_t patched = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
        PyObject *item = PyList_GET_ITEM(list, i);
        if (!PyType_Check(item)) {
            continue;
        }
        PyTypeObject *type = (PyTypeObject *)item;
        if (PyType_IsSubtype(type, &PyType_Type) && type->tp_new == type_new_orig) {
            type->tp_new = hr_type_new;
        }
        if (type->tp_alloc == PyType_GenericAlloc && (type->tp_flags & Py_TPFLAGS_HEAPTYPE)) {
            patch_type(type);
            patched++;
        }
    }
    return PyLong_FromSsize_t(patched);
}

/* ---- classification ---- */

/* Asks the Python resolver once per code object and caches the answer in co_extra. `frame` may
 * be NULL (sys.monitoring callbacks): the running frame's globals are then used. */
static int64_t classify(PyCodeObject *code, PyFrameObject *frame)
{
    int64_t id = -1;
    tls.guard++; /* the resolver's allocations are the agent's */
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    if (resolver != NULL) {
        PyObject *module = NULL;
        PyObject *globals = frame != NULL ? PyFrame_GetGlobals(frame) : Py_XNewRef(PyEval_GetGlobals());
        if (globals != NULL && PyDict_Check(globals)) {
            module = PyDict_GetItemString(globals, "__name__"); /* borrowed */
        }
        PyObject *result =
            PyObject_CallFunctionObjArgs(resolver, (PyObject *)code, module ? module : Py_None, NULL);
        Py_XDECREF(globals);
        if (result != NULL) {
            long long answer = PyLong_AsLongLong(result);
            if (!(answer == -1 && PyErr_Occurred()) && answer >= 0 && answer < MAX_METHOD_ID) {
                id = answer;
            }
            Py_DECREF(result);
        }
        PyErr_Clear();
    }
    uint64_t tagged = ((uint64_t)generation << 32) | (uint64_t)(id >= 0 ? id + 1 : 0);
    if (HR_SET_EXTRA((PyObject *)code, extra_index, (void *)(uintptr_t)tagged) < 0) {
        PyErr_Clear();
    }
    PyErr_Restore(type, value, traceback);
    tls.guard--;
    return id;
}

#define UNKNOWN (-2)

/* The method id of `code`; -1 when excluded; UNKNOWN when not classified yet and `classify_now`
 * is false. */
static inline int64_t method_of(PyCodeObject *code, PyFrameObject *frame, int classify_now)
{
    void *extra = NULL;
    if (UNLIKELY(HR_GET_EXTRA((PyObject *)code, extra_index, &extra) < 0)) {
        PyErr_Clear();
        return -1;
    }
    uint64_t tagged = (uint64_t)(uintptr_t)extra;
    if (LIKELY((uint32_t)(tagged >> 32) == generation)) {
        return (int64_t)(uint32_t)tagged - 1;
    }
    if (!classify_now) {
        return UNKNOWN;
    }
    return classify(code, frame);
}

/* ---- the hook ---- */

static inline void enter_id(int64_t id)
{
    Rec *rec = current_rec();
    if (UNLIKELY(rec == NULL)) {
        return;
    }
    if (UNLIKELY(rec->depth == rec->stack_cap) && !grow_stack(rec)) {
        return; /* cannot track it: do not record it either (its exit will not match) */
    }
    uint64_t ts = now_ticks();
    if (UNLIKELY(rec->pend_used != 0)) {
        flush_pending(rec, ts); /* the caller's counts, before the callee opens */
    }
    rec->stack[rec->depth++] = (uint32_t)id;
    record_at(rec, (uint32_t)id << code_shift, ts);
}

/* Records the exit of `code` if it is the frame on top of this thread's shadow stack. Returns
 * the code's method id (-1 excluded, UNKNOWN never classified). */
static inline int64_t exit_code(PyCodeObject *code)
{
    Rec *rec = tls.task != NULL ? tls.task : tls_rec;
    if (rec == NULL || rec->depth == 0 || rec->gen != generation || rec->ended) {
        return UNKNOWN; /* nothing of ours is open on this thread */
    }
    int64_t id = method_of(code, NULL, 0);
    if (id < 0 || rec->stack[rec->depth - 1] != (uint32_t)id) {
        return id; /* not a frame we recorded (e.g. it started before the agent) */
    }
    if (UNLIKELY(rec->depth <= rec->hidden)) {
        rec->hidden = --rec->depth; /* closed on the wire when the loop's first task ran */
        return id;
    }
    uint64_t ts = now_ticks();
    if (UNLIKELY(rec->pend_used != 0)) {
        flush_pending(rec, ts); /* this frame's counts, before it closes */
    }
    rec->depth--;
    record_at(rec, ((uint32_t)id << code_shift) | 1u, ts);
    return id;
}

static void hook_enter(PyFrameObject *frame)
{
    PyCodeObject *code = PyFrame_GetCode(frame);
    int64_t id = method_of(code, frame, 1);
    Py_DECREF(code);
    if (id >= 0) {
        enter_id(id);
    }
}

static void hook_exit(PyFrameObject *frame)
{
    if (tls_rec == NULL || tls_rec->depth == 0) {
        return;
    }
    PyCodeObject *code = PyFrame_GetCode(frame);
    exit_code(code);
    Py_DECREF(code);
}

#ifdef HR_TASKS
/* ---- tasks: asyncio (any event loop on Python coroutines) as the paper's threads ----
 *
 * The unit that waits in an async program is the task, a chain of coroutines awaiting each other,
 * not the OS thread that runs the loop. So while a task runs, its events go to a task slot, a Rec
 * of its own (a thread of the city), and its coroutines stay open there when they suspend: a
 * coroutine awaiting I/O is on top of its task's stack, as a thread waiting in a method is. A
 * coroutine call is one call however often it resumes (PY_RESUME and PY_YIELD of a coroutine
 * record nothing). A task is known by its outermost coroutine's frame (it lives inside the
 * coroutine object); its slot goes back to a free list when none of its frames is open, and the
 * next task takes it: slots are threads that live long, as a pool's threads do, so a method where
 * 50 requests wait at a time reads ~100 % with 50 threads, and memory stays bounded by the tasks
 * alive at once. The loop's OS thread is a carrier: when its first task runs, the frames below
 * the loop (`<module>` in asyncio.run) are closed on the wire (Rec.hidden). */

/* Frames of a task's chain: coroutines, generator-based coroutines and async generators. Only a
 * coroutine (`async def`) stays open when it suspends: an async generator's yield hands a value to
 * the coroutine consuming it, which goes on, so it ends its call as a generator's does. */
#define ASYNC_FLAGS (CO_COROUTINE | CO_ITERABLE_COROUTINE | CO_ASYNC_GENERATOR)

typedef struct {
    const void *key;
    Rec *slot;
} TaskEntry;

static TaskEntry *task_map; /* open addressing, load <= 1/2 */
static uint32_t task_cap, task_used;
static Rec *free_slots;
static uint32_t slots_made;

static inline PyObject *frame_code(_PyInterpreterFrame *frame)
{
#if PY_VERSION_HEX >= 0x030D0000
    return frame->f_executable;
#else
    return (PyObject *)frame->f_code;
#endif
}

static inline int is_async_frame(_PyInterpreterFrame *frame)
{
    PyObject *code = frame_code(frame);
    return frame->owner == FRAME_OWNED_BY_GENERATOR && code != NULL && PyCode_Check(code) &&
           (((PyCodeObject *)code)->co_flags & ASYNC_FLAGS) != 0;
}

/* The frame running now on this thread (the one a sys.monitoring callback is called for). */
static inline _PyInterpreterFrame *running_frame(void)
{
    PyThreadState *ts = PyThreadState_GET();
#if PY_VERSION_HEX >= 0x030D0000
    return ts->current_frame;
#else
    return ts->cframe != NULL ? ts->cframe->current_frame : NULL;
#endif
}

static TaskEntry *task_find(const void *key)
{
    if (task_cap == 0) {
        return NULL;
    }
    for (uint32_t i = hash_ptr(key) & (task_cap - 1);; i = (i + 1) & (task_cap - 1)) {
        if (task_map[i].key == key) {
            return &task_map[i];
        }
        if (task_map[i].key == NULL) {
            return NULL;
        }
    }
}

static int task_insert(const void *key, Rec *slot)
{
    if ((task_used + 1) * 2 > task_cap) {
        uint32_t cap = task_cap ? task_cap * 2 : 64;
        TaskEntry *map = calloc(cap, sizeof(TaskEntry));
        if (map == NULL) {
            return -1;
        }
        for (uint32_t j = 0; j < task_cap; j++) {
            if (task_map[j].key != NULL) {
                uint32_t i = hash_ptr(task_map[j].key) & (cap - 1);
                while (map[i].key != NULL) {
                    i = (i + 1) & (cap - 1);
                }
                map[i] = task_map[j];
            }
        }
        free(task_map);
        task_map = map;
        task_cap = cap;
    }
    uint32_t i = hash_ptr(key) & (task_cap - 1);
    while (task_map[i].key != NULL) {
        i = (i + 1) & (task_cap - 1);
    }
    task_map[i].key = key;
    task_map[i].slot = slot;
    task_used++;
    return 0;
}

/* Removes `entry` (backward shift: no tombstones). */
static void task_remove(TaskEntry *entry)
{
    uint32_t i = (uint32_t)(entry - task_map);
    task_used--;
    for (uint32_t j = (i + 1) & (task_cap - 1); task_map[j].key != NULL; j = (j + 1) & (task_cap - 1)) {
        uint32_t home = hash_ptr(task_map[j].key) & (task_cap - 1);
        /* j's entry may move into the hole at i when its home is not in (i, j]. */
        if (((j - home) & (task_cap - 1)) >= ((j - i) & (task_cap - 1))) {
            task_map[i] = task_map[j];
            i = j;
        }
    }
    task_map[i].key = NULL;
    task_map[i].slot = NULL;
}

static Rec *take_slot(void)
{
    Rec *slot = free_slots;
    if (slot != NULL) {
        free_slots = slot->free_next;
        slot->free_next = NULL;
        return slot;
    }
    slot = calloc(1, sizeof(Rec));
    if (slot == NULL) {
        return NULL;
    }
    slot->gen = generation;
    slot->thread_id = next_thread_id++;
    slot->slot = 1;
    tls.guard++;
    slot->name = PyUnicode_FromFormat("asyncio task %u", ++slots_made);
    if (slot->name == NULL) {
        PyErr_Clear();
    }
    tls.guard--;
    slot->next = registry;
    registry = slot;
    return slot;
}

/* The running task leaves this thread (its outermost frame here suspended or ended). */
static void task_leave(void)
{
    Rec *slot = tls.task;
    tls.task = NULL;
    tls.task_open = 0;
    if (slot == NULL || slot->gen != generation || slot->ended || slot->depth != 0) {
        return;
    }
    TaskEntry *entry = task_find(slot->task_key);
    if (entry != NULL && entry->slot == slot) {
        task_remove(entry);
    }
    slot->task_key = NULL;
    slot->free_next = free_slots;
    free_slots = slot;
}

/* The loop's thread starts running tasks: the frames it has open (the code that started the
 * loop) are closed on the wire, and their own exits are not sent later (exit_code). */
static void hide_carrier(Rec *rec)
{
    if (rec == NULL || rec->gen != generation || rec->ended || rec->hidden != 0 || rec->depth == 0) {
        return;
    }
    uint64_t ts = now_ticks();
    if (rec->pend_used != 0) {
        flush_pending(rec, ts);
    }
    for (uint32_t d = rec->depth; d > 0; d--) {
        record_at(rec, (rec->stack[d - 1] << code_shift) | 1u, ts);
    }
    rec->hidden = rec->depth;
}

/* Before a profiled frame of `code` starts or resumes on this thread: its events go to the task
 * it runs in. Returns 1 when the frame is a coroutine's that a task slot holds open already
 * (a resume: nothing to record), else 0. */
static int task_enter(PyCodeObject *code, int resumed)
{
    int is_async = (code->co_flags & ASYNC_FLAGS) != 0;
    if (tls.task != NULL) {
        if (UNLIKELY(tls.task->gen != generation || tls.task->ended)) {
            tls.task = NULL;
        }
        else {
            tls.task_open++;
            goto routed;
        }
    }
    if (!is_async) {
        return 0;
    }
    _PyInterpreterFrame *frame = running_frame();
    if (frame == NULL || frame_code(frame) != (PyObject *)code || !is_async_frame(frame)) {
        return 0;
    }
    const void *key = frame;
    for (int hops = 0; frame->previous != NULL && hops < 4096; hops++) {
        frame = frame->previous;
        if (!is_async_frame(frame)) {
            break;
        }
        key = frame;
    }
    TaskEntry *entry = task_find(key);
    Rec *slot = entry != NULL ? entry->slot : NULL;
    if (slot == NULL) {
        slot = take_slot();
        if (slot == NULL || task_insert(key, slot) < 0) {
            if (slot != NULL) {
                slot->free_next = free_slots;
                free_slots = slot;
            }
            return 0;
        }
        slot->task_key = key;
    }
    hide_carrier(current_rec());
    tls.task = slot;
    tls.task_open = 1;
routed:
    if (!(code->co_flags & CO_COROUTINE) || !resumed) {
        return 0;
    }
    /* A coroutine resuming: open already unless it started before the agent saw its task. */
    int64_t id = method_of(code, NULL, 0);
    for (uint32_t d = tls.task->depth; id >= 0 && d > 0; d--) {
        if (tls.task->stack[d - 1] == (uint32_t)id) {
            return 1;
        }
    }
    return 0;
}

/* Whether an event of `code` may concern a task (the hot path's only cost for other programs). */
#define MAY_BE_TASK(code) UNLIKELY(tls.task != NULL || ((code)->co_flags & ASYNC_FLAGS) != 0)

/* After a profiled frame of the running task suspended, returned or unwound on this thread. */
static inline void task_left_frame(void)
{
    if (UNLIKELY(tls.task != NULL) && (tls.task_open == 0 || --tls.task_open == 0)) {
        task_leave();
    }
}

#if PY_VERSION_HEX < 0x030C0000
/* 3.11's profile hook reports a coroutine's suspension as a return: YIELD_VALUE marks the
 * generator suspended before the hook is called. */
static inline int suspending(PyFrameObject *frame)
{
    _PyInterpreterFrame *iframe = frame->f_frame;
    return iframe != NULL && iframe->owner == FRAME_OWNED_BY_GENERATOR &&
           _PyFrame_GetGenerator(iframe)->gi_frame_state == FRAME_SUSPENDED;
}
#endif

/* uninstall: every slot ends (its thread ends on the wire at the next drain), the map goes. */
static void end_tasks(void)
{
    for (Rec *rec = registry; rec != NULL; rec = rec->next) {
        if (rec->slot) {
            rec->ended = 1;
        }
    }
    free(task_map);
    task_map = NULL;
    task_cap = task_used = 0;
    free_slots = NULL;
    tls.task = NULL;
    tls.task_open = 0;
}
#endif

#if PY_VERSION_HEX >= 0x030C0000
/* ---- sys.monitoring callbacks (3.12+): called with the code object, no frame object is
 * materialised, and excluded code is switched off for good by returning DISABLE. ---- */

static PyObject *disable_obj = NULL; /* sys.monitoring.DISABLE */

/* The offset argument CPython made for this callback: a new int object beyond 256. */
static inline void forget_offset(PyObject *const *args, Py_ssize_t nargs)
{
    if (counting && nargs >= 2 && PyLong_CheckExact(args[1])) {
        int overflow = 0;
        long value = PyLong_AsLongAndOverflow(args[1], &overflow);
        if (overflow || value > 256) {
            forget_hooks_object(args[1], 1);
        }
    }
}


/* PY_START and PY_RESUME: a frame starts or resumes (`resumed`). A generator's resume is a call
 * of its own; a coroutine's is not (it stays open on its task, see "tasks"). */
static inline PyObject *mon_enter(PyObject *const *args, Py_ssize_t nargs, int resumed)
{
    if (UNLIKELY(!active || nargs < 1 || !PyCode_Check(args[0]))) {
        Py_RETURN_NONE;
    }
    forget_offset(args, nargs);
    int64_t id = method_of((PyCodeObject *)args[0], NULL, 1);
    if (id < 0) {
        return Py_NewRef(disable_obj ? disable_obj : Py_None);
    }
#ifdef HR_TASKS
    if (MAY_BE_TASK((PyCodeObject *)args[0]) && task_enter((PyCodeObject *)args[0], resumed)) {
        Py_RETURN_NONE;
    }
#endif
    enter_id(id);
    Py_RETURN_NONE;
}

/* PY_START (code, offset) */
static PyObject *mon_start(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return mon_enter(args, nargs, 0);
}

/* PY_RESUME (code, offset) */
static PyObject *mon_resume(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return mon_enter(args, nargs, 1);
}

/* PY_THROW (code, offset, exception): a generator resumed by throw(); cannot be disabled. */
static PyObject *mon_throw(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (active && nargs >= 1 && PyCode_Check(args[0])) {
        forget_offset(args, nargs);
        int64_t id = method_of((PyCodeObject *)args[0], NULL, 1);
        if (id >= 0) {
#ifdef HR_TASKS
            if (MAY_BE_TASK((PyCodeObject *)args[0]) && task_enter((PyCodeObject *)args[0], 1)) {
                Py_RETURN_NONE;
            }
#endif
            enter_id(id);
        }
    }
    Py_RETURN_NONE;
}

/* PY_RETURN (code, offset, value) */
static PyObject *mon_return(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (UNLIKELY(!active || nargs < 1 || !PyCode_Check(args[0]))) {
        Py_RETURN_NONE;
    }
    forget_offset(args, nargs);
    int64_t id = exit_code((PyCodeObject *)args[0]);
    if (id == UNKNOWN) {
        /* Nothing of ours open on this thread (e.g. the agent's own sender thread): whether
         * the code is excluded still decides, else its returns would call here forever. */
        id = method_of((PyCodeObject *)args[0], NULL, 0);
    }
    if (id == -1) {
        return Py_NewRef(disable_obj ? disable_obj : Py_None);
    }
#ifdef HR_TASKS
    if (id >= 0) {
        task_left_frame();
    }
#endif
    Py_RETURN_NONE;
}

/* PY_YIELD (code, offset, value): a generator's yield ends its call; a coroutine suspending stays
 * open on its task's stack (awaiting). */
static PyObject *mon_yield(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
#ifdef HR_TASKS
    if (LIKELY(active && nargs >= 1 && PyCode_Check(args[0])) && tls.task != NULL &&
        (((PyCodeObject *)args[0])->co_flags & CO_COROUTINE) != 0) {
        forget_offset(args, nargs);
        if (method_of((PyCodeObject *)args[0], NULL, 0) == -1) {
            return Py_NewRef(disable_obj ? disable_obj : Py_None);
        }
        task_left_frame();
        Py_RETURN_NONE;
    }
#endif
    return mon_return(module, args, nargs);
}

/* PY_UNWIND (code, offset, exception): cannot be disabled. */
static PyObject *mon_unwind(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (active && nargs >= 1 && PyCode_Check(args[0])) {
        forget_offset(args, nargs);
        int64_t id = exit_code((PyCodeObject *)args[0]);
#ifdef HR_TASKS
        if (id >= 0) {
            task_left_frame();
        }
#else
        (void)id;
#endif
    }
    Py_RETURN_NONE;
}
/* The benchmark's floors (bench/bench_alloc.py, variants floor-*): what CPython's own dispatch
 * of sys.monitoring events costs with a callback that does nothing, and with one that only reads
 * the event clock. Never installed by the agent. */
static volatile uint64_t floor_sink;

static PyObject *floor_noop(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    (void)args;
    (void)nargs;
    Py_RETURN_NONE;
}

static PyObject *floor_clock(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    (void)args;
    (void)nargs;
    floor_sink = read_tsc(); /* the event clock where the kernel trusts the TSC */
    Py_RETURN_NONE;
}
#endif

/* phase_enter(code): a phase mark (highrise_agent.phase) opens a frame of `code`'s method on
 * this thread, as a call would; phase_exit(code) closes it if it is the innermost. Any
 * CPython version, either hook. */
static PyObject *phase_enter(PyObject *module, PyObject *code)
{
    (void)module;
    if (active && PyCode_Check(code)) {
        int64_t id = method_of((PyCodeObject *)code, NULL, 1);
        if (id >= 0) {
            enter_id(id);
        }
    }
    Py_RETURN_NONE;
}

static PyObject *phase_exit(PyObject *module, PyObject *code)
{
    (void)module;
    if (active && PyCode_Check(code)) {
        exit_code((PyCodeObject *)code);
    }
    Py_RETURN_NONE;
}

static int profile_cb(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg)
{
    (void)obj;
    if (UNLIKELY(!active)) {
        if (!all_threads) {
            PyEval_SetProfile(NULL, NULL); /* a leftover on a thread after uninstall */
        }
        return 0;
    }
    if (what == PyTrace_CALL) {
        if (counting) {
            forget_hooks_object((PyObject *)frame, 0); /* made for this hook, if just now */
        }
#if defined(HR_TASKS) && PY_VERSION_HEX < 0x030C0000
        PyCodeObject *code = PyFrame_GetCode(frame);
        if (MAY_BE_TASK(code)) {
            /* A task's frame (see "tasks"); a coroutine resuming (it ran before) is no call. */
            int64_t id = method_of(code, frame, 1);
            if (id >= 0 && !task_enter(code, PyFrame_GetLasti(frame) >= 0)) {
                enter_id(id);
            }
            Py_DECREF(code);
            return 0;
        }
        Py_DECREF(code);
#endif
        hook_enter(frame);
    }
    else if (what == PyTrace_RETURN) {
#if defined(HR_TASKS) && PY_VERSION_HEX < 0x030C0000
        if (UNLIKELY(tls.task != NULL)) {
            PyCodeObject *code = PyFrame_GetCode(frame);
            if ((code->co_flags & CO_COROUTINE) && suspending(frame)) {
                if (method_of(code, frame, 0) >= 0) {
                    task_left_frame(); /* it stays open on its task's stack */
                }
            }
            else if (exit_code(code) >= 0) {
                task_left_frame();
            }
            Py_DECREF(code);
            return 0;
        }
#endif
        hook_exit(frame);
    }
    else if (counting && arg != NULL) {
        /* C_CALL/C_RETURN/C_EXCEPTION: for a method descriptor CPython makes a bound method
         * just to pass it here (and a frame object, on 3.12+, after it). */
        forget_hooks_object((PyObject *)frame, 0);
        forget_hooks_object(arg, 0);
    }
    return 0;
}

/* Installed with threading.setprofile: the first event on a new thread swaps in the C hook. */
static PyObject *bootstrap(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (!active) {
        PyEval_SetProfile(NULL, NULL);
        Py_RETURN_NONE;
    }
    PyEval_SetProfile(profile_cb, NULL);
    if (nargs == 3 && PyFrame_Check(args[0]) && PyUnicode_Check(args[1])) {
        PyFrameObject *frame = (PyFrameObject *)args[0];
        if (PyUnicode_CompareWithASCIIString(args[1], "call") == 0) {
            hook_enter(frame);
        }
        else if (PyUnicode_CompareWithASCIIString(args[1], "return") == 0) {
            hook_exit(frame);
        }
    }
    Py_RETURN_NONE;
}

/* ---- module functions ---- */

/* Frees the thread's event buffer and its spare (both grow again on demand). */
static void free_event_buffers(Rec *rec)
{
    free(rec->events);
    rec->events = NULL;
    rec->len = rec->cap = 0;
    free(rec->spare);
    rec->spare = NULL;
    rec->spare_cap = 0;
}

static void free_rec_buffers(Rec *rec)
{
    free_event_buffers(rec);
    free(rec->stack);
    rec->stack = NULL;
    rec->depth = rec->stack_cap = 0;
    Py_CLEAR(rec->name);
}

static PyObject *install(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *new_resolver, *new_namer, *disable = Py_None;
    unsigned long long zero;
    unsigned long capacity;
    int use_profile = 1;
    int want_tsc = 0;
    int want_alloc = ALLOC_OFF;
    if (!PyArg_ParseTuple(args, "OOKk|pOpi", &new_resolver, &new_namer, &zero, &capacity, &use_profile,
                          &disable, &want_tsc, &want_alloc)) {
        return NULL;
    }
    if (want_alloc != ALLOC_OFF && want_alloc != ALLOC_BLOCKS && want_alloc != ALLOC_TYPES) {
        PyErr_SetString(PyExc_ValueError, "alloc mode must be 0 (off), 1 (blocks) or 2 (types)");
        return NULL;
    }
#if PY_VERSION_HEX < 0x030D0000
    if (want_alloc == ALLOC_TYPES) {
        PyErr_SetString(PyExc_ValueError, "counting objects by type needs CPython 3.13+ (the reference tracer)");
        return NULL;
    }
#else
    if (want_alloc == ALLOC_TYPES) {
        void *their_data = NULL;
        PyRefTracer theirs = PyRefTracer_GetTracer(&their_data);
        if (theirs != NULL && theirs != reftrace) {
            PyErr_SetString(PyExc_RuntimeError, "another reference tracer is installed");
            return NULL;
        }
    }
#endif
    if (extra_index < 0) {
        extra_index = HR_REQUEST_INDEX(NULL);
        if (extra_index < 0) {
            PyErr_SetString(PyExc_RuntimeError, "no code extra index left");
            return NULL;
        }
    }
    /* A new session: forget the previous one's threads (their records stay allocated) and
     * classes. */
    for (Rec *rec = registry; rec != NULL; rec = rec->next) {
        free_rec_buffers(rec);
    }
    registry = NULL;
#ifdef HR_TASKS
    end_tasks();
    slots_made = 0;
#endif
    dropped_gone = 0;
    memset(mem_dropped_gone, 0, sizeof(mem_dropped_gone));
    next_thread_id = 1;
    generation++;
    clear_classes();
    alloc_mode = want_alloc;
    code_shift = want_alloc != ALLOC_OFF ? 2 : 1;
    Py_INCREF(new_resolver);
    Py_XSETREF(resolver, new_resolver);
    Py_INCREF(new_namer);
    Py_XSETREF(namer, new_namer);
    zero_ns = zero;
#if defined(__x86_64__)
    use_tsc = want_tsc;
#else
    use_tsc = 0;
#endif
    if (use_tsc) {
        clock_pair(&tsc_anchor, &mono_anchor);
    }
    max_events = capacity < 2 ? 2 : (capacity > (1ul << 26) ? (1u << 26) : (uint32_t)capacity);
    active = 1;
    if (alloc_mode != ALLOC_OFF) {
        hook_object_allocator();
#if PY_VERSION_HEX >= 0x030D0000
        if (alloc_mode == ALLOC_TYPES && PyRefTracer_SetTracer(reftrace, NULL) == 0) {
            reftracer_installed = 1;
        }
#endif
        counting = 1;
    }
#if PY_VERSION_HEX >= 0x030C0000
    Py_INCREF(disable);
    Py_XSETREF(disable_obj, disable);
    profiling = use_profile;
    if (use_profile) {
        PyEval_SetProfileAllThreads(profile_cb, NULL);
    }
    all_threads = 1;
#else
    /* Every thread that already runs, not only the caller (what 3.12's
     * PyEval_SetProfileAllThreads does). _PyEval_SetProfile is written for another thread's
     * state; the thread list only changes with the GIL held, which we hold. */
    PyThreadState *current = PyThreadState_Get();
    PyInterpreterState *interp = PyThreadState_GetInterpreter(current);
    for (PyThreadState *ts = PyInterpreterState_ThreadHead(interp); ts != NULL; ts = PyThreadState_Next(ts)) {
        if (_PyEval_SetProfile(ts, profile_cb, NULL) < 0) {
            PyErr_Clear();
        }
    }
    all_threads = 0;
#endif
    Py_RETURN_NONE;
}

static PyObject *uninstall(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    active = 0;
#ifdef HR_TASKS
    end_tasks();
#endif
    counting = 0;
    unhook_object_allocator();
#if PY_VERSION_HEX >= 0x030D0000
    if (reftracer_installed) {
        void *data = NULL;
        if (PyRefTracer_GetTracer(&data) == reftrace) {
            PyRefTracer_SetTracer(NULL, NULL);
        }
        reftracer_installed = 0;
    }
#endif
#if PY_VERSION_HEX >= 0x030C0000
    if (profiling) {
        PyEval_SetProfileAllThreads(NULL, NULL);
        profiling = 0;
    }
#else
    PyEval_SetProfile(NULL, NULL);
#endif
    Py_RETURN_NONE;
}

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
            if (use_tsc) {
                ts = ts > tsc_anchor ? mono_anchor + (uint64_t)((double)(ts - tsc_anchor) * ns_per_tsc)
                                     : mono_anchor;
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
    return !snap->ended && snap->rec->gen == snap->gen && generation == snap->gen;
}

static PyThread_type_lock drain_lock; /* one drain at a time (phase 2 runs without the GIL) */

/* drain(now_ticks, tag) -> [(thread_id, name, ended, [segment...])], a segment being
 * (base_timestamp, event_count, frame) or (timestamp, [method ids]) for a resync; a frame is a
 * whole Events or Records frame (`tag`: TAG_EVENTS or TAG_RECORDS), ready to send.
 * Phase 1 takes every thread's buffer with the GIL held (handing it its spare one), phase 2
 * converts and packs them with the GIL released (the program's threads run on), phase 3 builds
 * the answer and gives each buffer back as its thread's spare: a busy thread writes into the
 * same two buffers all along, warm in the cache, instead of a fresh allocation per drain. */
static PyObject *drain(PyObject *module, PyObject *args)
{
    (void)module;
    unsigned long long now;
    unsigned int tag;
    if (!PyArg_ParseTuple(args, "KI", &now, &tag)) {
        return NULL;
    }
    if (!PyThread_acquire_lock(drain_lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(drain_lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
    /* Phase 1: capture every buffer. No Python object is allocated here, so no other thread
     * can run a hook in between: the captured stacks match the captured events exactly. */
    size_t count = 0;
    for (Rec *rec = registry; rec != NULL; rec = rec->next) {
        count++;
    }
    Snapshot *snaps = calloc(count ? count : 1, sizeof(Snapshot));
    if (snaps == NULL) {
        PyThread_release_lock(drain_lock);
        return PyErr_NoMemory();
    }
    double ns_per_tsc = 0.0;
    if (use_tsc) {
        uint64_t tsc_now, mono_now;
        clock_pair(&tsc_now, &mono_now);
        if (tsc_now > tsc_anchor && mono_now > mono_anchor) {
            ns_per_tsc = (double)(mono_now - mono_anchor) / (double)(tsc_now - tsc_anchor);
        }
    }
    size_t used = 0;
    uint32_t slots = 0;
    int records = code_shift == 2;
    Rec **link = &registry;
    while (*link != NULL) {
        Rec *rec = *link;
        int ended = rec->ended;
        if (rec->pend_used != 0) {
            /* Counts of a frame still running (the thread is not: we hold the GIL). */
            flush_pending(rec, now_ticks());
        }
        if (rec->len == 0 && !rec->drops_pending && !ended) {
            /* Idle for IDLE_DRAINS drains in a row: its buffers go (it grows one again when it
             * records), so a thread that was busy once does not keep two of them for good. */
            if (++rec->idle_drains == IDLE_DRAINS) {
                free_event_buffers(rec);
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
            dropped_gone += rec->dropped;
            for (int k = 0; k < 3; k++) {
                mem_dropped_gone[k] += rec->mem_dropped[k];
            }
            free_rec_buffers(rec);
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
        calls_drained_total += snap->calls;
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
    PyThread_release_lock(drain_lock);
    return result;
}

/* buffered_bytes() -> the bytes of every thread's event buffers (its own and its spare). */
static PyObject *buffered_bytes(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    uint64_t total = 0;
    for (Rec *rec = registry; rec != NULL; rec = rec->next) {
        total += ((uint64_t)rec->cap + rec->spare_cap) * sizeof(Event);
    }
    return PyLong_FromUnsignedLongLong(total);
}

/* sleep_then_clock(seconds) -> CLOCK_MONOTONIC ns read as the sleep ends, before the GIL is
 * taken back. The sampler's clock: a busy program hands the GIL over only at its next switch or
 * at the end of a long C call, and the stack read then is still the one that ran when the sample
 * fell due, so the sample is dated then rather than when the GIL came back. */
static PyObject *sleep_then_clock(PyObject *module, PyObject *arg)
{
    (void)module;
    double seconds = PyFloat_AsDouble(arg);
    if (seconds == -1.0 && PyErr_Occurred()) {
        return NULL;
    }
    struct timespec wait, now;
    if (seconds < 0) {
        seconds = 0;
    }
    wait.tv_sec = (time_t)seconds;
    wait.tv_nsec = (long)((seconds - (double)wait.tv_sec) * 1e9);
    Py_BEGIN_ALLOW_THREADS
    while (nanosleep(&wait, &wait) != 0 && errno == EINTR) {
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
    Py_END_ALLOW_THREADS
    return PyLong_FromUnsignedLongLong((unsigned long long)now.tv_sec * 1000000000ull + (unsigned long long)now.tv_nsec);
}

/* calls_drained() -> the enter and exit records every drain so far has packed into frames. */
/* task_slots() -> how many task slots this session made (0: no asyncio task ran profiled code). */
static PyObject *task_slots(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
#ifdef HR_TASKS
    return PyLong_FromUnsignedLong(slots_made);
#else
    return PyLong_FromLong(0);
#endif
}

static PyObject *calls_drained(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return PyLong_FromUnsignedLongLong(calls_drained_total);
}

static PyObject *dropped_total(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    uint64_t total = dropped_gone;
    for (Rec *rec = registry; rec != NULL; rec = rec->next) {
        total += rec->dropped;
    }
    return PyLong_FromUnsignedLongLong(total);
}

/* thread_ids() -> {ident: thread_id} of the threads recorded whose thread state still exists:
 * a sampler taking over from the hooks (mode=auto) goes on under the same ids. */
static PyObject *thread_ids(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    PyObject *ids = PyDict_New();
    if (ids == NULL) {
        return NULL;
    }
    for (Rec *rec = registry; rec != NULL; rec = rec->next) {
        if (rec->ended || rec->slot) {
            continue;
        }
        PyObject *key = PyLong_FromUnsignedLong(rec->ident);
        PyObject *value = PyLong_FromUnsignedLongLong(rec->thread_id);
        int failed = key == NULL || value == NULL || PyDict_SetItem(ids, key, value) < 0;
        Py_XDECREF(key);
        Py_XDECREF(value);
        if (failed) {
            Py_DECREF(ids);
            return NULL;
        }
    }
    return ids;
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

/* pack_events_for_test(base, [(timestamp, code)]) -> bytes: the packer, for the golden test. */
static PyObject *pack_events_for_test(PyObject *module, PyObject *args)
{
    (void)module;
    unsigned long long base;
    PyObject *list;
    if (!PyArg_ParseTuple(args, "KO!", &base, &PyList_Type, &list)) {
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(list);
    Event *events = calloc(n ? (size_t)n : 1, sizeof(Event));
    if (events == NULL) {
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned long long ts;
        unsigned int code;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(list, i), "KI", &ts, &code)) {
            free(events);
            return NULL;
        }
        events[i].ts = ts;
        events[i].code = code;
    }
    PyObject *packed = pack_to_bytes(events, (uint32_t)n, base, 0);
    free(events);
    return packed;
}

/* pack_records_for_test(base, [(timestamp, head) or (timestamp, head, count, free, bytes)]) ->
 * bytes: the records packer (head = id << 2 | kind), for the golden test. */
static PyObject *pack_records_for_test(PyObject *module, PyObject *args)
{
    (void)module;
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
        if (!PyArg_ParseTuple(PyList_GET_ITEM(list, i), "KI|KpK", &ts, &code, &count, &free_, &nbytes)) {
            free(events);
            return NULL;
        }
        events[slots].ts = ts;
        events[slots].code = code;
        events[slots].free = (uint32_t)free_;
        slots++;
        if ((code & 3u) == KIND_MEMORY) {
            MemPayload *payload = (MemPayload *)&events[slots++];
            payload->count = count;
            payload->bytes = nbytes;
        }
    }
    PyObject *packed = pack_to_bytes(events, slots, base, 1);
    free(events);
    return packed;
}

/* frame_for_test(tag, thread_id, base, count, packed) -> bytes: the frame drain makes around
 * packed bytes when given a tag, for the golden test. */
static PyObject *frame_for_test(PyObject *module, PyObject *args)
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

/* take_classes() -> [(class_id, type or None for untyped)]: the classes registered since the
 * last call, to be defined (named) before the records that use them are sent. */
static PyObject *take_classes(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    PyObject *result = PyList_New(0);
    if (result == NULL) {
        return NULL;
    }
    /* Building the list may allocate objects whose types get registered: loop until caught up. */
    uint32_t upto = class_count;
    for (uint32_t id = classes_taken; id < upto; id++) {
        const void *key = class_keys[id];
        PyObject *item = Py_BuildValue("(IO)", id, key == UNTYPED_KEY ? Py_None : (PyObject *)key);
        if (item == NULL || PyList_Append(result, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(result);
            return NULL;
        }
        Py_DECREF(item);
    }
    classes_taken = upto;
    return result;
}

/* class_id(type, register) -> the type's class id, or None: registered first (then named by the
 * next take_classes) when `register` is true, for a base class the program never instantiated. */
static PyObject *class_id(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *type;
    int reg;
    if (!PyArg_ParseTuple(args, "O!p", &PyType_Type, &type, &reg)) {
        return NULL;
    }
    uint32_t id = reg ? class_id_of(type) : class_lookup(type);
    if (id == NO_CLASS) {
        Py_RETURN_NONE;
    }
    return PyLong_FromUnsignedLong(id);
}

/* Whether the live-object snapshot measures instances of `type`: classes defined in Python
 * (heap types), whose instances the cyclic collector always tracks (it untracks only some
 * tuples and dicts), so gc.get_objects() lists every live one. */
static int live_measured_type(PyTypeObject *type)
{
    return PyType_HasFeature(type, Py_TPFLAGS_HEAPTYPE) && PyType_IS_GC(type);
}

/* Instances per class whose attributes a live snapshot reads for the class diagram. */
#define RELATION_SAMPLES 16
/* Elements of a list, tuple, set or dict attribute looked at for the classes it holds. */
#define RELATION_ELEMENTS 8

/* Appends (from_id, to_id, name, many) to `out` when `value` is an instance of a class with an
 * id that the live snapshot measures. 0, or -1 with an exception set. */
static int relate_value(uint32_t from_id, PyObject *name, PyObject *value, int many, PyObject *out)
{
    PyTypeObject *type = Py_TYPE(value);
    if (!live_measured_type(type)) {
        return 0;
    }
    uint32_t to_id = class_lookup(type);
    if (to_id == NO_CLASS) {
        return 0;
    }
    PyObject *item = Py_BuildValue("(IIOO)", from_id, to_id, name, many ? Py_True : Py_False);
    if (item == NULL) {
        return -1;
    }
    int rc = PyList_Append(out, item);
    Py_DECREF(item);
    return rc;
}

/* The class diagram as observed: an instance's attributes (its __dict__) that hold objects of
 * classes with ids, one or (in a list, tuple, set or dict's values) many. Errors are cleared:
 * an object that will not show its attributes adds nothing. */
static int relate_instance(PyObject *obj, uint32_t from_id, PyObject *out)
{
    PyObject *dict = PyObject_GenericGetDict(obj, NULL);
    if (dict == NULL || !PyDict_Check(dict)) {
        Py_XDECREF(dict);
        PyErr_Clear();
        return 0;
    }
    Py_ssize_t pos = 0;
    PyObject *name, *value;
    int rc = 0;
    while (rc == 0 && PyDict_Next(dict, &pos, &name, &value)) {
        if (!PyUnicode_Check(name)) {
            continue;
        }
        if (PyList_Check(value) || PyTuple_Check(value)) {
            Py_ssize_t n = PySequence_Fast_GET_SIZE(value);
            for (Py_ssize_t i = 0; rc == 0 && i < n && i < RELATION_ELEMENTS; i++) {
                rc = relate_value(from_id, name, PySequence_Fast_GET_ITEM(value, i), 1, out);
            }
        } else if (PyDict_Check(value)) {
            Py_ssize_t inner = 0;
            PyObject *k, *v;
            for (int i = 0; rc == 0 && i < RELATION_ELEMENTS && PyDict_Next(value, &inner, &k, &v); i++) {
                rc = relate_value(from_id, name, v, 1, out);
            }
        } else if (PyAnySet_Check(value)) {
            PyObject *it = PyObject_GetIter(value);
            PyObject *element;
            for (int i = 0; it != NULL && rc == 0 && i < RELATION_ELEMENTS && (element = PyIter_Next(it)) != NULL; i++) {
                rc = relate_value(from_id, name, element, 1, out);
                Py_DECREF(element);
            }
            Py_XDECREF(it);
            PyErr_Clear();
        } else {
            rc = relate_value(from_id, name, value, 0, out);
        }
    }
    Py_DECREF(dict);
    return rc;
}

/* live_snapshot(collect, get_objects, getsizeof) -> (thread_id, ticks, [(class_id, count,
 * bytes)], [(from_id, to_id, attribute, many)]), or None when this thread records nothing: the
 * objects live per class after a collection (`collect()`), found in `get_objects()` and sized
 * by `getsizeof`, for the classes live_measured_type accepts. A class with an id and no live
 * instance is listed with 0: its type object is itself among the collector's objects while it
 * lives (a class that died has no instances either). The last list is what the attributes of
 * the first RELATION_SAMPLES instances of each class refer to (the class diagram; the agent
 * keeps the program's classes and sends each relation once). The agent's own objects here are
 * not counted (the thread's guard is up), and the ticks are read last, before the phase's
 * exit. */
static PyObject *live_snapshot(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "live_snapshot(collect, get_objects, getsizeof)");
        return NULL;
    }
    Rec *rec = current_rec();
    if (rec == NULL) {
        Py_RETURN_NONE;
    }
    PyObject *result = NULL, *objects = NULL, *list = NULL, *relations = NULL;
    uint64_t *sums = NULL;
    uint8_t *measured = NULL;
    uint32_t n;
    tls.guard++;
    PyObject *collected = PyObject_CallNoArgs(args[0]);
    if (collected == NULL) {
        goto done;
    }
    Py_DECREF(collected);
    objects = PyObject_CallNoArgs(args[1]);
    if (objects == NULL || !PyList_Check(objects)) {
        if (objects != NULL) {
            PyErr_SetString(PyExc_TypeError, "get_objects() did not return a list");
        }
        goto done;
    }
    n = class_count;
    sums = calloc((size_t)n * 2 + 2, sizeof(uint64_t));
    measured = calloc((size_t)n + 1, 1);
    relations = PyList_New(0);
    if (relations == NULL) {
        goto done;
    }
    if (sums == NULL || measured == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(objects); i++) {
        PyObject *obj = PyList_GET_ITEM(objects, i);
        if (PyType_Check(obj) && live_measured_type((PyTypeObject *)obj)) {
            uint32_t id = class_lookup(obj); /* a live class: measured, maybe with no instance */
            if (id != NO_CLASS && id < n) {
                measured[id] = 1;
            }
        }
        PyTypeObject *type = Py_TYPE(obj);
        if (!live_measured_type(type)) {
            continue;
        }
        uint32_t id = class_lookup(type);
        if (id == NO_CLASS || id >= n) {
            continue;
        }
        PyObject *size = PyObject_CallOneArg(args[2], obj);
        long long bytes = size != NULL ? PyLong_AsLongLong(size) : -1;
        Py_XDECREF(size);
        if (bytes < 0) {
            PyErr_Clear();
            bytes = type->tp_basicsize;
        }
        if (sums[2 * id] < RELATION_SAMPLES && relate_instance(obj, id, relations) < 0) {
            goto done;
        }
        sums[2 * id]++;
        sums[2 * id + 1] += (uint64_t)bytes;
        measured[id] = 1;
    }
    list = PyList_New(0);
    if (list == NULL) {
        goto done;
    }
    for (uint32_t id = 0; id < n; id++) {
        if (!measured[id]) {
            continue;
        }
        PyObject *item = Py_BuildValue("(IKK)", id, (unsigned long long)sums[2 * id],
                                       (unsigned long long)sums[2 * id + 1]);
        if (item == NULL || PyList_Append(list, item) < 0) {
            Py_XDECREF(item);
            goto done;
        }
        Py_DECREF(item);
    }
    /* The monotonic clock itself: events read the TSC and drain() maps it onto this clock. */
    result = Py_BuildValue("(KKOO)", (unsigned long long)rec->thread_id, (unsigned long long)mono_ticks(), list,
                           relations);
done:
    free(sums);
    free(measured);
    Py_XDECREF(objects);
    Py_XDECREF(list);
    Py_XDECREF(relations);
    tls.guard--;
    return result;
}

/* memory_dropped() -> (allocations, bytes, frees): counts lost with dropped memory records,
 * running totals over all threads. */
static PyObject *memory_dropped(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    uint64_t totals[3] = {mem_dropped_gone[0], mem_dropped_gone[1], mem_dropped_gone[2]};
    for (Rec *rec = registry; rec != NULL; rec = rec->next) {
        for (int k = 0; k < 3; k++) {
            totals[k] += rec->mem_dropped[k];
        }
    }
    return Py_BuildValue("(KKK)", (unsigned long long)totals[0], (unsigned long long)totals[1],
                         (unsigned long long)totals[2]);
}

static PyMethodDef methods[] = {
    {"install", install, METH_VARARGS,
     "install(resolver, namer, clock_zero_ns, max_events): start recording (C profile hook)."},
    {"uninstall", uninstall, METH_NOARGS, "Stop recording."},
    {"drain", drain, METH_VARARGS,
     "drain(now_ticks, frame_tag) -> [(thread_id, name, ended, segments)]."},
    {"dropped_total", dropped_total, METH_NOARGS, "Events dropped so far (all threads)."},
    {"sleep_then_clock", sleep_then_clock, METH_O,
     "sleep_then_clock(seconds) -> CLOCK_MONOTONIC ns as the sleep ends, before the GIL is back."},
    {"thread_ids", thread_ids, METH_NOARGS,
     "thread_ids() -> {ident: thread_id} of the recorded threads that still exist."},
    {"calls_drained", calls_drained, METH_NOARGS,
     "Enter and exit records drained into frames so far (all threads, all sessions)."},
    {"gc_phase", (PyCFunction)(void (*)(void))gc_phase, METH_FASTCALL,
     "gc_phase(phase, info): for gc.callbacks; the collector's objects are not the program's."},
    {"phase_enter", phase_enter, METH_O, "phase_enter(code): open a phase mark's frame on this thread."},
    {"phase_exit", phase_exit, METH_O, "phase_exit(code): close it (if innermost)."},
    {"live_snapshot", (PyCFunction)(void (*)(void))live_snapshot, METH_FASTCALL,
     "live_snapshot(collect, get_objects, getsizeof) -> (thread_id, ticks, [(class_id, count, bytes)], "
     "[(from_id, to_id, attribute, many)]) or None."},
    {"class_id", class_id, METH_VARARGS,
     "class_id(type, register) -> the class id of `type` (registered first when `register`), or None."},
    {"bootstrap", (PyCFunction)(void (*)(void))bootstrap, METH_FASTCALL,
     "Profile function for threading.setprofile: installs the C hook on a new thread."},
    {"task_slots", task_slots, METH_NOARGS, "How many asyncio task slots this session made."},
#if PY_VERSION_HEX >= 0x030C0000
    {"mon_start", (PyCFunction)(void (*)(void))mon_start, METH_FASTCALL,
     "sys.monitoring PY_START callback."},
    {"mon_resume", (PyCFunction)(void (*)(void))mon_resume, METH_FASTCALL,
     "sys.monitoring PY_RESUME callback (a coroutine's resume is not a call)."},
    {"mon_yield", (PyCFunction)(void (*)(void))mon_yield, METH_FASTCALL,
     "sys.monitoring PY_YIELD callback (a coroutine suspending stays open in its task)."},
    {"mon_throw", (PyCFunction)(void (*)(void))mon_throw, METH_FASTCALL,
     "sys.monitoring PY_THROW callback."},
    {"mon_return", (PyCFunction)(void (*)(void))mon_return, METH_FASTCALL,
     "sys.monitoring PY_RETURN/PY_YIELD callback."},
    {"mon_unwind", (PyCFunction)(void (*)(void))mon_unwind, METH_FASTCALL,
     "sys.monitoring PY_UNWIND callback."},
    {"floor_noop", (PyCFunction)(void (*)(void))floor_noop, METH_FASTCALL,
     "A sys.monitoring callback that does nothing (the benchmark's floor)."},
    {"floor_clock", (PyCFunction)(void (*)(void))floor_clock, METH_FASTCALL,
     "A sys.monitoring callback that only reads the event clock (the benchmark's floor)."},
#endif
    {"pack_events_for_test", pack_events_for_test, METH_VARARGS,
     "pack_events_for_test(base, [(timestamp, code)]) -> packed bytes."},
    {"pack_records_for_test", pack_records_for_test, METH_VARARGS,
     "pack_records_for_test(base, [(timestamp, head[, count, free, bytes])]) -> packed records."},
    {"buffered_bytes", buffered_bytes, METH_NOARGS,
     "buffered_bytes() -> bytes held by the threads' event buffers."},
    {"frame_for_test", frame_for_test, METH_VARARGS,
     "frame_for_test(tag, thread_id, base, count, packed) -> the frame drain makes."},
    {"take_classes", take_classes, METH_NOARGS,
     "take_classes() -> [(class_id, type or None)] registered since the last call."},
    {"memory_dropped", memory_dropped, METH_NOARGS,
     "memory_dropped() -> (allocations, bytes, frees) lost with dropped memory records."},
    {"patch_types", patch_types, METH_O,
     "patch_types([types]): 3.11/3.12, name heap types' instances in allocation counts."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_native",
    .m_doc = "The C recorder of the highrise Python agent (a C-level profile hook).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__native(void)
{
    if (PyType_Ready(&SentinelType) < 0) {
        return NULL;
    }
    drain_lock = PyThread_allocate_lock();
    if (drain_lock == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    dict_key = PyUnicode_InternFromString("highrise_agent._native.thread");
    if (dict_key == NULL) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) {
        return NULL;
    }
    if (PyModule_AddIntConstant(module, "HAS_MONITORING", PY_VERSION_HEX >= 0x030C0000) < 0 ||
        PyModule_AddIntConstant(module, "ALLOC_OFF", ALLOC_OFF) < 0 ||
        PyModule_AddIntConstant(module, "ALLOC_BLOCKS", ALLOC_BLOCKS) < 0 ||
        PyModule_AddIntConstant(module, "ALLOC_TYPES", ALLOC_TYPES) < 0 ||
        PyModule_AddIntConstant(module, "HAS_REFTRACER", PY_VERSION_HEX >= 0x030D0000) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
