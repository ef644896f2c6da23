//! `omp-sandbox [rules] -- command args…`: applies the rules to itself (Landlock filesystem and
//! TCP rules, a seccomp filter, no-new-privs) and execs the command, which inherits them. A separate
//! small binary rather than a hidden subcommand of omp, because each command would otherwise pay
//! a whole Bun start-up (bench/results/sandbox.md).
//!
//! Rules:
//!   -r PATH   readable (and executable) tree
//!   -w PATH   writable tree (also readable)
//!   -d PATH   never readable or writable, even inside a granted tree; a trailing `*` matches
//!             every name in PATH's dir that starts with what precedes it
//!   -p PORT   TCP port the command may connect to (network "off" otherwise)
//!   -n        network left open: no TCP rules, every socket family allowed
//!   -l        a network of its own with only a loopback (its own servers, nothing outside)
//!   -L PID:INODE  the session's loopback network, held by `omp-sandbox --hold-net` process PID
//!   -P PATH   read-only even inside a writable tree (a protected workspace path)
//!   -K PATH   kept in place: cannot be renamed or removed (the git dirs)
//!   -s PATH   a pathname Unix socket (or a dir of them) left reachable; all others that exist
//!             at the start are covered, in writable trees too
//!   -x        no PID and mount namespaces (user namespaces unavailable): -P and sockets unenforced
//!   -C DIR    this cgroup (v2) holds everything the command starts: the namespaces' init is
//!             born in it (with -x the launcher moves into it first); a failed move is left to the
//!             caller to notice (omp then finds the command by its tag)
//!   -D        get SIGKILL when the parent (omp) dies
//! `--contain [-C DIR] [-D] -- command…` confines nothing: it starts a command outside the sandbox
//! in its cgroup without moving into it (contain.rs).
//! `--probe` prints the Landlock ABI the kernel offers (0: none) and `ns` when namespaces can be
//! made, and exits. `--hold-net` makes a loopback network, prints `ready INODE`, keeps it until
//! stdin closes (netns.rs).

mod contain;
mod isolate;
mod landlock;
mod netns;
mod policy;
mod resolve;
mod seccomp;

use std::ffi::{CString, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::process::exit;

/// Exit status for a launcher failure, chosen like a shell's "cannot execute" (126) family so it
/// is not mistaken for the command's own status; the message on stderr says what failed.
const SETUP_FAILED: i32 = 125;

pub(crate) fn fail(message: &str) -> ! {
    eprintln!("omp-sandbox: {message}");
    exit(SETUP_FAILED)
}

fn main() {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    match args.first().map(|a| a.as_bytes()) {
        Some(b"--probe") => {
            println!("{}{}", landlock::abi(), if isolate::available() { " ns" } else { "" });
            return;
        }
        Some(b"--contain") => contain::run(args[1..].to_vec(), exec),
        Some(b"--hold-net") => {
            if let Err(message) = netns::hold() {
                fail(&message);
            }
            return;
        }
        _ => {}
    }
    let (policy, command) = match policy::parse(args) {
        Ok(parsed) => parsed,
        Err(message) => fail(&message),
    };
    // Before anything forks: the namespaces' processes and the command inherit both.
    if policy.parent_death && unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) } != 0 {
        fail(&format!("prctl(PR_SET_PDEATHSIG): {}", std::io::Error::last_os_error()));
    }
    // With namespaces the init is born in the cgroup (isolate::enter); without, nothing forks, so the launcher moves.
    if let Some(dir) = policy.cgroup.as_ref().filter(|_| policy.no_namespaces) {
        let _ = std::fs::write(dir.join("cgroup.procs"), std::process::id().to_string());
    }
    let sockets = if policy.no_namespaces { Vec::new() } else { isolate::listening_sockets() };
    let network = match policy.join_net {
        Some((pid, inode)) => netns::join(pid, inode),
        None if policy.private_loopback => netns::private_loopback(),
        None => Ok(()),
    };
    if let Err(message) = network {
        fail(&message);
    }
    let init = if policy.no_namespaces { None } else { Some(isolate::enter(&policy, &sockets).unwrap_or_else(|message| fail(&message))) };
    if let Err(message) = landlock::restrict(&policy) {
        fail(&message);
    }
    // Without Landlock's TCP rules (ABI < 4) nothing would hold TCP to the allowed ports: none then.
    let tcp = !policy.connect_ports.is_empty() && landlock::abi() >= 4;
    if let Err(message) = seccomp::install(policy.network_open, tcp) {
        fail(&message);
    }
    match init {
        Some(init) => init.run(|| exec(command)),
        None => exec(command),
    }
}

fn exec(command: Vec<OsString>) -> ! {
    let argv: Vec<CString> = command
        .into_iter()
        .map(|arg| CString::new(arg.into_vec()).unwrap_or_else(|_| fail("an argument contains a NUL byte")))
        .collect();
    let mut pointers: Vec<*const libc::c_char> = argv.iter().map(|arg| arg.as_ptr()).collect();
    pointers.push(std::ptr::null());
    unsafe { libc::execvp(pointers[0], pointers.as_ptr()) };
    let error = std::io::Error::last_os_error();
    eprintln!("omp-sandbox: cannot run {}: {error}", argv[0].to_string_lossy());
    exit(if error.raw_os_error() == Some(libc::ENOENT) { 127 } else { 126 })
}
