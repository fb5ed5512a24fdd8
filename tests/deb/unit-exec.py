#!/usr/bin/env python3
"""unit-exec.py UNIT_DIR TEMPLATE INSTANCE LOG -- starts one instance of an installed
socket-activated template service the way systemd would, on a machine without systemd as PID 1
(the package test, tests/deb/run.sh): reads TEMPLATE@.socket and TEMPLATE@.service from
UNIT_DIR with %i = INSTANCE, creates the socket as [Socket] says (ListenStream path,
DirectoryMode, SocketUser, SocketGroup, SocketMode, Backlog), then becomes the service: fd 0
is the listening socket (StandardInput=socket; also fd 3 with LISTEN_FDS=1), stdout and stderr
go to LOG (the journal), the environment is EnvironmentFile= and Environment= only, then
User=, Group= (with the user's supplementary groups), UMask=, LimitNOFILE=,
WorkingDirectory= (default /), and ExecStart= is exec'd. With INSTANCE "-", TEMPLATE names a
plain Type=oneshot service (e.g. pouch-gc.service), run the same way without a socket. A directive that changes what runs
and is not done here fails it; the sandboxing ones (Protect*, Restrict*, ...) are left to
systemd-analyze verify."""

import fcntl
import grp
import os
import pwd
import resource
import shlex
import socket
import stat
import sys

# Keys this script carries out; SANDBOX keys are accepted and not emulated; anything else in
# [Service] or [Socket] is an error (the test would no longer run what the unit says).
SERVICE_DONE = {"Type", "ExecStart", "EnvironmentFile", "Environment", "User", "Group",
                "StandardInput", "StandardOutput", "StandardError", "SyslogIdentifier",
                "UMask", "LimitNOFILE", "WorkingDirectory"}
SOCKET_DONE = {"ListenStream", "SocketUser", "SocketGroup", "SocketMode", "DirectoryMode",
               "Accept", "Backlog", "RemoveOnStop"}
SANDBOX = {"Restart", "RestartSec", "KillSignal", "TimeoutStopSec", "NoNewPrivileges",
           "ProtectSystem", "ReadWritePaths", "ProtectHome", "PrivateTmp", "PrivateDevices",
           "ProtectKernelTunables", "ProtectKernelModules", "ProtectKernelLogs",
           "ProtectControlGroups", "ProtectClock", "ProtectHostname", "ProtectProc",
           "RestrictAddressFamilies", "RestrictNamespaces", "RestrictRealtime",
           "RestrictSUIDSGID", "LockPersonality", "MemoryDenyWriteExecute",
           "SystemCallArchitectures", "SystemCallFilter", "CapabilityBoundingSet",
           "AmbientCapabilities"}


def die(msg):
    sys.stderr.write("unit-exec: %s\n" % msg)
    sys.exit(1)


def parse(path, instance):
    """The unit file as {section: [(key, value)]}, %i expanded, continuations joined."""
    sections, cur, pending = {}, None, ""
    with open(path) as f:
        for raw in f:
            line = pending + raw.rstrip("\n")
            pending = ""
            if line.endswith("\\"):
                pending = line[:-1] + " "
                continue
            line = line.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("[") and line.endswith("]"):
                cur = line[1:-1]
                sections.setdefault(cur, [])
                continue
            key, sep, value = line.partition("=")
            if not sep or cur is None:
                die("%s: cannot read line %r" % (path, line))
            value = value.strip().replace("%%", "\0").replace("%i", instance)
            if "%" in value:
                die("%s: specifier other than %%i in %r" % (path, line))
            sections[cur].append((key.strip(), value.replace("\0", "%")))
    return sections


def last(entries, key, default=None):
    values = [v for k, v in entries if k == key]
    return values[-1] if values else default


def check_keys(entries, done, what):
    for key, _ in entries:
        if key not in done and key not in SANDBOX:
            die("%s: %s= is not carried out by this script" % (what, key))


def env_file(path):
    optional = path.startswith("-")
    path = path.lstrip("-")
    env = {}
    try:
        with open(path) as f:
            for raw in f:
                line = raw.strip()
                if not line or line[0] in "#;":
                    continue
                key, sep, value = line.partition("=")
                if not sep:
                    die("%s: not KEY=value: %r" % (path, line))
                value = value.strip()
                if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                    value = value[1:-1]
                env[key.strip()] = value
    except FileNotFoundError:
        if not optional:
            die("EnvironmentFile %s does not exist" % path)
    return env


