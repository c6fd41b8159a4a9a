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
 * objects and offsets made for the hooks) are left out. See _native_alloc.c.
 *
 * asyncio tasks (3.12+, sys.monitoring): a task's events go to a task slot, a thread of its own,
 * where its coroutines stay open while they await. See "tasks" in _native_tasks.c.
 *
 * Start at profile_cb / mon_start (the hooks, _native_hooks.c), then drain (what the sender
 * thread calls, _native_drain.c). _native.h lists the other files and what each holds; this one
 * is the module: its functions table, the session's state, install/uninstall and the counters.
 */
#include "_native.h"

/* ---- the session's state ---- */

__thread Tls hr_tls __attribute__((tls_model("initial-exec")));
Rec *hr_registry;
uint64_t hr_next_thread_id = 1;
uint32_t hr_generation = 0;
int hr_active = 0;
Py_ssize_t hr_extra_index = -1;
PyObject *hr_resolver = NULL;
PyObject *hr_namer = NULL;
PyObject *hr_dict_key = NULL;
uint64_t hr_zero_ns = 0;
uint32_t hr_max_events = 65536;
uint64_t hr_dropped_gone = 0;
uint64_t hr_calls_drained_total = 0;
int hr_all_threads = 0;
#if PY_VERSION_HEX >= 0x030C0000
static int profiling = 0; /* the profile hook (not sys.monitoring) is installed */
#endif

/* Allocation counting (install's alloc_mode). */
int hr_alloc_mode = ALLOC_OFF;
int hr_counting = 0;
int hr_code_shift = 1;
uint64_t hr_mem_dropped_gone[3] = {0, 0, 0};
const char hr_untyped_key_storage = 0;

/* The event clock (see mono_ticks and now_ticks). */
int hr_use_tsc = 0;
uint64_t hr_tsc_anchor = 0;
uint64_t hr_mono_anchor = 0;

/* ---- module functions ---- */

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
        if (theirs != NULL && theirs != hr_reftrace) {
            PyErr_SetString(PyExc_RuntimeError, "another reference tracer is installed");
            return NULL;
        }
    }
#endif
    if (hr_extra_index < 0) {
        hr_extra_index = HR_REQUEST_INDEX(NULL);
        if (hr_extra_index < 0) {
            PyErr_SetString(PyExc_RuntimeError, "no code extra index left");
            return NULL;
        }
    }
    /* A new session: forget the previous one's threads (their records stay allocated) and
     * classes. */
    for (Rec *rec = hr_registry; rec != NULL; rec = rec->next) {
        hr_free_rec_buffers(rec);
    }
    hr_registry = NULL;
#ifdef HR_TASKS
    hr_end_tasks();
    hr_slots_made = 0;
#endif
    hr_dropped_gone = 0;
    memset(hr_mem_dropped_gone, 0, sizeof(hr_mem_dropped_gone));
    hr_next_thread_id = 1;
    hr_generation++;
    hr_clear_classes();
    hr_alloc_mode = want_alloc;
    hr_code_shift = want_alloc != ALLOC_OFF ? 2 : 1;
    Py_INCREF(new_resolver);
    Py_XSETREF(hr_resolver, new_resolver);
    Py_INCREF(new_namer);
    Py_XSETREF(hr_namer, new_namer);
    hr_zero_ns = zero;
#if defined(__x86_64__)
    hr_use_tsc = want_tsc;
#else
    hr_use_tsc = 0;
#endif
    if (hr_use_tsc) {
        clock_pair(&hr_tsc_anchor, &hr_mono_anchor);
    }
    hr_max_events = capacity < 2 ? 2 : (capacity > (1ul << 26) ? (1u << 26) : (uint32_t)capacity);
    hr_active = 1;
    if (hr_alloc_mode != ALLOC_OFF) {
        hr_hook_object_allocator();
#if PY_VERSION_HEX >= 0x030D0000
        if (hr_alloc_mode == ALLOC_TYPES && PyRefTracer_SetTracer(hr_reftrace, NULL) == 0) {
            hr_reftracer_installed = 1;
        }
#endif
        hr_counting = 1;
    }
#if PY_VERSION_HEX >= 0x030C0000
    Py_INCREF(disable);
    Py_XSETREF(hr_disable_obj, disable);
    profiling = use_profile;
    if (use_profile) {
        PyEval_SetProfileAllThreads(hr_profile_cb, NULL);
    }
    hr_all_threads = 1;
#else
    /* Every thread that already runs, not only the caller (what 3.12's
     * PyEval_SetProfileAllThreads does). _PyEval_SetProfile is written for another thread's
     * state; the thread list only changes with the GIL held, which we hold. */
    PyThreadState *current = PyThreadState_Get();
    PyInterpreterState *interp = PyThreadState_GetInterpreter(current);
    for (PyThreadState *ts = PyInterpreterState_ThreadHead(interp); ts != NULL; ts = PyThreadState_Next(ts)) {
        if (_PyEval_SetProfile(ts, hr_profile_cb, NULL) < 0) {
            PyErr_Clear();
        }
    }
    hr_all_threads = 0;
#endif
    Py_RETURN_NONE;
}

