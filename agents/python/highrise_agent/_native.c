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
 * Start at profile_cb / mon_start (the hooks), then drain (what the sender thread calls).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
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

typedef struct {
    uint64_t ts;
    uint32_t code; /* method_id * 2 + kind */
    uint32_t unused;
} Event;

typedef struct Rec {
    uint64_t thread_id;
    uint32_t gen;
    int ended;         /* the thread state is gone (set by the sentinel) */
    int drops_pending; /* events were dropped since the last drain: resync at the next */
    PyObject *name;    /* str, owned */
    Event *events;
    uint32_t len, cap;
    uint32_t *stack;
    uint32_t depth, stack_cap;
    uint64_t dropped; /* events dropped on this thread, total */
    uint64_t last_ts; /* the last timestamp drained (converted), for monotonic output */
    struct Rec *next; /* registry link */
} Rec;

/* Rec headers are never freed (only their buffers): a thread-local pointer may still name one
 * after its thread state ended, and reading its `ended`/`gen` must stay valid. */
static __thread Rec *tls_rec;
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
static int all_threads = 0;       /* installed with PyEval_SetProfileAllThreads */
#if PY_VERSION_HEX >= 0x030C0000
static int profiling = 0; /* the profile hook (not sys.monitoring) is installed */
#endif

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
    rec->next = registry;
    registry = rec;
    return rec;
}

