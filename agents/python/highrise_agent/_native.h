/* highrise_agent._native's internal header: what its translation units share.
 *
 *   _native.c        the module: its functions table, the session's state, install/uninstall and
 *                    the counters the agent reads (dropped, drained, thread ids)
 *   _native_hooks.c  per-thread records, code classification and the hooks themselves (the C
 *                    profile hook, sys.monitoring callbacks, phase marks)
 *   _native_tasks.c  asyncio tasks as threads of their own (task slots)
 *   _native_alloc.c  allocation counting: pending counters, the class table, the allocator,
 *                    reference-tracer and tp_alloc hooks
 *   _native_live.c   the live-object snapshot and the class diagram it observes
 *   _native_drain.c  drain: every thread's buffer taken, converted and packed into wire frames
 *
 * Here: the records' types, the state the units share (HR_INTERNAL, hidden in the shared
 * object, named hr_...), and the hot path's inline helpers (the clock, record_at, current_rec,
 * method_of), so that the hooks compile to the same code as when they were one file. */
#ifndef HIGHRISE_NATIVE_H
#define HIGHRISE_NATIVE_H

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

/* What one unit defines and another uses: not exported from the shared object. */
#define HR_INTERNAL __attribute__((visibility("hidden")))

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
HR_INTERNAL extern __thread Tls hr_tls __attribute__((tls_model("initial-exec")));
#define tls_rec (hr_tls.rec)

/* The session's state (_native.c). */
HR_INTERNAL extern Rec *hr_registry;
HR_INTERNAL extern uint64_t hr_next_thread_id;
HR_INTERNAL extern uint32_t hr_generation;
HR_INTERNAL extern int hr_active;
HR_INTERNAL extern Py_ssize_t hr_extra_index;
HR_INTERNAL extern PyObject *hr_resolver; /* callable(code, module_name) -> int id or -1 */
HR_INTERNAL extern PyObject *hr_namer;    /* callable(ident) -> str */
HR_INTERNAL extern PyObject *hr_dict_key; /* key of the sentinel in the thread state dict */
HR_INTERNAL extern uint64_t hr_zero_ns;
HR_INTERNAL extern uint32_t hr_max_events;
HR_INTERNAL extern uint64_t hr_dropped_gone;        /* dropped events of records already removed */
HR_INTERNAL extern uint64_t hr_calls_drained_total; /* enter and exit records drained (memory records not) */
HR_INTERNAL extern int hr_all_threads;              /* installed with PyEval_SetProfileAllThreads */

/* Allocation counting (install's alloc_mode). */
#define ALLOC_OFF 0
#define ALLOC_BLOCKS 1 /* object-domain blocks and bytes, heap types typed (3.11/3.12) */
#define ALLOC_TYPES 2  /* every object's type through the reference tracer (3.13+) */
HR_INTERNAL extern int hr_alloc_mode;
HR_INTERNAL extern int hr_counting;   /* alloc_mode != OFF and active */
HR_INTERNAL extern int hr_code_shift; /* 1: v1 events (id*2+kind); 2: packed records (id*4+kind) */
HR_INTERNAL extern uint64_t hr_mem_dropped_gone[3];
HR_INTERNAL extern const char hr_untyped_key_storage;
#define UNTYPED_KEY ((const void *)&hr_untyped_key_storage)
#define NO_CLASS UINT32_MAX

/* Nanoseconds since the agent's clock zero (CLOCK_MONOTONIC, what time.monotonic_ns reads). */
static inline uint64_t mono_ticks(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    return ns >= hr_zero_ns ? ns - hr_zero_ns : 0;
}

/* The event clock. Where the kernel itself uses the TSC as its clocksource (the agent checks),
 * events store raw TSC values (one RDTSC, ~9 ns, instead of ~22 ns for clock_gettime) and
 * drain() converts them to nanoseconds against CLOCK_MONOTONIC, calibrated from the install
 * anchor to the drain's. Elsewhere events store mono_ticks() directly. */
HR_INTERNAL extern int hr_use_tsc;
HR_INTERNAL extern uint64_t hr_tsc_anchor;  /* TSC at install */
HR_INTERNAL extern uint64_t hr_mono_anchor; /* mono_ticks() at install */

#if defined(__x86_64__)
#include <x86intrin.h>
static inline uint64_t read_tsc(void) { return __rdtsc(); }
#else
static inline uint64_t read_tsc(void) { return 0; }
#endif

static inline uint64_t now_ticks(void)
{
    if (LIKELY(hr_use_tsc)) {
        return read_tsc();
    }
    return mono_ticks();
}

/* A TSC reading and the monotonic time at (nearly) the same instant. */
static inline void clock_pair(uint64_t *tsc, uint64_t *mono)
{
    uint64_t before = read_tsc();
    *mono = mono_ticks();
    uint64_t after = read_tsc();
    *tsc = before + (after - before) / 2;
}

static inline uint32_t hash_ptr(const void *key)
{
    return (uint32_t)((((uintptr_t)key >> 4) * 0x9E3779B97F4A7C15ull) >> 32);
}

/* ---- records (_native_hooks.c) ---- */

HR_INTERNAL extern PyTypeObject hr_SentinelType;
HR_INTERNAL Rec *hr_new_rec(void);
HR_INTERNAL int hr_grow_events(Rec *rec);
HR_INTERNAL void hr_free_event_buffers(Rec *rec);
HR_INTERNAL void hr_free_rec_buffers(Rec *rec);

static inline Rec *current_rec(void)
{
    if (UNLIKELY(hr_tls.task != NULL)) {
        if (LIKELY(hr_tls.task->gen == hr_generation && !hr_tls.task->ended)) {
            return hr_tls.task;
        }
        hr_tls.task = NULL; /* a slot of an ended session */
    }
    Rec *rec = tls_rec;
    if (LIKELY(rec != NULL && rec->gen == hr_generation && !rec->ended)) {
        return rec;
    }
    rec = hr_new_rec();
    tls_rec = rec;
    return rec;
}

