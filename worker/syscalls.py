"""The system-call filter of sandboxed bots (``docs/sandbox.md``, "The kernel"): a
seccomp program that bubblewrap installs just before it runs a bot's command
(``bwrap --seccomp FD``), for the bot and everything it starts.

Every call is allowed but those below, which fail with ``EPERM`` (``clone3``: with
``ENOSYS``, so that the C library falls back to ``clone``, whose flags a filter can
see). The list is the calls Docker's default profile (moby's
``profiles/seccomp/default.json``) refuses to a container without added capabilities,
less those a bot's runtime uses (memory policy calls), plus every way into a new
namespace: a user namespace would give the bot's code the kernel's whole surface of
capabilities-in-a-namespace to attack, the attack surface most kernel exploits of
recent years came through. A bot needs none of them: it computes, reads its own
files, and talks to its referee over a socket.

The program is made with libseccomp (the C library every Linux distribution ships,
through ``pyseccomp``'s bindings): it knows each architecture's call numbers and
checks the architecture, which a filter written by hand gets wrong.
"""

from __future__ import annotations

import errno
import os
import tempfile
from functools import cache

#: The calls a bot is refused (EPERM).
REFUSED = (
    # namespaces: no new one, and no entering another
    "unshare",
    "setns",
    # the kernel's own state, modules and keys
    "acct",
    "add_key",
    "bpf",
    "clock_adjtime",
    "clock_settime",
    "create_module",
    "delete_module",
    "finit_module",
    "get_kernel_syms",
    "init_module",
    "ioperm",
    "iopl",
    "kcmp",
    "kexec_file_load",
    "kexec_load",
    "keyctl",
    "lookup_dcookie",
    "nfsservctl",
    "perf_event_open",
    "query_module",
    "quotactl",
    "reboot",
    "request_key",
    "settimeofday",
    "swapoff",
    "swapon",
    "sysfs",
    "_sysctl",
    "uselib",
    "userfaultfd",
    "ustat",
    # file systems and other processes
    "mount",
    "umount2",
    "pivot_root",
    "fsopen",
    "fsmount",
    "fsconfig",
    "move_mount",
    "open_tree",
    "open_by_handle_at",
    "name_to_handle_at",
    "process_vm_readv",
    "process_vm_writev",
    "ptrace",
)
#: The ``clone`` flags that make a new namespace: a ``clone`` with any of them is refused.
NAMESPACE_FLAGS = {
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}


class FilterUnavailable(RuntimeError):
    """No system-call filter can be made here (no libseccomp)."""


@cache
def program() -> bytes:
    """The filter as a BPF program (what ``bwrap --seccomp`` reads);
    :class:`FilterUnavailable` saying what to install when it cannot be made."""
    try:
        import pyseccomp as seccomp  # type: ignore[import-untyped]
    except (ImportError, OSError, RuntimeError) as exc:  # no libseccomp.so.2
        raise FilterUnavailable(
            f"no system-call filter: libseccomp cannot be loaded ({exc}); install the "
            "libseccomp2 package (Debian, Ubuntu) or libseccomp (Fedora, Alpine)"
        ) from None
    refuse = seccomp.ERRNO(errno.EPERM)
    made = seccomp.SyscallFilter(seccomp.ALLOW)
    for call in REFUSED:
        try:
            made.add_rule(refuse, call)
        except (RuntimeError, ValueError, OSError):  # a call this architecture has not
            continue
    for flag in NAMESPACE_FLAGS.values():
        made.add_rule(refuse, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    made.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    with tempfile.TemporaryFile() as out:
        made.export_bpf(out)
        out.seek(0)
        return out.read()


def program_fd() -> int:
    """A new file descriptor to read :func:`program` from, at its start (the caller
    passes it to bubblewrap, and closes it)."""
    fd = os.memfd_create("arena-seccomp")
    os.write(fd, program())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
