//! Namespaces for the network, and the user namespace that lets an unprivileged user make the others.
//!
//! `-l`: a network of the command's own, loopback only (nothing outside reachable, not even the
//! machine's loopback). `--hold-net`: the same network kept alive for a whole session by a small
//! holder process, which every later command joins with `-L PID:INODE`, so a server one command
//! starts in the background answers the next one. Joining costs a setns; making a network namespace
//! costs several ms (bench/results/sandbox.md), which is why a session makes one, not each command.

use std::io::{Read, Write};
use std::os::unix::io::AsRawFd;

fn write_file(path: &str, text: &str) -> Result<(), String> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .and_then(|mut file| file.write_all(text.as_bytes()))
        .map_err(|error| format!("{path}: {error}"))
}

fn errno() -> std::io::Error {
    std::io::Error::last_os_error()
}

/// A user namespace mapping only our own ids (the same inside as outside, so files keep their owners).
fn enter_user_ns() -> Result<(), String> {
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    if unsafe { libc::unshare(libc::CLONE_NEWUSER) } != 0 {
        return Err(format!("unshare(user): {} (are unprivileged user namespaces disabled?)", errno()));
    }
    write_file("/proc/self/setgroups", "deny")?;
    write_file("/proc/self/uid_map", &format!("{uid} {uid} 1"))?;
    write_file("/proc/self/gid_map", &format!("{gid} {gid} 1"))
}

/// `unshare(flags)`, first entering a user namespace of our own when we lack the privilege (not
/// root, or root without CAP_SYS_ADMIN). Root keeps the machine's ids: a user namespace would show
/// every file not owned by root as nobody's and refuse chown.
pub fn unshare(flags: libc::c_int, what: &str) -> Result<(), String> {
    if unsafe { libc::unshare(flags) } == 0 {
        return Ok(());
    }
    if errno().raw_os_error() != Some(libc::EPERM) {
        return Err(format!("unshare({what}): {}", errno()));
    }
    enter_user_ns()?;
    if unsafe { libc::unshare(flags) } != 0 {
        return Err(format!("unshare({what}) in a user namespace: {}", errno()));
    }
    Ok(())
}

/// Brings `lo` up in the current network namespace (it starts down).
fn loopback_up() -> Result<(), String> {
    let socket = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if socket < 0 {
        return Err(format!("socket: {}", errno()));
    }
    let mut request: libc::ifreq = unsafe { std::mem::zeroed() };
    for (slot, byte) in request.ifr_name.iter_mut().zip(b"lo\0") {
        *slot = *byte as libc::c_char;
    }
    let done = unsafe {
        if libc::ioctl(socket, libc::SIOCGIFFLAGS, &mut request) != 0 {
            -1
        } else {
            request.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
            libc::ioctl(socket, libc::SIOCSIFFLAGS, &request)
        }
    };
    let error = errno();
    unsafe { libc::close(socket) };
    if done != 0 {
        return Err(format!("bringing lo up: {error}"));
    }
    Ok(())
}

/// `-l`: a loopback-only network of this command's own.
pub fn private_loopback() -> Result<(), String> {
    unshare(libc::CLONE_NEWNET, "net")?;
    loopback_up()
}

/// `--hold-net`: makes the session's network, says `ready` on stdout, and keeps it until stdin
/// closes (omp holds the other end, so the network goes when omp does, however it ends).
pub fn hold() -> Result<(), String> {
    private_loopback()?;
    let inode = std::fs::metadata("/proc/self/ns/net").map(|m| std::os::unix::fs::MetadataExt::ino(&m)).map_err(|e| format!("/proc/self/ns/net: {e}"))?;
    println!("ready {inode}");
    std::io::stdout().flush().ok();
    let mut sink = [0u8; 64];
    while matches!(std::io::stdin().read(&mut sink), Ok(n) if n > 0) {}
    Ok(())
}

fn ns_inode(path: &str) -> Option<u64> {
    std::fs::metadata(path).ok().map(|m| std::os::unix::fs::MetadataExt::ino(&m))
}

/// `-L PID:INODE`: joins the network held by `pid`, checking by inode that it is still the
/// session's (a pid can be reused), and its user namespace first when it has one of its own.
pub fn join(pid: u32, inode: u64) -> Result<(), String> {
    let gone = || format!("the session's network (held by process {pid}) is gone; start omp again");
    let net = std::fs::File::open(format!("/proc/{pid}/ns/net")).map_err(|_| gone())?;
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(net.as_raw_fd(), &mut stat) } != 0 || stat.st_ino != inode {
        return Err(gone());
    }
    let user_path = format!("/proc/{pid}/ns/user");
    if ns_inode(&user_path) != ns_inode("/proc/self/ns/user") {
        let user = std::fs::File::open(&user_path).map_err(|_| gone())?;
        if unsafe { libc::setns(user.as_raw_fd(), libc::CLONE_NEWUSER) } != 0 {
            return Err(format!("joining the session's user namespace: {}", errno()));
        }
    }
    if unsafe { libc::setns(net.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return Err(format!("joining the session's network: {}", errno()));
    }
    // The holder brings lo up just after making the network; the first command may be quicker.
    loopback_up()
}
