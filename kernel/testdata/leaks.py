"""What a kernel process has started and holds, read from /proc (Linux):
its descendant processes (but for its crash watcher), the TCP ports it and
they listen on. For the interrupt tests (test_interrupt_cleanup.py)."""
import os

WATCHER_ENV = b"CONCLAB_KERNEL_CRASH_WATCH="


def _stat(pid):
    with open("/proc/%d/stat" % pid) as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return rest[0], int(rest[1])  # state, ppid


def _environ(pid):
    try:
        with open("/proc/%d/environ" % pid, "rb") as f:
            return f.read().split(b"\0")
    except OSError:
        return []


def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def descendants(root):
    """Pids of the live (not zombie) processes under root, but for the
    kernel's crash watcher (which lives as long as the kernel)."""
    parent = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            state, ppid = _stat(int(d))
        except (OSError, IndexError, ValueError):
            continue
        if state != "Z":
            parent[int(d)] = ppid
    out = []
    for pid in parent:
        p = pid
        while p in parent and p != root and p > 1:
            p = parent[p]
        if p == root and pid != root:
            if any(e.startswith(WATCHER_ENV) for e in _environ(pid)):
                continue
            out.append(pid)
    return sorted(out)


def _socket_inodes(pid):
    inodes = set()
    try:
        for fd in os.listdir("/proc/%d/fd" % pid):
            try:
                t = os.readlink("/proc/%d/fd/%s" % (pid, fd))
            except OSError:
                continue
            if t.startswith("socket:["):
                inodes.add(t[8:-1])
    except OSError:
        pass
    return inodes


def listening_ports(pids):
    """The TCP ports (IPv4 and IPv6) the processes pids listen on."""
    inodes = set()
    for p in pids:
        inodes |= _socket_inodes(p)
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    cols = line.split()
                    if cols[3] == "0A" and cols[9] in inodes:  # LISTEN
                        ports.add(int(cols[1].rsplit(":", 1)[1], 16))
        except OSError:
            pass
    return sorted(ports)


def describe(pids):
    return ["%d: %s" % (p, cmdline(p)) for p in pids]
