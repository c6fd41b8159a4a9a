/* highrise_agent._stacks: reads every Python thread's stack without the GIL (mode=sampled).
 *
 * A sampler that takes the GIL sees a busy thread only where it hands the GIL over (a call into
 * Python code, a loop's back edge, I/O), so its samples pile up there and a function whose time
 * goes in C calls (a getattr, a regex) reads low. py-spy reads the stacks from another process
 * and needs no GIL; this does the same from a native thread inside the program:
 *   - every period (an absolute schedule, clock_nanosleep) it walks the main interpreter's thread
 *     states and each one's chain of interpreter frames, taking each frame's code object pointer;
 *   - every read of the interpreter's memory goes through process_vm_readv on this very process
 *     (or pread of /proc/self/mem where that is refused), so a frame freed or rewritten while it
 *     is read gives a failed or stale read, never a fault: the program cannot crash;
 *   - nothing is dereferenced as an object here; the agent maps the pointers to methods with the
 *     GIL held (`Sampler` in _sampler.py), keeping alive every code object it has classified so
 *     that a pointer equal to one of theirs is that code object.
 * A stack read while its thread pushes or pops may mix two moments (as py-spy's non-blocking
 * mode does); the next sample is a fresh read.
 *
 * Start at sample_once (one sample of every thread), then drain (what the sender calls). */
#define _GNU_SOURCE
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#if PY_VERSION_HEX < 0x030B0000 || PY_VERSION_HEX >= 0x030E0000
#error "highrise_agent._stacks knows the frames of CPython 3.11 to 3.13"
#endif
#ifdef Py_GIL_DISABLED
#error "highrise_agent._stacks is for builds with the GIL"
#endif

/* The interpreter's frame layout is internal: read from this very version's headers (as
 * greenlet does), so the offsets are the compiler's, not ours. */
#define Py_BUILD_CORE 1
#include "internal/pycore_frame.h"
#undef Py_BUILD_CORE

#if PY_VERSION_HEX >= 0x030D0000
#define FRAME_CODE_OFFSET offsetof(struct _PyInterpreterFrame, f_executable)
#else
#define FRAME_CODE_OFFSET offsetof(struct _PyInterpreterFrame, f_code)
#endif
#define FRAME_PREVIOUS_OFFSET offsetof(struct _PyInterpreterFrame, previous)

#define MAX_DEPTH 1024u
#define MAX_THREADS 4096u
/* Samples waiting for the sender: 1 Mi words (8 MiB) hold ~4 s of 100 threads 20 frames deep at
 * 100 Hz; the sender drains every few tens of ms. A sample that does not fit is counted. */
#define RING_WORDS (1u << 20)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t thread;
static int running = 0;           /* the sampler thread exists (under `lock`) */
static volatile int stopping = 0; /* asks it to end */
static uint64_t period_ns = 10000000;
static PyInterpreterState *interp = NULL;
static pid_t self_pid = 0;
static int mem_fd = -1; /* /proc/self/mem, where process_vm_readv is refused */

/* Samples as words: [timestamp_ns, thread ident, depth, code pointers innermost first...]. */
static uint64_t *ring = NULL;
static size_t ring_used = 0;
static uint64_t dropped = 0;    /* samples that did not fit */
static uint64_t unreadable = 0; /* thread stacks a read failed in (freed or changing memory) */
static uint64_t taken = 0;
      /* samples taken (one per sampling round) */

static inline uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Reads `count` regions of this process: 0 when all were read whole, -1 otherwise. */
static int read_regions(struct iovec *local, struct iovec *remote, int count)
{
    size_t want = 0;
    for (int i = 0; i < count; i++) {
        want += remote[i].iov_len;
    }
    if (mem_fd < 0) {
        ssize_t got = process_vm_readv(self_pid, local, (unsigned long)count, remote, (unsigned long)count, 0);
        if (got >= 0 || (errno != EPERM && errno != ENOSYS)) {
            return got == (ssize_t)want ? 0 : -1;
        }
        mem_fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
        if (mem_fd < 0) {
            mem_fd = -2; /* neither way works: every read fails */
        }
    }
    if (mem_fd == -2) {
        return -1;
    }
    for (int i = 0; i < count; i++) {
        if (pread(mem_fd, local[i].iov_base, remote[i].iov_len, (off_t)(uintptr_t)remote[i].iov_base) !=
            (ssize_t)remote[i].iov_len) {
            return -1;
        }
    }
    return 0;
}

static inline int read_word(uintptr_t address, uint64_t *out)
{
    struct iovec local = {out, sizeof *out};
    struct iovec remote = {(void *)address, sizeof *out};
    return read_regions(&local, &remote, 1);
}

