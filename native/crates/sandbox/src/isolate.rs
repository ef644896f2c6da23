//! What the command can see of the machine beyond files: a PID namespace with its own /proc (no
//! other process's environ, cmdline or fds), and a mount namespace in which pathname Unix sockets
//! not below an allowed path are covered (the ssh-agent, tmux, docker, D-Bus: Landlock does not govern
//! connect() to them, and a read-only mount does not stop it either, so each is covered by
//! /dev/null: connect() then fails with ECONNREFUSED) and the workspace's protected paths
//! (.git/config, .git/hooks, .claude…: files that make something run later, outside the sandbox)
//! are read-only bind mounts of themselves.
//!
//! A new PID namespace takes effect for children only, so the launcher forks: the first child is
//! the namespace's PID 1, a small init that forks the command, forwards signals to it and reaps
//! what is reparented to it. The launcher outside relays signals in and the command's status out
//! (PID 1 cannot die of a signal it sends itself, so the status comes over a pipe), and exits as
//! the command did. When the command leaves processes running, the launcher exits at once and the
//! init stays with them, so omp sees them as left behind and ends them, as without namespaces.
//! While the command runs, the init dies with the launcher, and the namespace with it: killing the
//! launcher (omp's containment does, with omp) ends every process of the command at once.

use std::ffi::CString;
use std::io::BufRead;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::netns;
use crate::policy::Policy;
use crate::resolve::canonical;

/// Signals passed on to the command; job control (TSTP, TTIN…) and SIGCHLD stay with each process.
pub(crate) const FORWARDED: &[libc::c_int] = &[libc::SIGHUP, libc::SIGINT, libc::SIGQUIT, libc::SIGTERM, libc::SIGUSR1, libc::SIGUSR2, libc::SIGWINCH, libc::SIGALRM, libc::SIGCONT];

fn errno() -> std::io::Error {
    std::io::Error::last_os_error()
}

fn c_path(path: &Path) -> Result<CString, String> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| format!("{}: a path with a NUL byte", path.display()))
}

fn mount(source: Option<&Path>, target: &Path, fstype: Option<&str>, flags: libc::c_ulong) -> Result<(), String> {
    let source = source.map(c_path).transpose()?;
    let target_c = c_path(target)?;
    let fstype = fstype.map(|t| CString::new(t).unwrap());
    let done = unsafe {
        libc::mount(
            source.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
            target_c.as_ptr(),
            fstype.as_ref().map_or(std::ptr::null(), |t| t.as_ptr()),
            flags,
            std::ptr::null(),
        )
    };
    if done != 0 {
        return Err(format!("mount {}: {}", target.display(), errno()));
    }
    Ok(())
}

/// The flags of the mount holding `path` that a remount inside a user namespace must keep (the
/// kernel locks them).
fn locked_flags(path: &Path) -> libc::c_ulong {
    let Ok(c) = c_path(path) else { return 0 };
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut stat) } != 0 {
        return 0;
    }
    let pairs = [(libc::ST_NOSUID, libc::MS_NOSUID), (libc::ST_NODEV, libc::MS_NODEV), (libc::ST_NOEXEC, libc::MS_NOEXEC), (libc::ST_NOATIME, libc::MS_NOATIME), (libc::ST_NODIRATIME, libc::MS_NODIRATIME), (libc::ST_RELATIME, libc::MS_RELATIME)];
    pairs.iter().filter(|(st, _)| stat.f_flag & st != 0).fold(0, |flags, (_, ms)| flags | ms)
}

/// `path` made a read-only bind mount of itself (what is below it too).
fn read_only(path: &Path) -> Result<(), String> {
    mount(Some(path), path, None, libc::MS_BIND | libc::MS_REC)?;
    mount(None, path, None, libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | locked_flags(path))
}

