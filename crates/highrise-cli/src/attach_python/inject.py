# Run by gdb (`gdb -batch -p PID -x this`) for `highrise attach PID` on CPython; see
# attach_python.rs. Maps a page, writes LINE into it and queues
# Py_AddPendingCall(PyRun_SimpleString, page), calling the functions by hand: only the general
# registers are saved, set and restored. gdb's own `call` saves and restores the whole register
# state, and writing the vector state back fails on CPUs whose XSAVE area outgrew gdb's buffer
# (Intel AMX: "Couldn't write extended state status: Bad address"). So the calls run on a
# thread where the vector registers hold nothing live: one stopped right after a `syscall`
# instruction (inside a C library wrapper, which its callers treat as clobbering them), else
# one stopped at the entry of a hot interpreter function that takes no floating-point argument.
# Prints HIGHRISE_PAGE, HIGHRISE_QUEUED or HIGHRISE_FAIL lines for attach_python.rs to read.
import gdb

LINE = bytes.fromhex("@LINE_HEX@") + b"\0"
ENTRIES = ("PyEval_RestoreThread", "PyObject_Malloc", "PyObject_Free", "PyMem_Malloc")
SAVED = ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11",
         "r12", "r13", "r14", "r15", "rip", "eflags", "orig_rax")
MASK = (1 << 64) - 1


class Failed(Exception):
    pass


class Stuck(Failed):
    """The thread is still inside a call: its registers must not be restored under it."""


def reg(name):
    if name == "eflags":  # a flags type: no cast to an integer; read what gdb shows
        return int(gdb.execute("info registers eflags", to_string=True).split()[1], 16)
    return int(gdb.parse_and_eval("(long) $" + name)) & MASK


def set_reg(name, value):
    value &= MASK
    if value >= 1 << 63:
        value -= 1 << 64
    gdb.execute("set $%s = %d" % (name, value))


def address(symbol):
    return int(gdb.parse_and_eval("(long) &" + symbol)) & MASK


def after_syscall(thread):
    thread.switch()
    if reg("orig_rax") == MASK:  # -1: not stopped in (or just after) a system call
        return False
    pc = reg("pc")
    try:
        return bytes(gdb.selected_inferior().read_memory(pc - 2, 2)) == b"\x0f\x05"
    except gdb.MemoryError:
        return False


def safe_thread():
    """A thread where a call clobbers nothing live, selected; None if none is found."""
    # Not the agent's own native thread ("highrise-stacks", the sampler of an attach before):
    # a call made on it while it reads the program's stacks crashed the program once.
    threads = [thread for thread in sorted(gdb.selected_inferior().threads(), key=lambda t: t.num)
               if not (thread.name or "").startswith("highrise")]
    for thread in threads:
        if after_syscall(thread):
            return thread
    entries = set()
    for entry in ENTRIES:
        try:
            entries.add(address(entry))
        except gdb.error:
            pass
    if not entries:
        return None
    # At the very first instruction: nothing of the function has run yet.
    breakpoints = [gdb.Breakpoint("*%d" % at, internal=True) for at in sorted(entries)]
    try:
        gdb.execute("continue")
    finally:
        for bp in breakpoints:
            if bp.is_valid():
                bp.delete()
    thread = gdb.selected_thread()
    if thread is None or reg("pc") not in entries:
        return None
    return thread


def call(thread, function, *args):
    """Calls function(*args) on thread (selected, registers saved by the caller): returns rax."""
    home = reg("rip")
    sp = ((reg("rsp") - 4096) & ~0xF) - 8  # below the red zone; 16-byte aligned at the call
    gdb.selected_inferior().write_memory(sp, home.to_bytes(8, "little"))
    for name, value in zip(("rdi", "rsi", "rdx", "rcx", "r8", "r9"), args):
        set_reg(name, value)
    set_reg("rax", 0)
    set_reg("orig_rax", -1)  # no system call restart on the way
    set_reg("rsp", sp)
    set_reg("rip", function)
    # Back when this thread is at home with the call's frame popped (not a nested pass through
    # home from inside the call).
    back = gdb.Breakpoint("*%d" % home, internal=True)
    back.thread = thread.global_num
    back.condition = "$rsp == %d" % (sp + 8)
    try:
        # Other stops (a signal for the program, gdb interrupted) come back here: the thread is
        # inside the call, so it goes on until it returns.
        for _ in range(10000):
            try:
                gdb.execute("continue")
            except KeyboardInterrupt:
                continue
            current = gdb.selected_thread()
            if current is not None and current.global_num == thread.global_num \
                    and reg("rip") == home and reg("rsp") == sp + 8:
                return reg("rax")
    finally:
        back.delete()
    raise Stuck("the call did not come back")


def main():
    gdb.execute("set pagination off")
    gdb.execute("set confirm off")
    try:
        functions = (address("mmap"), address("Py_AddPendingCall"), address("PyRun_SimpleString"))
    except gdb.error as error:
        print(str(error))
        return
    thread = safe_thread()
    if thread is None:
        print("HIGHRISE_FAIL no thread came to a safe point (every thread busy outside the interpreter)")
        return
    thread.switch()
    saved = {name: reg(name) for name in SAVED}
    restore = True
    try:
        # PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS.
        size = (len(LINE) + 4095) // 4096 * 4096
        page = call(thread, functions[0], 0, size, 3, 34, -1, 0)
        if page >= (1 << 64) - 4096:
            raise Failed("mmap failed (%d)" % (page - (1 << 64)))
        print("HIGHRISE_PAGE 0x%x" % page)
        gdb.selected_inferior().write_memory(page, LINE)
        queued = call(thread, functions[1], functions[2], page) & 0xFFFFFFFF
        print("HIGHRISE_QUEUED %d" % (queued - (1 << 32) if queued >= 1 << 31 else queued))
    except Stuck as error:
        restore = False
        print("HIGHRISE_FAIL %s" % error)
    except (Failed, gdb.error) as error:
        print("HIGHRISE_FAIL %s" % error)
    finally:
        if restore:
            thread.switch()
            for name in SAVED:
                set_reg(name, saved[name])


main()
gdb.execute("detach")
