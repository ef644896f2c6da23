//! A stream's output written straight to a file descriptor (`pipeTo(fd)`): no chunk becomes a JS
//! Buffer, and a reader that goes away is noticed when it goes, not at the next write, which may
//! be far off (`omp grep x | head -1` while the search finds nothing more, or blocks on a FIFO).

use std::io;
use std::os::unix::io::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::thread::JoinHandle;

/// Writes all of `bytes` to `fd`; false when the reader is gone (EPIPE), as rg treats it.
pub fn write_all(fd: RawFd, mut bytes: &[u8]) -> io::Result<bool> {
    while !bytes.is_empty() {
        // SAFETY: the pointer and length describe the live slice.
        let written = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if written >= 0 {
            bytes = &bytes[written as usize..];
            continue;
        }
        let err = io::Error::last_os_error();
        match err.raw_os_error() {
            Some(libc::EINTR) => {}
            Some(libc::EPIPE) => return Ok(false),
            // A descriptor left non-blocking by whoever opened it: wait until it drains.
            Some(code) if code == libc::EAGAIN || code == libc::EWOULDBLOCK => {
                wait(fd, libc::POLLOUT, None)?;
            }
            _ => return Err(err),
        }
    }
    Ok(true)
}

/// Blocks until `fd` reports `events` (or an error or hang-up, which poll always reports), or
/// until `wake` is readable.
fn wait(fd: RawFd, events: libc::c_short, wake: Option<RawFd>) -> io::Result<[libc::c_short; 2]> {
    let mut fds = [
        libc::pollfd { fd, events, revents: 0 },
        libc::pollfd { fd: wake.unwrap_or(-1), events: libc::POLLIN, revents: 0 },
    ];
    loop {
        // SAFETY: `fds` holds two initialised pollfds; a negative fd is ignored by poll.
        if unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) } >= 0 {
            return Ok([fds[0].revents, fds[1].revents]);
        }
        let err = io::Error::last_os_error();
        if err.raw_os_error() != Some(libc::EINTR) {
            return Err(err);
        }
    }
}

/// Calls `gone` once the reader of `fd` goes away (a pipe's read end closed: POLLERR; a socket's
/// peer gone: POLLHUP), until dropped. Regular files and terminals never report it.
pub struct ReaderWatch {
    wake: OwnedFd,
    thread: Option<JoinHandle<()>>,
}

impl ReaderWatch {
    pub fn start(fd: RawFd, gone: impl FnOnce() + Send + 'static) -> io::Result<Self> {
        let mut ends = [0; 2];
        // SAFETY: `ends` has room for the two descriptors pipe2 returns.
        if unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: pipe2 just opened both; nothing else owns them.
        let (read, wake) = unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) };
        let thread = std::thread::Builder::new().name("omp-output-watch".into()).spawn(move || {
            // Events 0: only what poll always reports, never "writable".
            if let Ok([revents, woken]) = wait(fd, 0, Some(read.as_raw_fd())) {
                if woken == 0 && revents & (libc::POLLERR | libc::POLLHUP) != 0 {
                    gone();
                }
            }
        })?;
        Ok(Self { wake, thread: Some(thread) })
    }
}

impl Drop for ReaderWatch {
    fn drop(&mut self) {
        // SAFETY: one byte from a live buffer to the pipe this watch owns.
        unsafe { libc::write(self.wake.as_raw_fd(), b"x".as_ptr().cast(), 1) };
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    fn pipe() -> (OwnedFd, OwnedFd) {
        let mut ends = [0; 2];
        assert_eq!(unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
        unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) }
    }

    #[test]
    fn a_closed_reader_is_seen_without_writing_and_then_writes_say_so() {
        // Rust's runtime ignores SIGPIPE, so the write below returns EPIPE as in omp.
        let (read, write) = pipe();
        let gone = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&gone);
        let watch = ReaderWatch::start(write.as_raw_fd(), move || flag.store(true, Ordering::SeqCst)).unwrap();
        assert!(write_all(write.as_raw_fd(), b"first\n").unwrap());
        assert!(!gone.load(Ordering::SeqCst));
        drop(read);
        let deadline = Instant::now() + Duration::from_secs(30);
        while !gone.load(Ordering::SeqCst) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(gone.load(Ordering::SeqCst));
        drop(watch);
        assert!(!write_all(write.as_raw_fd(), b"second\n").unwrap());
    }

    #[test]
    fn dropping_the_watch_ends_it_quietly() {
        let (_read, write) = pipe();
        let gone = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&gone);
        drop(ReaderWatch::start(write.as_raw_fd(), move || flag.store(true, Ordering::SeqCst)).unwrap());
        assert!(!gone.load(Ordering::SeqCst));
    }
}