static inline void record_at(Rec *rec, uint32_t code, uint64_t ts)
{
    if (UNLIKELY(rec->drops_pending || (rec->len == rec->cap && !hr_grow_events(rec)))) {
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

/* ---- classification (_native_hooks.c) ---- */

HR_INTERNAL int64_t hr_classify(PyCodeObject *code, PyFrameObject *frame);

#define UNKNOWN (-2)

/* The method id of `code`; -1 when excluded; UNKNOWN when not classified yet and `classify_now`
 * is false. */
static inline int64_t method_of(PyCodeObject *code, PyFrameObject *frame, int classify_now)
{
    void *extra = NULL;
    if (UNLIKELY(HR_GET_EXTRA((PyObject *)code, hr_extra_index, &extra) < 0)) {
        PyErr_Clear();
        return -1;
    }
    uint64_t tagged = (uint64_t)(uintptr_t)extra;
    if (LIKELY((uint32_t)(tagged >> 32) == hr_generation)) {
        return (int64_t)(uint32_t)tagged - 1;
    }
    if (!classify_now) {
        return UNKNOWN;
    }
    return hr_classify(code, frame);
}

/* ---- the hooks (_native_hooks.c) ---- */

HR_INTERNAL int hr_profile_cb(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg);
HR_INTERNAL PyObject *hr_bootstrap(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
HR_INTERNAL PyObject *hr_phase_enter(PyObject *module, PyObject *code);
HR_INTERNAL PyObject *hr_phase_exit(PyObject *module, PyObject *code);
#if PY_VERSION_HEX >= 0x030C0000
HR_INTERNAL extern PyObject *hr_disable_obj; /* sys.monitoring.DISABLE */
HR_INTERNAL PyObject *hr_mon_start(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
HR_INTERNAL PyObject *hr_mon_resume(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
HR_INTERNAL PyObject *hr_mon_throw(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
HR_INTERNAL PyObject *hr_mon_return(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
HR_INTERNAL PyObject *hr_mon_yield(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
HR_INTERNAL PyObject *hr_mon_unwind(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
HR_INTERNAL PyObject *hr_floor_noop(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
HR_INTERNAL PyObject *hr_floor_clock(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
#endif

#ifdef HR_TASKS
/* ---- tasks (_native_tasks.c) ---- */

/* Frames of a task's chain: coroutines, generator-based coroutines and async generators. Only a
 * coroutine (`async def`) stays open when it suspends: an async generator's yield hands a value to
 * the coroutine consuming it, which goes on, so it ends its call as a generator's does. */
#define ASYNC_FLAGS (CO_COROUTINE | CO_ITERABLE_COROUTINE | CO_ASYNC_GENERATOR)
HR_INTERNAL extern uint32_t hr_slots_made;
HR_INTERNAL int hr_task_enter(PyCodeObject *code, int resumed);
HR_INTERNAL void hr_task_leave(void);
HR_INTERNAL void hr_end_tasks(void);

/* Whether an event of `code` may concern a task (the hot path's only cost for other programs). */
#define MAY_BE_TASK(code) UNLIKELY(hr_tls.task != NULL || ((code)->co_flags & ASYNC_FLAGS) != 0)

/* After a profiled frame of the running task suspended, returned or unwound on this thread. */
static inline void task_left_frame(void)
{
    if (UNLIKELY(hr_tls.task != NULL) && (hr_tls.task_open == 0 || --hr_tls.task_open == 0)) {
        hr_task_leave();
    }
}
#endif

/* ---- allocation counting (_native_alloc.c) ---- */

HR_INTERNAL extern uint32_t hr_class_count;
HR_INTERNAL void hr_flush_pending(Rec *rec, uint64_t ts);
HR_INTERNAL uint32_t hr_class_lookup(const void *key);
HR_INTERNAL void hr_clear_classes(void);
HR_INTERNAL void hr_forget_hooks_object(PyObject *obj, int created);
HR_INTERNAL void hr_hook_object_allocator(void);
HR_INTERNAL void hr_unhook_object_allocator(void);
#if PY_VERSION_HEX >= 0x030D0000
HR_INTERNAL extern int hr_reftracer_installed;
HR_INTERNAL int hr_reftrace(PyObject *op, PyRefTracerEvent event, void *data);
#endif
HR_INTERNAL PyObject *hr_gc_phase(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
HR_INTERNAL PyObject *hr_patch_types(PyObject *module, PyObject *list);
HR_INTERNAL PyObject *hr_take_classes(PyObject *module, PyObject *unused);
HR_INTERNAL PyObject *hr_class_id(PyObject *module, PyObject *args);

/* ---- the live-object snapshot (_native_live.c) ---- */

HR_INTERNAL PyObject *hr_live_snapshot(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

/* ---- drain (_native_drain.c) ---- */

HR_INTERNAL extern PyThread_type_lock hr_drain_lock; /* one drain at a time (phase 2 runs without the GIL) */
HR_INTERNAL PyObject *hr_drain(PyObject *module, PyObject *args);
HR_INTERNAL PyObject *hr_buffered_bytes(PyObject *module, PyObject *unused);
HR_INTERNAL PyObject *hr_pack_events_for_test(PyObject *module, PyObject *args);
HR_INTERNAL PyObject *hr_pack_records_for_test(PyObject *module, PyObject *args);
HR_INTERNAL PyObject *hr_frame_for_test(PyObject *module, PyObject *args);

#endif /* HIGHRISE_NATIVE_H */