static PyObject *uninstall(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    hr_active = 0;
#ifdef HR_TASKS
    hr_end_tasks();
#endif
    hr_counting = 0;
    hr_unhook_object_allocator();
#if PY_VERSION_HEX >= 0x030D0000
    if (hr_reftracer_installed) {
        void *data = NULL;
        if (PyRefTracer_GetTracer(&data) == hr_reftrace) {
            PyRefTracer_SetTracer(NULL, NULL);
        }
        hr_reftracer_installed = 0;
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

/* task_slots() -> how many task slots this session made (0: no asyncio task ran profiled code). */
static PyObject *task_slots(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
#ifdef HR_TASKS
    return PyLong_FromUnsignedLong(hr_slots_made);
#else
    return PyLong_FromLong(0);
#endif
}

/* calls_drained() -> the enter and exit records every drain so far has packed into frames. */
static PyObject *calls_drained(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return PyLong_FromUnsignedLongLong(hr_calls_drained_total);
}

static PyObject *dropped_total(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    uint64_t total = hr_dropped_gone;
    for (Rec *rec = hr_registry; rec != NULL; rec = rec->next) {
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
    for (Rec *rec = hr_registry; rec != NULL; rec = rec->next) {
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

/* memory_dropped() -> (allocations, bytes, frees): counts lost with dropped memory records,
 * running totals over all threads. */
static PyObject *memory_dropped(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    uint64_t totals[3] = {hr_mem_dropped_gone[0], hr_mem_dropped_gone[1], hr_mem_dropped_gone[2]};
    for (Rec *rec = hr_registry; rec != NULL; rec = rec->next) {
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
    {"drain", hr_drain, METH_VARARGS,
     "drain(now_ticks, frame_tag) -> [(thread_id, name, ended, segments)]."},
    {"dropped_total", dropped_total, METH_NOARGS, "Events dropped so far (all threads)."},
    {"sleep_then_clock", sleep_then_clock, METH_O,
     "sleep_then_clock(seconds) -> CLOCK_MONOTONIC ns as the sleep ends, before the GIL is back."},
    {"thread_ids", thread_ids, METH_NOARGS,
     "thread_ids() -> {ident: thread_id} of the recorded threads that still exist."},
    {"calls_drained", calls_drained, METH_NOARGS,
     "Enter and exit records drained into frames so far (all threads, all sessions)."},
    {"gc_phase", (PyCFunction)(void (*)(void))hr_gc_phase, METH_FASTCALL,
     "gc_phase(phase, info): for gc.callbacks; the collector's objects are not the program's."},
    {"phase_enter", hr_phase_enter, METH_O, "phase_enter(code): open a phase mark's frame on this thread."},
    {"phase_exit", hr_phase_exit, METH_O, "phase_exit(code): close it (if innermost)."},
    {"live_snapshot", (PyCFunction)(void (*)(void))hr_live_snapshot, METH_FASTCALL,
     "live_snapshot(collect, get_objects, getsizeof) -> (thread_id, ticks, [(class_id, count, bytes)], "
     "[(from_id, to_id, attribute, many)]) or None."},
    {"class_id", hr_class_id, METH_VARARGS,
     "class_id(type, register) -> the class id of `type` (registered first when `register`), or None."},
    {"bootstrap", (PyCFunction)(void (*)(void))hr_bootstrap, METH_FASTCALL,
     "Profile function for threading.setprofile: installs the C hook on a new thread."},
    {"task_slots", task_slots, METH_NOARGS, "How many asyncio task slots this session made."},
#if PY_VERSION_HEX >= 0x030C0000
    {"mon_start", (PyCFunction)(void (*)(void))hr_mon_start, METH_FASTCALL,
     "sys.monitoring PY_START callback."},
    {"mon_resume", (PyCFunction)(void (*)(void))hr_mon_resume, METH_FASTCALL,
     "sys.monitoring PY_RESUME callback (a coroutine's resume is not a call)."},
    {"mon_yield", (PyCFunction)(void (*)(void))hr_mon_yield, METH_FASTCALL,
     "sys.monitoring PY_YIELD callback (a coroutine suspending stays open in its task)."},
    {"mon_throw", (PyCFunction)(void (*)(void))hr_mon_throw, METH_FASTCALL,
     "sys.monitoring PY_THROW callback."},
    {"mon_return", (PyCFunction)(void (*)(void))hr_mon_return, METH_FASTCALL,
     "sys.monitoring PY_RETURN/PY_YIELD callback."},
    {"mon_unwind", (PyCFunction)(void (*)(void))hr_mon_unwind, METH_FASTCALL,
     "sys.monitoring PY_UNWIND callback."},
    {"floor_noop", (PyCFunction)(void (*)(void))hr_floor_noop, METH_FASTCALL,
     "A sys.monitoring callback that does nothing (the benchmark's floor)."},
    {"floor_clock", (PyCFunction)(void (*)(void))hr_floor_clock, METH_FASTCALL,
     "A sys.monitoring callback that only reads the event clock (the benchmark's floor)."},
#endif
    {"pack_events_for_test", hr_pack_events_for_test, METH_VARARGS,
     "pack_events_for_test(base, [(timestamp, code)]) -> packed bytes."},
    {"pack_records_for_test", hr_pack_records_for_test, METH_VARARGS,
     "pack_records_for_test(base, [(timestamp, head[, count, free, bytes])]) -> packed records."},
    {"buffered_bytes", hr_buffered_bytes, METH_NOARGS,
     "buffered_bytes() -> bytes held by the threads' event buffers."},
    {"frame_for_test", hr_frame_for_test, METH_VARARGS,
     "frame_for_test(tag, thread_id, base, count, packed) -> the frame drain makes."},
    {"take_classes", hr_take_classes, METH_NOARGS,
     "take_classes() -> [(class_id, type or None)] registered since the last call."},
    {"memory_dropped", memory_dropped, METH_NOARGS,
     "memory_dropped() -> (allocations, bytes, frees) lost with dropped memory records."},
    {"patch_types", hr_patch_types, METH_O,
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
    if (PyType_Ready(&hr_SentinelType) < 0) {
        return NULL;
    }
    hr_drain_lock = PyThread_allocate_lock();
    if (hr_drain_lock == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    hr_dict_key = PyUnicode_InternFromString("highrise_agent._native.thread");
    if (hr_dict_key == NULL) {
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