/// Where sockets of other network namespaces may be (a daemon's netns hides it from /proc/net/unix):
/// the agent and bus named in the environment, docker's, and the user's runtime dir two levels deep.
fn known_sockets() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = ["/var/run/docker.sock", "/run/docker.sock", "/run/podman/podman.sock"].iter().map(PathBuf::from).collect();
    if let Some(agent) = std::env::var_os("SSH_AUTH_SOCK") {
        found.push(PathBuf::from(agent));
    }
    if let Ok(bus) = std::env::var("DBUS_SESSION_BUS_ADDRESS") {
        found.extend(bus.split(';').filter_map(|address| address.strip_prefix("unix:path=")).map(|p| PathBuf::from(p.split(',').next().unwrap_or(p))));
    }
    let runtime = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(format!("/run/user/{}", unsafe { libc::getuid() })));
    let mut dirs = vec![runtime];
    for depth in 0..2 {
        let mut next = Vec::new();
        for dir in &dirs {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                match entry.file_type() {
                    Ok(kind) if kind.is_dir() && depth == 0 => next.push(entry.path()),
                    Ok(kind) if std::os::unix::fs::FileTypeExt::is_socket(&kind) => found.push(entry.path()),
                    _ => {}
                }
            }
        }
        dirs = next;
    }
    found
}

/// Bound pathname sockets of this network namespace, from /proc/net/unix (so read before the
/// command's network is entered), and the known places of others.
pub fn listening_sockets() -> Vec<PathBuf> {
    let mut found = known_sockets();
    if let Ok(file) = std::fs::File::open("/proc/net/unix") {
        // Num RefCount Protocol Flags Type St Inode Path: every bound one, listening or datagram (syslog's too).
        for line in std::io::BufReader::new(file).lines().skip(1).flatten() {
            let fields: Vec<&str> = line.splitn(8, ' ').collect();
            if fields.len() == 8 && fields[7].starts_with('/') {
                found.push(PathBuf::from(fields[7]));
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

fn is_socket(path: &Path) -> bool {
    std::os::unix::fs::FileTypeExt::is_socket(&match std::fs::symlink_metadata(path) {
        Ok(meta) => meta.file_type(),
        Err(_) => return false,
    })
}

/// Covers every socket in `sockets` not below an allowed path (`-s`: omp passes the project too).
/// Writable trees are no exception: the ssh-agent's and tmux's sockets live in /tmp, and a tmux
/// socket types into the user's shell, outside the sandbox.
fn hide_sockets(sockets: &[PathBuf], policy: &Policy) {
    let allowed: Vec<PathBuf> = policy.allow_sockets.iter().filter_map(|p| canonical(p)).collect();
    for socket in sockets {
        let Some(real) = canonical(socket) else { continue };
        if !is_socket(&real) || allowed.iter().any(|a| real.starts_with(a)) {
            continue;
        }
        // A socket on a mount this namespace cannot change (rare) stays: say so rather than fail the command.
        if let Err(message) = mount(Some(Path::new("/dev/null")), &real, None, libc::MS_BIND) {
            eprintln!("omp-sandbox: could not hide the socket {}: {message}", real.display());
        }
    }
}

/// The mount namespace's view: private propagation, protected paths read-only, sockets covered.
fn arrange_mounts(policy: &Policy, sockets: &[PathBuf]) -> Result<(), String> {
    mount(None, Path::new("/"), None, libc::MS_REC | libc::MS_PRIVATE)?;
    // A mount point cannot be renamed or removed: `mv .git .g && mkdir .git` would otherwise bring
    // a config of the command's own where omp's git reads it.
    for path in &policy.pin {
        if path.exists() {
            mount(Some(path), path, None, libc::MS_BIND | libc::MS_REC)?;
        }
    }
    for path in &policy.protect {
        if path.exists() {
            read_only(path)?;
        }
    }
    hide_sockets(sockets, policy);
    Ok(())
}

pub(crate) fn block(signals: &[libc::c_int]) -> libc::sigset_t {
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for &signal in signals {
            libc::sigaddset(&mut set, signal);
        }
        libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        set
    }
}

pub(crate) fn signal_fd(set: &libc::sigset_t) -> Result<libc::c_int, String> {
    let fd = unsafe { libc::signalfd(-1, set, libc::SFD_CLOEXEC) };
    if fd < 0 {
        return Err(format!("signalfd: {}", errno()));
    }
    Ok(fd)
}

/// The next signal on `fd`, or None when interrupted.
pub(crate) fn next_signal(fd: libc::c_int) -> Option<libc::c_int> {
    let mut info: libc::signalfd_siginfo = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<libc::signalfd_siginfo>();
    let read = unsafe { libc::read(fd, &mut info as *mut _ as *mut libc::c_void, size) };
    (read == size as isize).then_some(info.ssi_signo as libc::c_int)
}

/// Exits as a process with wait status `status` would have: the same code, or the same signal.
pub(crate) fn exit_like(status: libc::c_int) -> ! {
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, signal);
            libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            // No core file for a signal the command died of: it was the command's, not ours.
            let none = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
            libc::setrlimit(libc::RLIMIT_CORE, &none);
            libc::kill(libc::getpid(), signal);
        }
        std::process::exit(128 + signal)
    }
    std::process::exit(libc::WEXITSTATUS(status))
}

