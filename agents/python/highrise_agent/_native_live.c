/* highrise_agent._native: the live-object snapshot (objects live per class after a collection)
 * and the class diagram its instances' attributes show. */
#include "_native.h"

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
    uint32_t to_id = hr_class_lookup(type);
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
PyObject *hr_live_snapshot(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
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
    hr_tls.guard++;
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
    n = hr_class_count;
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
            uint32_t id = hr_class_lookup(obj); /* a live class: measured, maybe with no instance */
            if (id != NO_CLASS && id < n) {
                measured[id] = 1;
            }
        }
        PyTypeObject *type = Py_TYPE(obj);
        if (!live_measured_type(type)) {
            continue;
        }
        uint32_t id = hr_class_lookup(type);
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
    hr_tls.guard--;
    return result;
}
