//! `--contain [-C DIR] [-D] -- command…`: a command outside the sandbox (the user's own, or every
//! command under `--sandbox off`) started in its cgroup without moving a process into it: a move
//! makes the kernel wait for an RCU grace period, 13 ms of a shell's 14.8 ms at load 5
//! (bench/results/sandbox.md). The launcher forks the command born in the cgroup (clone3), passes
//! signals on to it and exits as it did; nothing is confined.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use crate::isolate::{block, exit_like, fork_into, next_signal, signal_fd, FORWARDED};

/// `-C DIR` and `-D` up to `--`, then the command; anything else is refused.
fn parse(args: Vec<OsString>) -> Result<(Option<PathBuf>, bool, Vec<OsString>), String> {
    let mut cgroup = None;
    let mut parent_death = false;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_bytes() {
            b"-C" => cgroup = Some(PathBuf::from(args.next().ok_or("-C needs a dir")?)),
            b"-D" => parent_death = true,
            b"--" => {
                let command: Vec<OsString> = args.collect();
                if command.is_empty() {
                    return Err("no command after --".into());
                }
                return Ok((cgroup, parent_death, command));
            }
            other => return Err(format!("--contain takes -C DIR and -D only, not {}", String::from_utf8_lossy(other))),
        }
    }
    Err("no command: --contain [-C DIR] [-D] -- command args…".into())
}

pub fn run(args: Vec<OsString>, exec: fn(Vec<OsString>) -> !) -> ! {
    let (cgroup, parent_death, command) = parse(args).unwrap_or_else(|message| crate::fail(&message));
    if parent_death && unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) } != 0 {
        crate::fail(&format!("prctl(PR_SET_PDEATHSIG): {}", std::io::Error::last_os_error()));
    }
    let mut watched = FORWARDED.to_vec();
    watched.push(libc::SIGCHLD);
    let signals = block(&watched);
    let launcher = unsafe { libc::getpid() };
    let child = fork_into(cgroup.as_deref());
    if child < 0 {
        crate::fail(&format!("fork: {}", std::io::Error::last_os_error()));
    }
    if child == 0 {
        unsafe {
            // It dies with the launcher, which dies with omp; if the launcher is gone already, at once.
            if parent_death {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0);
                if libc::getppid() != launcher {
                    libc::_exit(125);
                }
            }
            libc::sigprocmask(libc::SIG_UNBLOCK, &signals, std::ptr::null_mut());
        }
        exec(command);
    }
    // stdin/stdout belong to the command; holding them would keep its pipes open.
    unsafe {
        libc::close(0);
        libc::close(1);
    }
    let signal_fd = signal_fd(&signals).unwrap_or_else(|message| crate::fail(&message));
    loop {
        match next_signal(signal_fd) {
            Some(libc::SIGCHLD) => {
                let mut status = 0;
                if unsafe { libc::waitpid(child, &mut status, libc::WNOHANG) } == child {
                    exit_like(status);
                }
            }
            Some(signal) => unsafe {
                libc::kill(child, signal);
            },
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse;
    use std::ffi::OsString;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn takes_only_the_cgroup_and_parent_death() {
        let (cgroup, death, command) = parse(args(&["-C", "/sys/fs/cgroup/omp-1", "-D", "--", "bash", "-c", "true"])).unwrap();
        assert_eq!(cgroup.unwrap().to_str(), Some("/sys/fs/cgroup/omp-1"));
        assert!(death);
        assert_eq!(command, args(&["bash", "-c", "true"]));
        assert!(parse(args(&["-w", "/", "--", "true"])).unwrap_err().contains("not -w"));
        assert!(parse(args(&["-C"])).is_err());
        assert!(parse(args(&["-D", "--"])).is_err());
    }
}