/// What the namespace's PID 1 needs from `enter`: where to report the command's status.
pub struct Init {
    status: libc::c_int,
    signals: libc::sigset_t,
}

/// clone3's arguments (linux/sched.h), up to the cgroup field.
#[repr(C)]
#[derive(Default)]
struct CloneArgs {
    flags: u64,
    pidfd: u64,
    child_tid: u64,
    parent_tid: u64,
    exit_signal: u64,
    stack: u64,
    stack_size: u64,
    tls: u64,
    set_tid: u64,
    set_tid_size: u64,
    cgroup: u64,
}

const CLONE_INTO_CGROUP: u64 = 0x2_0000_0000;

/// fork(), the child born in the `cgroup` dir when there is one, so that the init and all it starts
/// are in it. Born there rather than moved: writing cgroup.procs makes the kernel wait for an RCU
/// grace period (without the favordynmods mount option), which on a loaded machine took 5–25 ms
/// of every command. Where clone3 cannot (an older kernel, the dir gone), the child moves itself.
pub(crate) fn fork_into(cgroup: Option<&Path>) -> libc::pid_t {
    let Some(dir) = cgroup else { return unsafe { libc::fork() } };
    // An O_PATH handle will not do: clone3 wants the dir opened for reading.
    let fd = c_path(dir).map_or(-1, |c| unsafe { libc::open(c.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC) });
    if fd >= 0 {
        let args = CloneArgs { flags: CLONE_INTO_CGROUP, exit_signal: libc::SIGCHLD as u64, cgroup: fd as u64, ..CloneArgs::default() };
        let child = unsafe { libc::syscall(libc::SYS_clone3, &args as *const CloneArgs, std::mem::size_of::<CloneArgs>()) };
        unsafe { libc::close(fd) };
        if child >= 0 {
            return child as libc::pid_t;
        }
    }
    let child = unsafe { libc::fork() };
    if child == 0 {
        // "0": the writer itself. A failed move is the caller's to notice (omp then finds the command by its tag).
        let _ = std::fs::write(dir.join("cgroup.procs"), "0");
    }
    child
}