static inline Rec *current_rec(void)
{
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

static inline void record(Rec *rec, uint32_t code)
{
    if (UNLIKELY(rec->drops_pending || (rec->len == rec->cap && !grow_events(rec)))) {
        /* Once dropping, keep dropping until the sender drains and resyncs this thread. */
        rec->dropped++;
        rec->drops_pending = 1;
        return;
    }
    Event *event = &rec->events[rec->len++];
    event->ts = now_ticks();
    event->code = code;
}

/* ---- classification ---- */

/* Asks the Python resolver once per code object and caches the answer in co_extra. `frame` may
 * be NULL (sys.monitoring callbacks): the running frame's globals are then used. */
static int64_t classify(PyCodeObject *code, PyFrameObject *frame)
{
    int64_t id = -1;
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
    rec->stack[rec->depth++] = (uint32_t)id;
    record(rec, (uint32_t)id << 1);
}

/* Records the exit of `code` if it is the frame on top of this thread's shadow stack. Returns
 * the code's method id (-1 excluded, UNKNOWN never classified). */
static inline int64_t exit_code(PyCodeObject *code)
{
    Rec *rec = tls_rec;
    if (rec == NULL || rec->depth == 0 || rec->gen != generation || rec->ended) {
        return UNKNOWN; /* nothing of ours is open on this thread */
    }
    int64_t id = method_of(code, NULL, 0);
    if (id < 0 || rec->stack[rec->depth - 1] != (uint32_t)id) {
        return id; /* not a frame we recorded (e.g. it started before the agent) */
    }
    rec->depth--;
    record(rec, ((uint32_t)id << 1) | 1u);
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

#if PY_VERSION_HEX >= 0x030C0000
/* ---- sys.monitoring callbacks (3.12+): called with the code object, no frame object is
 * materialised, and excluded code is switched off for good by returning DISABLE. ---- */

static PyObject *disable_obj = NULL; /* sys.monitoring.DISABLE */

/* PY_START, PY_RESUME (code, offset) */
static PyObject *mon_start(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (UNLIKELY(!active || nargs < 1 || !PyCode_Check(args[0]))) {
        Py_RETURN_NONE;
    }
    int64_t id = method_of((PyCodeObject *)args[0], NULL, 1);
    if (id < 0) {
        return Py_NewRef(disable_obj ? disable_obj : Py_None);
    }
    enter_id(id);
    Py_RETURN_NONE;
}

/* PY_THROW (code, offset, exception): a generator resumed by throw(); cannot be disabled. */
static PyObject *mon_throw(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (active && nargs >= 1 && PyCode_Check(args[0])) {
        int64_t id = method_of((PyCodeObject *)args[0], NULL, 1);
        if (id >= 0) {
            enter_id(id);
        }
    }
    Py_RETURN_NONE;
}

/* PY_RETURN, PY_YIELD (code, offset, value) */
static PyObject *mon_return(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (UNLIKELY(!active || nargs < 1 || !PyCode_Check(args[0]))) {
        Py_RETURN_NONE;
    }
    if (exit_code((PyCodeObject *)args[0]) == -1) {
        return Py_NewRef(disable_obj ? disable_obj : Py_None);
    }
    Py_RETURN_NONE;
}

/* PY_UNWIND (code, offset, exception): cannot be disabled. */
static PyObject *mon_unwind(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (active && nargs >= 1 && PyCode_Check(args[0])) {
        exit_code((PyCodeObject *)args[0]);
    }
    Py_RETURN_NONE;
}
#endif

static int profile_cb(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg)
{
    (void)obj;
    (void)arg;
    if (UNLIKELY(!active)) {
        if (!all_threads) {
            PyEval_SetProfile(NULL, NULL); /* a leftover on a thread after uninstall */
        }
        return 0;
    }
    if (what == PyTrace_CALL) {
        hook_enter(frame);
    }
    else if (what == PyTrace_RETURN) {
        hook_exit(frame);
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

static void free_rec_buffers(Rec *rec)
{
    free(rec->events);
    rec->events = NULL;
    rec->len = rec->cap = 0;
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
    if (!PyArg_ParseTuple(args, "OOKk|pOp", &new_resolver, &new_namer, &zero, &capacity, &use_profile,
                          &disable, &want_tsc)) {
        return NULL;
    }
    if (extra_index < 0) {
        extra_index = HR_REQUEST_INDEX(NULL);
        if (extra_index < 0) {
            PyErr_SetString(PyExc_RuntimeError, "no code extra index left");
            return NULL;
        }
    }
    /* A new session: forget the previous one's threads (their records stay allocated). */
    for (Rec *rec = registry; rec != NULL; rec = rec->next) {
        free_rec_buffers(rec);
    }
    registry = NULL;
    dropped_gone = 0;
    next_thread_id = 1;
    generation++;
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

/* Packs events into a new bytes object (None on allocation failure, error set). */
static PyObject *pack(const Event *events, uint32_t count, uint64_t base)
{
    PyObject *bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)count * 15);
    if (bytes == NULL) {
        return NULL;
    }
    unsigned char *out = (unsigned char *)PyBytes_AS_STRING(bytes);
    size_t n = 0;
    uint64_t previous = base;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t ts = events[i].ts;
        uint64_t delta = 0;
        if (ts >= previous) {
            delta = ts - previous;
            previous = ts;
        }
        n += put_leb128(out + n, events[i].code);
        n += put_leb128(out + n, delta);
    }
    if (_PyBytes_Resize(&bytes, (Py_ssize_t)n) < 0) {
        return NULL;
    }
    return bytes;
}

typedef struct {
    uint64_t thread_id;
    PyObject *name; /* owned */
    Event *events;  /* owned */
    uint32_t count;
    uint32_t *stack; /* owned; the resync stack when resync is set */
    uint32_t depth;
    int resync;
    int ended;
} Snapshot;

/* drain(now_ticks) -> [(thread_id, name, ended, [segment...])], a segment being
 * (base_timestamp, event_count, packed_bytes) or (timestamp, [method ids]) for a resync. */
static PyObject *drain(PyObject *module, PyObject *arg)
{
    (void)module;
    uint64_t now = PyLong_AsUnsignedLongLong(arg);
    if (now == (uint64_t)-1 && PyErr_Occurred()) {
        return NULL;
    }
    /* Phase 1: capture every buffer. No Python object is allocated here, so no other thread
     * can run a hook in between: the captured stacks match the captured events exactly. */
    size_t count = 0;
    for (Rec *rec = registry; rec != NULL; rec = rec->next) {
        count++;
    }
    Snapshot *snaps = calloc(count ? count : 1, sizeof(Snapshot));
    if (snaps == NULL) {
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
    Rec **link = &registry;
    while (*link != NULL) {
        Rec *rec = *link;
        int ended = rec->ended;
        if (rec->len == 0 && !rec->drops_pending && !ended) {
            link = &rec->next;
            continue;
        }
        Snapshot *snap = &snaps[used++];
        snap->thread_id = rec->thread_id;
        snap->events = rec->events;
        snap->count = rec->len;
        rec->events = NULL;
        rec->len = rec->cap = 0;
        /* To nanoseconds since the clock zero, never going back within the thread. */
        uint64_t last = rec->last_ts;
        for (uint32_t i = 0; i < snap->count; i++) {
            uint64_t ts = snap->events[i].ts;
            if (use_tsc) {
                ts = ts > tsc_anchor ? mono_anchor + (uint64_t)((double)(ts - tsc_anchor) * ns_per_tsc)
                                     : mono_anchor;
            }
            if (ts < last) {
                ts = last;
            }
            snap->events[i].ts = last = ts;
        }
        rec->last_ts = last;
        snap->ended = ended;
        if (rec->drops_pending) {
            /* Every event since the first drop was dropped, so the current stack is exactly
             * where the next events continue from. */
            snap->resync = 1;
            snap->depth = rec->depth;
            if (ended) {
                snap->stack = rec->stack; /* the thread is gone: take its stack */
                rec->stack = NULL;
                rec->depth = rec->stack_cap = 0;
            }
            else if (rec->depth > 0) {
                snap->stack = malloc((size_t)rec->depth * sizeof(uint32_t));
                if (snap->stack == NULL) {
                    snap->depth = 0; /* out of memory: an empty resync is still consistent-ish */
                }
                else {
                    memcpy(snap->stack, rec->stack, (size_t)rec->depth * sizeof(uint32_t));
                }
            }
            rec->drops_pending = 0;
        }
        if (ended) {
            snap->name = rec->name; /* moved */
            rec->name = NULL;
            dropped_gone += rec->dropped;
            free_rec_buffers(rec);
            *link = rec->next; /* unlink; the header stays allocated (see tls_rec) */
        }
        else {
            snap->name = rec->name;
            Py_XINCREF(snap->name);
            link = &rec->next;
        }
    }
    /* Phase 2: build the answer. */
    PyObject *result = PyList_New(0);
    for (size_t i = 0; i < used; i++) {
        Snapshot *snap = &snaps[i];
        if (result == NULL) {
            break;
        }
        PyObject *segments = PyList_New(0);
        int failed = segments == NULL;
        for (uint32_t start = 0; !failed && start < snap->count; start += BATCH_EVENTS) {
            uint32_t n = snap->count - start < BATCH_EVENTS ? snap->count - start : BATCH_EVENTS;
            uint64_t base = snap->events[start].ts;
            PyObject *packed = pack(snap->events + start, n, base);
            PyObject *segment = packed ? Py_BuildValue("(KIN)", (unsigned long long)base, n, packed) : NULL;
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
        free(snaps[i].events);
        free(snaps[i].stack);
        Py_XDECREF(snaps[i].name);
    }
    free(snaps);
    return result;
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
    PyObject *packed = pack(events, (uint32_t)n, base);
    free(events);
    return packed;
}

static PyMethodDef methods[] = {
    {"install", install, METH_VARARGS,
     "install(resolver, namer, clock_zero_ns, max_events): start recording (C profile hook)."},
    {"uninstall", uninstall, METH_NOARGS, "Stop recording."},
    {"drain", drain, METH_O, "drain(now_ticks) -> [(thread_id, name, ended, segments)]."},
    {"dropped_total", dropped_total, METH_NOARGS, "Events dropped so far (all threads)."},
    {"bootstrap", (PyCFunction)(void (*)(void))bootstrap, METH_FASTCALL,
     "Profile function for threading.setprofile: installs the C hook on a new thread."},
#if PY_VERSION_HEX >= 0x030C0000
    {"mon_start", (PyCFunction)(void (*)(void))mon_start, METH_FASTCALL,
     "sys.monitoring PY_START/PY_RESUME callback."},
    {"mon_throw", (PyCFunction)(void (*)(void))mon_throw, METH_FASTCALL,
     "sys.monitoring PY_THROW callback."},
    {"mon_return", (PyCFunction)(void (*)(void))mon_return, METH_FASTCALL,
     "sys.monitoring PY_RETURN/PY_YIELD callback."},
    {"mon_unwind", (PyCFunction)(void (*)(void))mon_unwind, METH_FASTCALL,
     "sys.monitoring PY_UNWIND callback."},
#endif
    {"pack_events_for_test", pack_events_for_test, METH_VARARGS,
     "pack_events_for_test(base, [(timestamp, code)]) -> packed bytes."},
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
    dict_key = PyUnicode_InternFromString("highrise_agent._native.thread");
    if (dict_key == NULL) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) {
        return NULL;
    }
    if (PyModule_AddIntConstant(module, "HAS_MONITORING", PY_VERSION_HEX >= 0x030C0000) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
