//! `-l`: a network of the command's own, loopback only. A new user namespace (so no privilege is
//! needed) holding a new network namespace whose `lo` is brought up: the command's servers and
//! clients reach each other on 127.0.0.1, nothing outside is reachable. It costs a few ms more
//! than no network at all (bench/results/sandbox.md), so it is asked for, not the default.

use std::io::Write;

fn write_file(path: &str, text: &str) -> Result<(), String> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .and_then(|mut file| file.write_all(text.as_bytes()))
        .map_err(|error| format!("{path}: {error}"))
}

pub fn private_loopback() -> Result<(), String> {
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    if unsafe { libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET) } != 0 {
        return Err(format!("unshare(user, net): {} (are unprivileged user namespaces disabled?)", std::io::Error::last_os_error()));
    }
    // The same ids inside as outside, so files keep their owners.
    write_file("/proc/self/setgroups", "deny")?;
    write_file("/proc/self/uid_map", &format!("{uid} {uid} 1"))?;
    write_file("/proc/self/gid_map", &format!("{gid} {gid} 1"))?;
    let socket = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if socket < 0 {
        return Err(format!("socket: {}", std::io::Error::last_os_error()));
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
    let error = std::io::Error::last_os_error();
    unsafe { libc::close(socket) };
    if done != 0 {
        return Err(format!("bringing lo up: {error}"));
    }
    Ok(())
}