/// Enters the new namespaces. Returns only in the namespace's PID 1, with /proc mounted; the
/// launcher outside never returns (it relays and exits as the command does).
/// `sockets`: listening_sockets() read before the command's network was entered (pathname
/// sockets are files, reachable from any network namespace, but /proc/net/unix lists only the
/// reader's).
pub fn enter(policy: &Policy, sockets: &[PathBuf]) -> Result<Init, String> {
    netns::unshare(libc::CLONE_NEWNS | libc::CLONE_NEWPID, "mount, pid")?;
    arrange_mounts(policy, sockets)?;
    let mut watched = FORWARDED.to_vec();
    watched.push(libc::SIGCHLD);
    let signals = block(&watched);
    let mut pipe = [0; 2];
    if unsafe { libc::pipe2(pipe.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(format!("pipe: {}", errno()));
    }
    let child = fork_into(policy.cgroup.as_deref());
    if child < 0 {
        return Err(format!("fork: {}", errno()));
    }
    if child == 0 {
        unsafe { libc::close(pipe[0]) };
        // While the command runs, the namespace ends with the launcher (killed with omp): everything
        // in it dies at once. If the launcher is gone already, its end of the pipe is closed.
        unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
        let mut poll = libc::pollfd { fd: pipe[1], events: 0, revents: 0 };
        if unsafe { libc::poll(&mut poll, 1, 0) } > 0 && poll.revents & libc::POLLERR != 0 {
            std::process::exit(125);
        }
        mount(Some(Path::new("proc")), Path::new("/proc"), Some("proc"), libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC)?;
        return Ok(Init { status: pipe[1], signals });
    }
    unsafe { libc::close(pipe[1]) };
    relay(child, pipe[0], &signals)
}

/// The launcher outside: passes signals to PID 1 and exits as the command did.
fn relay(init: libc::pid_t, status_pipe: libc::c_int, signals: &libc::sigset_t) -> ! {
    // stdin/stdout belong to the command; holding them would keep its pipes open.
    unsafe {
        libc::close(0);
        libc::close(1);
    }
    let signal_fd = signal_fd(signals).unwrap_or_else(|message| crate::fail(&message));
    let mut polls = [libc::pollfd { fd: signal_fd, events: libc::POLLIN, revents: 0 }, libc::pollfd { fd: status_pipe, events: libc::POLLIN, revents: 0 }];
    loop {
        if unsafe { libc::poll(polls.as_mut_ptr(), 2, -1) } < 0 {
            continue;
        }
        if polls[1].revents != 0 {
            let mut report = [0u8; 8];
            let read = unsafe { libc::read(status_pipe, report.as_mut_ptr() as *mut libc::c_void, 8) };
            if read == 8 {
                let status = i32::from_ne_bytes(report[..4].try_into().unwrap());
                let left_running = report[4] != 0;
                // Nothing left: the init exits at once; wait, so omp does not count it as left behind.
                if !left_running {
                    unsafe { libc::waitpid(init, std::ptr::null_mut(), 0) };
                }
                exit_like(status);
            }
            // The init ended without a report (killed): its own status is all there is.
            let mut status = 0;
            unsafe { libc::waitpid(init, &mut status, 0) };
            exit_like(status);
        }
        if polls[0].revents != 0 {
            if let Some(signal) = next_signal(signal_fd) {
                if signal != libc::SIGCHLD {
                    unsafe { libc::kill(init, signal) };
                }
            }
        }
    }
}

impl Init {
    /// PID 1 (restricted already): forks the command, forwards signals to it, reaps every process
    /// reparented here, reports the command's status, and stays while processes it left run.
    pub fn run(self, exec: impl FnOnce()) -> ! {
        let command = unsafe { libc::fork() };
        if command < 0 {
            crate::fail(&format!("fork: {}", errno()));
        }
        if command == 0 {
            unsafe {
                libc::close(self.status);
                libc::sigprocmask(libc::SIG_UNBLOCK, &self.signals, std::ptr::null_mut());
            }
            exec();
            unreachable!("exec returns only by exiting");
        }
        unsafe {
            for fd in 0..3 {
                libc::close(fd);
            }
        }
        let signal_fd = signal_fd(&self.signals).unwrap_or_else(|_| std::process::exit(125));
        let mut reported = false;
        let mut command_alive = true;
        loop {
            let Some(signal) = next_signal(signal_fd) else { continue };
            if signal != libc::SIGCHLD {
                if command_alive {
                    unsafe { libc::kill(command, signal) };
                }
                continue;
            }
            loop {
                let mut status = 0;
                let pid = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
                if pid == command {
                    command_alive = false;
                    // Anything else still to wait for (running, or a zombie not yet reaped)?
                    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
                    let others = unsafe { libc::waitid(libc::P_ALL, 0, &mut info, libc::WEXITED | libc::WNOHANG | libc::WNOWAIT) } == 0;
                    let mut report = [0u8; 8];
                    report[..4].copy_from_slice(&status.to_ne_bytes());
                    report[4] = others as u8;
                    // The launcher exits now: what the command left stays for omp to count and end.
                    if others {
                        unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, 0) };
                    }
                    unsafe { libc::write(self.status, report.as_ptr() as *const libc::c_void, 8) };
                    reported = true;
                    continue;
                }
                if pid > 0 {
                    continue;
                }
                if pid < 0 && reported {
                    // No child left at all: done.
                    std::process::exit(0);
                }
                break;
            }
        }
    }
}

/// Whether this process may make the namespaces (tried in a throw-away child).
pub fn available() -> bool {
    let child = unsafe { libc::fork() };
    if child == 0 {
        let done = netns::unshare(libc::CLONE_NEWNS | libc::CLONE_NEWPID, "mount, pid").is_ok();
        unsafe { libc::_exit(if done { 0 } else { 1 }) };
    }
    let mut status = 1;
    child > 0 && unsafe { libc::waitpid(child, &mut status, 0) } == child && libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0
}
