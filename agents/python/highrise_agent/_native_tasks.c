/* highrise_agent._native: asyncio tasks as threads of their own (see "tasks" below). */
#include "_native.h"

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

typedef struct {
    const void *key;
    Rec *slot;
} TaskEntry;

static TaskEntry *task_map; /* open addressing, load <= 1/2 */
static uint32_t task_cap, task_used;
static Rec *free_slots;
uint32_t hr_slots_made;

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
    slot->gen = hr_generation;
    slot->thread_id = hr_next_thread_id++;
    slot->slot = 1;
    hr_tls.guard++;
    slot->name = PyUnicode_FromFormat("asyncio task %u", ++hr_slots_made);
    if (slot->name == NULL) {
        PyErr_Clear();
    }
    hr_tls.guard--;
    slot->next = hr_registry;
    hr_registry = slot;
    return slot;
}

/* The running task leaves this thread (its outermost frame here suspended or ended). */
void hr_task_leave(void)
{
    Rec *slot = hr_tls.task;
    hr_tls.task = NULL;
    hr_tls.task_open = 0;
    if (slot == NULL || slot->gen != hr_generation || slot->ended || slot->depth != 0) {
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
    if (rec == NULL || rec->gen != hr_generation || rec->ended || rec->hidden != 0 || rec->depth == 0) {
        return;
    }
    uint64_t ts = now_ticks();
    if (rec->pend_used != 0) {
        hr_flush_pending(rec, ts);
    }
    for (uint32_t d = rec->depth; d > 0; d--) {
        record_at(rec, (rec->stack[d - 1] << hr_code_shift) | 1u, ts);
    }
    rec->hidden = rec->depth;
}

/* Before a profiled frame of `code` starts or resumes on this thread: its events go to the task
 * it runs in. Returns 1 when the frame is a coroutine's that a task slot holds open already
 * (a resume: nothing to record), else 0. */
int hr_task_enter(PyCodeObject *code, int resumed)
{
    int is_async = (code->co_flags & ASYNC_FLAGS) != 0;
    if (hr_tls.task != NULL) {
        if (UNLIKELY(hr_tls.task->gen != hr_generation || hr_tls.task->ended)) {
            hr_tls.task = NULL;
        }
        else {
            hr_tls.task_open++;
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
    hr_tls.task = slot;
    hr_tls.task_open = 1;
routed:
    if (!(code->co_flags & CO_COROUTINE) || !resumed) {
        return 0;
    }
    /* A coroutine resuming: open already unless it started before the agent saw its task. */
    int64_t id = method_of(code, NULL, 0);
    for (uint32_t d = hr_tls.task->depth; id >= 0 && d > 0; d--) {
        if (hr_tls.task->stack[d - 1] == (uint32_t)id) {
            return 1;
        }
    }
    return 0;
}

/* uninstall: every slot ends (its thread ends on the wire at the next drain), the map goes. */
void hr_end_tasks(void)
{
    for (Rec *rec = hr_registry; rec != NULL; rec = rec->next) {
        if (rec->slot) {
            rec->ended = 1;
        }
    }
    free(task_map);
    task_map = NULL;
    task_cap = task_used = 0;
    free_slots = NULL;
    hr_tls.task = NULL;
    hr_tls.task_open = 0;
}
#endif