/* The thread state's fields the sampler needs: the next one, its ident, its innermost frame. */
static int read_thread(uintptr_t tstate, uintptr_t *next, uint64_t *ident, uintptr_t *frame)
{
    uint64_t words[3];
    struct iovec local[3] = {{&words[0], 8}, {&words[1], 8}, {&words[2], 8}};
    struct iovec remote[3] = {
        {(void *)(tstate + offsetof(PyThreadState, next)), 8},
        {(void *)(tstate + offsetof(PyThreadState, thread_id)), 8},
#if PY_VERSION_HEX >= 0x030D0000
        {(void *)(tstate + offsetof(PyThreadState, current_frame)), 8},
#else
        {(void *)(tstate + offsetof(PyThreadState, cframe)), 8},
#endif
    };
    if (read_regions(local, remote, 3) < 0) {
        return -1;
    }
    *next = (uintptr_t)words[0];
    *ident = words[1];
#if PY_VERSION_HEX >= 0x030D0000
    *frame = (uintptr_t)words[2];
#else
    uint64_t current = 0;
    if (words[2] != 0 && read_word((uintptr_t)words[2] + offsetof(_PyCFrame, current_frame), &current) < 0) {
        return -1;
    }
    *frame = (uintptr_t)current;
#endif
    return 0;
}

/* Reads one thread's stack into `codes` (innermost first): its depth, or -1 when a read failed
 * (a frame popped, or its chunk of the frame stack freed, while it was read). */
static int read_stack(uintptr_t frame, uint64_t *codes)
{
    int depth = 0;
    while (frame != 0) {
        if (depth == (int)MAX_DEPTH) {
            return -1;
        }
        uint64_t words[2];
        struct iovec local[2] = {{&words[0], 8}, {&words[1], 8}};
        struct iovec remote[2] = {{(void *)(frame + FRAME_CODE_OFFSET), 8},
                                  {(void *)(frame + FRAME_PREVIOUS_OFFSET), 8}};
        if (read_regions(local, remote, 2) < 0) {
            return -1;
        }
        codes[depth++] = words[0];
        frame = (uintptr_t)words[1];
    }
    return depth;
}

/* One sample of every thread, appended to the ring (under `lock`). A thread whose stack changed
 * under the read is read again at once (a few microseconds later), up to READ_TRIES times. */
#define READ_TRIES 4
static void sample_once(uint64_t now_ns)
{
    uintptr_t tstate = (uintptr_t)PyInterpreterState_ThreadHead(interp);
    uint64_t stack[3 + MAX_DEPTH];
    taken++;
    for (unsigned threads = 0; tstate != 0 && threads < MAX_THREADS; threads++) {
        uintptr_t next = 0, frame = 0;
        uint64_t ident = 0;
        int depth = -1;
        for (int tries = 0; depth < 0 && tries < READ_TRIES; tries++) {
            if (read_thread(tstate, &next, &ident, &frame) < 0) {
                continue;
            }
            depth = read_stack(frame, stack + 3);
        }
        if (depth < 0) {
            unreadable++;
            if (next == 0) {
                return; /* the list itself could not be read: the next round reads it afresh */
            }
        } else {
            size_t words = 3 + (size_t)depth;
            if (ring_used + words > RING_WORDS) {
                dropped++;
            } else {
                stack[0] = now_ns;
                stack[1] = ident;
                stack[2] = (uint64_t)depth;
                memcpy(ring + ring_used, stack, words * sizeof(uint64_t));
                ring_used += words;
            }
        }
        tstate = next;
    }
}

static void *run(void *unused)
{
    /* `highrise attach` and `detach` inject their calls on a thread of the program, never this. */
    pthread_setname_np(pthread_self(), "highrise-stacks");
    struct timespec due;
    clock_gettime(CLOCK_MONOTONIC, &due);
    while (!stopping) {
        uint64_t next_ns = (uint64_t)due.tv_sec * 1000000000u + (uint64_t)due.tv_nsec + period_ns;
        uint64_t now_ns = mono_ns();
        if (next_ns < now_ns) {
            next_ns = now_ns; /* late (a stopped machine): go on from now, no burst */
        }
        due.tv_sec = (time_t)(next_ns / 1000000000u);
        due.tv_nsec = (long)(next_ns % 1000000000u);
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL) == EINTR) {
        }
        if (stopping) {
            break;
        }
        pthread_mutex_lock(&lock);
        sample_once(mono_ns());
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