def make_socket(entries):
    path = last(entries, "ListenStream")
    if not path or not path.startswith("/"):
        die("ListenStream=%r: only a unix socket path is carried out" % path)
    if last(entries, "Accept", "no") != "no":
        die("Accept=yes is not carried out")
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        # systemd makes missing parents root-owned with DirectoryMode (default 0755). The six
        # instances start at once, so another may make it between the check and ours.
        os.makedirs(directory, int(last(entries, "DirectoryMode", "0755"), 8), exist_ok=True)
        os.chmod(directory, int(last(entries, "DirectoryMode", "0755"), 8))
    if os.path.exists(path):
        if not stat.S_ISSOCK(os.lstat(path).st_mode):
            die("%s exists and is not a socket" % path)
        os.unlink(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(path)
    user = last(entries, "SocketUser", "root")
    group = last(entries, "SocketGroup", "root")
    os.chown(path, pwd.getpwnam(user).pw_uid, grp.getgrnam(group).gr_gid)
    os.chmod(path, int(last(entries, "SocketMode", "0666"), 8))
    sock.listen(int(last(entries, "Backlog", "4096")))
    return sock


def high_fd(fd):
    """fd moved to a number of 10 or more (close-on-exec), the old number closed."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


def main():
    if len(sys.argv) != 5:
        die("usage: unit-exec.py UNIT_DIR TEMPLATE INSTANCE LOG")
    unit_dir, template, instance, log = sys.argv[1:]
    if instance == "-":
        # A plain oneshot service (pouch-gc.service, which its timer starts): no socket, and
        # its exit status is the run's.
        svc = parse(os.path.join(unit_dir, template), "")["Service"]
        check_keys(svc, SERVICE_DONE, template)
        if last(svc, "Type") != "oneshot" or last(svc, "StandardInput"):
            die("%s: only Type=oneshot without StandardInput is carried out" % template)
        sock_entries = None
    else:
        sock_unit = parse(os.path.join(unit_dir, template + "@.socket"), instance)
        svc_unit = parse(os.path.join(unit_dir, template + "@.service"), instance)
        sock_entries = sock_unit.get("Socket", [])
        svc = svc_unit.get("Service", [])
        check_keys(sock_entries, SOCKET_DONE, template + "@.socket")
        check_keys(svc, SERVICE_DONE, template + "@.service")
        if last(svc, "StandardInput") != "socket":
            die("the service does not take its socket as StandardInput")
        if last(svc, "Type", "simple") != "simple":
            die("Type=%s is not carried out" % last(svc, "Type"))

    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
    for key, value in svc:
        if key == "EnvironmentFile":
            env.update(env_file(value))
        elif key == "Environment":
            for assignment in shlex.split(value):
                k, _, v = assignment.partition("=")
                env[k] = v
    user = pwd.getpwnam(last(svc, "User", "root"))
    gid = grp.getgrnam(last(svc, "Group")).gr_gid if last(svc, "Group") else user.pw_gid
    env.update({"USER": user.pw_name, "LOGNAME": user.pw_name, "HOME": user.pw_dir,
                "SHELL": user.pw_shell})
    argv = shlex.split(last(svc, "ExecStart"))
    if not argv or not argv[0].startswith("/"):
        die("ExecStart=%r must name an absolute path (prefixes are not carried out)" % argv)

    # Both kept above fd 3 first, so placing one on 0-3 cannot close the other.
    out = high_fd(os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640))
    if sock_entries is None:
        os.dup2(high_fd(os.open(os.devnull, os.O_RDONLY)), 0)
    else:
        sock = high_fd(make_socket(sock_entries).detach())
        os.dup2(sock, 0)
        os.dup2(sock, 3)
        env.update({"LISTEN_FDS": "1", "LISTEN_PID": str(os.getpid()),
                    "LISTEN_FDNAMES": template + "@" + instance + ".socket"})
    os.dup2(out, 1)
    os.dup2(out, 2)
    limit = last(svc, "LimitNOFILE")
    if limit:
        # A container may cap the hard limit below the unit's; systemd would fail there too,
        # so the test takes what it may and says so.
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        want = int(limit)
        if hard != resource.RLIM_INFINITY and want > hard:
            sys.stderr.write("unit-exec: LimitNOFILE=%d above this machine's hard limit %d; "
                             "using %d\n" % (want, hard, hard))
            want = hard
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, want))
    os.chdir(last(svc, "WorkingDirectory", "/"))
    os.setgid(gid)
    os.initgroups(user.pw_name, gid)
    os.setuid(user.pw_uid)
    os.umask(int(last(svc, "UMask", "0022"), 8))
    # systemd starts a service with no other descriptor open than these.
    os.closerange(3 if sock_entries is None else 4, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    os.execve(argv[0], argv, env)


if __name__ == "__main__":
    main()
