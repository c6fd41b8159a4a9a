/* highrise_agent._native: allocation counting (install's alloc_mode; see _native.c's overview).
 *
 * Each thread's pending counters (per class) and the memory records they are written as; the
 * class table (type -> dense class id); the hooks that count: the object-domain allocator
 * (3.11/3.12 blocks, 3.13+ sizes), the reference tracer (3.13+) and heap types' tp_alloc
 * (3.11/3.12); what the interpreter made for the agent's own hooks or for gc.callbacks, taken
 * back; and the module functions that name the classes (take_classes, class_id). */
#include "_native.h"

/* ---- allocation counting: pending counters and memory records ---- */

/* One memory record (two slots): `count` objects of `class_id`, `bytes` in all, created or
 * freed by the frame on top of this thread's stream. Dropped (and counted) like any record. */
static void put_memory(Rec *rec, uint64_t ts, uint32_t class_id, uint64_t count, uint64_t bytes, int free)
{
    if (rec->drops_pending || (rec->len + 2 > rec->cap && !(hr_grow_events(rec) && rec->len + 2 <= rec->cap))) {
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
void hr_flush_pending(Rec *rec, uint64_t ts)
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
uint32_t hr_class_count;
static uint32_t class_cap, classes_taken;
#define MAX_CLASS_ID 16777216u

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
uint32_t hr_class_lookup(const void *key)
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
    uint32_t known = hr_class_lookup(key);
    if (known != NO_CLASS) {
        return known;
    }
    if (hr_class_count >= MAX_CLASS_ID) {
        return NO_CLASS;
    }
    if ((hr_class_count + 1) * 2 > class_hash_cap) {
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
    if (hr_class_count == class_cap) {
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
    uint32_t id = hr_class_count++;
    class_keys[id] = key;
    class_units[id] = 0;
    class_hash_insert(class_hash, class_hash_cap, key, id);
    if (key != UNTYPED_KEY) {
        Py_INCREF((PyObject *)key);
    }
    return id;
}

/* Forgets every class (a new session). Runs with the GIL, outside any hook. */
void hr_clear_classes(void)
{
    const void **keys = class_keys;
    uint32_t count = hr_class_count;
    class_keys = NULL;
    free(class_hash);
    class_hash = NULL;
    free(class_units);
    class_units = NULL;
    class_hash_cap = hr_class_count = class_cap = classes_taken = 0;
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
        hr_flush_pending(rec, now_ticks());
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
    if (LIKELY(rec != NULL && rec->depth != 0 && t->guard == 0 && rec->gen == hr_generation && !rec->ended && hr_counting)) {
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

void hr_forget_hooks_object(PyObject *obj, int created)
{
    Tls *t = &hr_tls;
    Rec *rec = counting_rec(t);
    if (rec == NULL) {
        return;
    }
    PyTypeObject *type = Py_TYPE(obj);
    int fresh = t->last_ptr != NULL && (char *)t->last_ptr == (char *)obj - preheader_of(type);
    const void *key;
    if (hr_alloc_mode == ALLOC_TYPES) {
        if (!created && !fresh) {
            return;
        }
        key = type;
    }
    else {
        if (!fresh) {
            /* A collection that started with this very allocation made its own objects for
             * gc.callbacks after it (taken back by gc_phase): the block is among the recent. */
            if (hr_alloc_mode == ALLOC_BLOCKS) {
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
    Tls *t = &hr_tls;
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
    if (hr_alloc_mode == ALLOC_TYPES) {
        hr_forget_hooks_object(obj, 1);
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
PyObject *hr_gc_phase(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    Rec *rec = counting_rec(&hr_tls);
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
        if (hr_alloc_mode == ALLOC_BLOCKS) {
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
    Tls *t = &hr_tls;
    t->last_ptr = ptr;
    t->last_size = size;
    if (hr_alloc_mode == ALLOC_BLOCKS) {
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

void hr_hook_object_allocator(void)
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
void hr_unhook_object_allocator(void)
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
int hr_reftracer_installed = 0;

int hr_reftrace(PyObject *op, PyRefTracerEvent event, void *data)
{
    (void)data;
    if (event != PyRefTracer_CREATE) {
        return 0;
    }
    Tls *t = &hr_tls;
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
    hr_tls.typed = type;
    PyObject *obj = PyType_GenericAlloc(type, nitems);
    hr_tls.typed = NULL;
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
PyObject *hr_patch_types(PyObject *module, PyObject *list)
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

/* take_classes() -> [(class_id, type or None for untyped)]: the classes registered since the
 * last call, to be defined (named) before the records that use them are sent. */
PyObject *hr_take_classes(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    PyObject *result = PyList_New(0);
    if (result == NULL) {
        return NULL;
    }
    /* Building the list may allocate objects whose types get registered: loop until caught up. */
    uint32_t upto = hr_class_count;
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
PyObject *hr_class_id(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *type;
    int reg;
    if (!PyArg_ParseTuple(args, "O!p", &PyType_Type, &type, &reg)) {
        return NULL;
    }
    uint32_t id = reg ? class_id_of(type) : hr_class_lookup(type);
    if (id == NO_CLASS) {
        Py_RETURN_NONE;
    }
    return PyLong_FromUnsignedLong(id);
}