static void stop_thread(void)
{
    pthread_mutex_lock(&lock);
    int was_running = running;
    running = 0;
    pthread_mutex_unlock(&lock);
    if (was_running) {
        stopping = 1;
        Py_BEGIN_ALLOW_THREADS pthread_join(thread, NULL);
        Py_END_ALLOW_THREADS
    }
}

static PyObject *start(PyObject *module, PyObject *arg)
{
    double period_s = PyFloat_AsDouble(arg);
    if (period_s == -1.0 && PyErr_Occurred()) {
        return NULL;
    }
    if (!(period_s >= 0.0001 && period_s <= 10.0)) {
        PyErr_SetString(PyExc_ValueError, "the period is 0.1 ms to 10 s");
        return NULL;
    }
    stop_thread();
    if (ring == NULL && (ring = PyMem_RawMalloc(RING_WORDS * sizeof(uint64_t))) == NULL) {
        return PyErr_NoMemory();
    }
    pthread_mutex_lock(&lock);
    period_ns = (uint64_t)(period_s * 1e9);
    interp = PyInterpreterState_Main();
    self_pid = getpid();
    ring_used = 0;
    dropped = unreadable = taken = 0;
    stopping = 0;
    int error = pthread_create(&thread, NULL, run, NULL);
    running = error == 0;
    pthread_mutex_unlock(&lock);
    if (error != 0) {
        errno = error;
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    Py_RETURN_NONE;
}

static PyObject *stop(PyObject *module, PyObject *unused)
{
    stop_thread();
    Py_RETURN_NONE;
}

/* The samples since the last drain, oldest first: a list of (timestamp_ns, thread ident,
 * (code pointers, innermost first)). The ring is copied under the lock, the objects are made
 * after it. */
static PyObject *drain(PyObject *module, PyObject *unused)
{
    uint64_t *copy = NULL;
    size_t words = 0;
    pthread_mutex_lock(&lock);
    if (ring_used != 0 && (copy = PyMem_RawMalloc(ring_used * sizeof(uint64_t))) != NULL) {
        words = ring_used;
        memcpy(copy, ring, words * sizeof(uint64_t));
        ring_used = 0;
    }
    pthread_mutex_unlock(&lock);
    PyObject *out = PyList_New(0);
    for (size_t at = 0; out != NULL && at + 3 <= words;) {
        uint64_t depth = copy[at + 2];
        PyObject *codes = PyTuple_New((Py_ssize_t)depth);
        PyObject *item = NULL;
        if (codes != NULL) {
            for (uint64_t i = 0; i < depth; i++) {
                PyObject *pointer = PyLong_FromUnsignedLongLong(copy[at + 3 + i]);
                if (pointer == NULL) {
                    Py_CLEAR(codes);
                    break;
                }
                PyTuple_SET_ITEM(codes, (Py_ssize_t)i, pointer);
            }
        }
        if (codes != NULL) {
            item = Py_BuildValue("(KKN)", (unsigned long long)copy[at], (unsigned long long)copy[at + 1], codes);
        }
        if (item == NULL || PyList_Append(out, item) < 0) {
            Py_XDECREF(item);
            Py_CLEAR(out);
            break;
        }
        Py_DECREF(item);
        at += 3 + (size_t)depth;
    }
    PyMem_RawFree(copy);
    return out;
}

static PyObject *counts(PyObject *module, PyObject *unused)
{
    pthread_mutex_lock(&lock);
    PyObject *out = Py_BuildValue("{sKsKsK}", "taken", (unsigned long long)taken, "dropped",
                                  (unsigned long long)dropped, "unreadable", (unsigned long long)unreadable);
    pthread_mutex_unlock(&lock);
    return out;
}

/* A forked child has no sampler thread: it starts its own if its agent samples. */
static void after_fork_in_child(void)
{
    pthread_mutex_init(&lock, NULL);
    running = 0;
    ring_used = 0;
}

static PyMethodDef methods[] = {
    {"start", start, METH_O, "start(period_s): sample every thread's stack every period_s."},
    {"stop", stop, METH_NOARGS, "Stop sampling (the samples taken stay for drain)."},
    {"drain", drain, METH_NOARGS, "The samples since the last drain: [(timestamp_ns, ident, codes)]."},
    {"counts", counts, METH_NOARGS, "{'taken', 'dropped', 'unreadable'} since start."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_stacks", "Reads every Python thread's stack without the GIL.", -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__stacks(void)
{
    static int at_fork = 0;
    if (!at_fork) {
        pthread_atfork(NULL, NULL, after_fork_in_child);
        at_fork = 1;
    }
    return PyModule_Create(&module_def);
}
