/* highrise_agent._native: per-thread records, classification and the hooks.
 *
 * A thread's record (Rec) is made at its first event and found through a C thread-local pointer;
 * a sentinel object in the thread state's dict marks it ended when the thread state goes away.
 * Each code object's classification (method id, or excluded) is cached in its co_extra slot,
 * tagged with the session's generation. The hooks (the C profile hook, sys.monitoring callbacks
 * on 3.12+, phase marks) push and pop the thread's shadow stack and record enter and exit events
 * into its buffer, writing the thread's pending allocation counts first (_native_alloc.c). */
#include "_native.h"

#define MAX_METHOD_ID 16777216u
#define FIRST_EVENTS_CAP 256u
#define FIRST_STACK_CAP 64u
#define MAX_STACK_DEPTH (1u << 20)

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

PyTypeObject hr_SentinelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "highrise_agent._native.ThreadSentinel",
    .tp_basicsize = sizeof(Sentinel),
    .tp_dealloc = sentinel_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
};

/* ---- records ---- */

Rec *hr_new_rec(void)
{
    Rec *rec = calloc(1, sizeof(Rec));
    if (rec == NULL) {
        return NULL;
    }
    rec->gen = hr_generation;
    rec->thread_id = hr_next_thread_id++;
    rec->ident = PyThread_get_thread_ident();
    hr_tls.guard++;
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    if (hr_namer != NULL) {
        PyObject *ident = PyLong_FromUnsignedLong(PyThread_get_thread_ident());
        if (ident != NULL) {
            rec->name = PyObject_CallOneArg(hr_namer, ident);
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
    if (dict != NULL && hr_dict_key != NULL) {
        Sentinel *sentinel = PyObject_New(Sentinel, &hr_SentinelType);
        if (sentinel != NULL) {
            sentinel->rec = rec;
            /* Replacing an older sentinel ends that older record. */
            if (PyDict_SetItem(dict, hr_dict_key, (PyObject *)sentinel) < 0) {
                PyErr_Clear();
            }
            Py_DECREF(sentinel);
        }
        else {
            PyErr_Clear();
        }
    }
    PyErr_Restore(type, value, traceback);
    hr_tls.guard--;
    rec->next = hr_registry;
    hr_registry = rec;
    return rec;
}

int hr_grow_events(Rec *rec)
{
    if (rec->cap >= hr_max_events) {
        return 0;
    }
    uint32_t cap = rec->cap ? rec->cap * 2 : FIRST_EVENTS_CAP;
    if (cap > hr_max_events) {
        cap = hr_max_events;
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

/* ---- classification ---- */

/* Asks the Python resolver once per code object and caches the answer in co_extra. `frame` may
 * be NULL (sys.monitoring callbacks): the running frame's globals are then used. */
int64_t hr_classify(PyCodeObject *code, PyFrameObject *frame)
{
    int64_t id = -1;
    hr_tls.guard++; /* the resolver's allocations are the agent's */
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    if (hr_resolver != NULL) {
        PyObject *module = NULL;
        PyObject *globals = frame != NULL ? PyFrame_GetGlobals(frame) : Py_XNewRef(PyEval_GetGlobals());
        if (globals != NULL && PyDict_Check(globals)) {
            module = PyDict_GetItemString(globals, "__name__"); /* borrowed */
        }
        PyObject *result =
            PyObject_CallFunctionObjArgs(hr_resolver, (PyObject *)code, module ? module : Py_None, NULL);
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
    uint64_t tagged = ((uint64_t)hr_generation << 32) | (uint64_t)(id >= 0 ? id + 1 : 0);
    if (HR_SET_EXTRA((PyObject *)code, hr_extra_index, (void *)(uintptr_t)tagged) < 0) {
        PyErr_Clear();
    }
    PyErr_Restore(type, value, traceback);
    hr_tls.guard--;
    return id;
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
        hr_flush_pending(rec, ts); /* the caller's counts, before the callee opens */
    }
    rec->stack[rec->depth++] = (uint32_t)id;
    record_at(rec, (uint32_t)id << hr_code_shift, ts);
}

/* Records the exit of `code` if it is the frame on top of this thread's shadow stack. Returns
 * the code's method id (-1 excluded, UNKNOWN never classified). */
static inline int64_t exit_code(PyCodeObject *code)
{
    Rec *rec = hr_tls.task != NULL ? hr_tls.task : tls_rec;
    if (rec == NULL || rec->depth == 0 || rec->gen != hr_generation || rec->ended) {
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
        hr_flush_pending(rec, ts); /* this frame's counts, before it closes */
    }
    rec->depth--;
    record_at(rec, ((uint32_t)id << hr_code_shift) | 1u, ts);
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

#if defined(HR_TASKS) && PY_VERSION_HEX < 0x030C0000
/* 3.11's profile hook reports a coroutine's suspension as a return: YIELD_VALUE marks the
 * generator suspended before the hook is called. */
static inline int suspending(PyFrameObject *frame)
{
    _PyInterpreterFrame *iframe = frame->f_frame;
    return iframe != NULL && iframe->owner == FRAME_OWNED_BY_GENERATOR &&
           _PyFrame_GetGenerator(iframe)->gi_frame_state == FRAME_SUSPENDED;
}
#endif

#if PY_VERSION_HEX >= 0x030C0000
/* ---- sys.monitoring callbacks (3.12+): called with the code object, no frame object is
 * materialised, and excluded code is switched off for good by returning DISABLE. ---- */

PyObject *hr_disable_obj = NULL; /* sys.monitoring.DISABLE */

/* The offset argument CPython made for this callback: a new int object beyond 256. */
static inline void forget_offset(PyObject *const *args, Py_ssize_t nargs)
{
    if (hr_counting && nargs >= 2 && PyLong_CheckExact(args[1])) {
        int overflow = 0;
        long value = PyLong_AsLongAndOverflow(args[1], &overflow);
        if (overflow || value > 256) {
            hr_forget_hooks_object(args[1], 1);
        }
    }
}

/* PY_START and PY_RESUME: a frame starts or resumes (`resumed`). A generator's resume is a call
 * of its own; a coroutine's is not (it stays open on its task, see "tasks"). */
static inline PyObject *mon_enter(PyObject *const *args, Py_ssize_t nargs, int resumed)
{
    if (UNLIKELY(!hr_active || nargs < 1 || !PyCode_Check(args[0]))) {
        Py_RETURN_NONE;
    }
    forget_offset(args, nargs);
    int64_t id = method_of((PyCodeObject *)args[0], NULL, 1);
    if (id < 0) {
        return Py_NewRef(hr_disable_obj ? hr_disable_obj : Py_None);
    }
#ifdef HR_TASKS
    if (MAY_BE_TASK((PyCodeObject *)args[0]) && hr_task_enter((PyCodeObject *)args[0], resumed)) {
        Py_RETURN_NONE;
    }
#endif
    enter_id(id);
    Py_RETURN_NONE;
}

/* PY_START (code, offset) */
PyObject *hr_mon_start(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return mon_enter(args, nargs, 0);
}

/* PY_RESUME (code, offset) */
PyObject *hr_mon_resume(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return mon_enter(args, nargs, 1);
}

/* PY_THROW (code, offset, exception): a generator resumed by throw(); cannot be disabled. */
PyObject *hr_mon_throw(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (hr_active && nargs >= 1 && PyCode_Check(args[0])) {
        forget_offset(args, nargs);
        int64_t id = method_of((PyCodeObject *)args[0], NULL, 1);
        if (id >= 0) {
#ifdef HR_TASKS
            if (MAY_BE_TASK((PyCodeObject *)args[0]) && hr_task_enter((PyCodeObject *)args[0], 1)) {
                Py_RETURN_NONE;
            }
#endif
            enter_id(id);
        }
    }
    Py_RETURN_NONE;
}

/* PY_RETURN (code, offset, value) */
PyObject *hr_mon_return(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (UNLIKELY(!hr_active || nargs < 1 || !PyCode_Check(args[0]))) {
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
        return Py_NewRef(hr_disable_obj ? hr_disable_obj : Py_None);
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
PyObject *hr_mon_yield(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
#ifdef HR_TASKS
    if (LIKELY(hr_active && nargs >= 1 && PyCode_Check(args[0])) && hr_tls.task != NULL &&
        (((PyCodeObject *)args[0])->co_flags & CO_COROUTINE) != 0) {
        forget_offset(args, nargs);
        if (method_of((PyCodeObject *)args[0], NULL, 0) == -1) {
            return Py_NewRef(hr_disable_obj ? hr_disable_obj : Py_None);
        }
        task_left_frame();
        Py_RETURN_NONE;
    }
#endif
    return hr_mon_return(module, args, nargs);
}

/* PY_UNWIND (code, offset, exception): cannot be disabled. */
PyObject *hr_mon_unwind(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (hr_active && nargs >= 1 && PyCode_Check(args[0])) {
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

PyObject *hr_floor_noop(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    (void)args;
    (void)nargs;
    Py_RETURN_NONE;
}

PyObject *hr_floor_clock(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
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
PyObject *hr_phase_enter(PyObject *module, PyObject *code)
{
    (void)module;
    if (hr_active && PyCode_Check(code)) {
        int64_t id = method_of((PyCodeObject *)code, NULL, 1);
        if (id >= 0) {
            enter_id(id);
        }
    }
    Py_RETURN_NONE;
}

PyObject *hr_phase_exit(PyObject *module, PyObject *code)
{
    (void)module;
    if (hr_active && PyCode_Check(code)) {
        exit_code((PyCodeObject *)code);
    }
    Py_RETURN_NONE;
}

int hr_profile_cb(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg)
{
    (void)obj;
    if (UNLIKELY(!hr_active)) {
        if (!hr_all_threads) {
            PyEval_SetProfile(NULL, NULL); /* a leftover on a thread after uninstall */
        }
        return 0;
    }
    if (what == PyTrace_CALL) {
        if (hr_counting) {
            hr_forget_hooks_object((PyObject *)frame, 0); /* made for this hook, if just now */
        }
#if defined(HR_TASKS) && PY_VERSION_HEX < 0x030C0000
        PyCodeObject *code = PyFrame_GetCode(frame);
        if (MAY_BE_TASK(code)) {
            /* A task's frame (see "tasks"); a coroutine resuming (it ran before) is no call. */
            int64_t id = method_of(code, frame, 1);
            if (id >= 0 && !hr_task_enter(code, PyFrame_GetLasti(frame) >= 0)) {
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
        if (UNLIKELY(hr_tls.task != NULL)) {
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
    else if (hr_counting && arg != NULL) {
        /* C_CALL/C_RETURN/C_EXCEPTION: for a method descriptor CPython makes a bound method
         * just to pass it here (and a frame object, on 3.12+, after it). */
        hr_forget_hooks_object((PyObject *)frame, 0);
        hr_forget_hooks_object(arg, 0);
    }
    return 0;
}

/* Installed with threading.setprofile: the first event on a new thread swaps in the C hook. */
PyObject *hr_bootstrap(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (!hr_active) {
        PyEval_SetProfile(NULL, NULL);
        Py_RETURN_NONE;
    }
    PyEval_SetProfile(hr_profile_cb, NULL);
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

/* Frees the thread's event buffer and its spare (both grow again on demand). */
void hr_free_event_buffers(Rec *rec)
{
    free(rec->events);
    rec->events = NULL;
    rec->len = rec->cap = 0;
    free(rec->spare);
    rec->spare = NULL;
    rec->spare_cap = 0;
}

void hr_free_rec_buffers(Rec *rec)
{
    hr_free_event_buffers(rec);
    free(rec->stack);
    rec->stack = NULL;
    rec->depth = rec->stack_cap = 0;
    Py_CLEAR(rec->name);
}
