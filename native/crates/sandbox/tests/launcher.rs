//! The launcher as a whole, run as omp runs it: namespaces, covered sockets, protected paths, the
//! session's network, and the command's status passed through.

use std::io::{BufRead, BufReader};
use std::os::unix::net::UnixListener;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

const LAUNCHER: &str = env!("CARGO_BIN_EXE_omp-sandbox");

/// A test's own folder under the temp dir, removed when the test ends (passing or not).
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = PathBuf;
    fn deref(&self) -> &PathBuf {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("omp-sandbox-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

fn run(rules: &[&str], script: &str) -> Output {
    Command::new(LAUNCHER).args(["-r", "/", "-w", "/dev/null"]).args(rules).args(["--", "sh", "-c", script]).output().unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

#[test]
fn sees_only_its_own_processes() {
    let output = run(&[], "ls /proc | grep -c '^[0-9]'; tr '\\0' ' ' < /proc/1/cmdline");
    let text = stdout(&output);
    let count: u32 = text.lines().next().unwrap().parse().unwrap();
    // The init, sh, ls and grep, not the machine's processes.
    assert!(count <= 5, "{text}");
    assert!(text.contains("omp-sandbox") || text.contains(LAUNCHER), "{text}");
}

#[test]
fn passes_exit_codes_and_signals_through() {
    assert_eq!(run(&[], "exit 3").status.code(), Some(3));
    assert_eq!(run(&[], "kill -TERM $$").status.signal(), Some(libc::SIGTERM));
    // A process left running does not hold the launcher.
    let started = std::time::Instant::now();
    assert_eq!(run(&[], "sleep 30 >/dev/null 2>&1 & exit 0").status.code(), Some(0));
    assert!(started.elapsed().as_secs() < 20);
}

#[test]
fn covers_sockets_unless_allowed_even_in_writable_trees() {
    let dir = scratch("socket");
    let path = dir.join("agent.sock");
    let _listener = UnixListener::bind(&path).unwrap();
    let connect = format!("python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect(\"{}\"); print(\"connected\")'", path.display());
    let refused = run(&[], &connect);
    assert!(String::from_utf8_lossy(&refused.stderr).contains("Connection refused"), "{refused:?}");
    assert_eq!(stdout(&run(&["-s", path.to_str().unwrap()], &connect)), "connected");
    // A writable tree is no exception (the ssh-agent's and tmux's sockets are in /tmp).
    assert!(String::from_utf8_lossy(&run(&["-w", dir.to_str().unwrap()], &connect).stderr).contains("Connection refused"));
    assert_eq!(stdout(&run(&["-s", dir.to_str().unwrap()], &connect)), "connected");
    // In a network of its own, where /proc/net/unix lists none of the machine's sockets.
    assert!(String::from_utf8_lossy(&run(&["-l"], &connect).stderr).contains("Connection refused"));
}

#[test]
fn protected_paths_are_read_only_inside_a_writable_tree() {
    let dir = scratch("protect");
    std::fs::create_dir(dir.join(".git")).unwrap();
    std::fs::write(dir.join(".git/config"), "[core]\n").unwrap();
    let d = dir.to_str().unwrap();
    let config = format!("{d}/.git/config");
    let output = run(&["-w", d, "-P", &config], &format!("echo x >> {config}; echo y > {d}/.git/HEAD && echo made"));
    assert!(String::from_utf8_lossy(&output.stderr).contains("Read-only file system"), "{output:?}");
    assert_eq!(stdout(&output), "made");
    assert_eq!(std::fs::read_to_string(dir.join(".git/config")).unwrap(), "[core]\n");
    // Nor can the git dir be moved aside and replaced.
    let git = format!("{d}/.git");
    let moved = run(&["-w", d, "-P", &config, "-K", &git], &format!("mv {git} {d}/.g && mkdir {git} && echo replaced"));
    assert!(String::from_utf8_lossy(&moved.stderr).contains("Device or resource busy"), "{moved:?}");
    assert!(dir.join(".git/config").exists());
}

#[test]
fn commands_share_the_held_network() {
    let mut holder = Command::new(LAUNCHER).arg("--hold-net").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut line = String::new();
    BufReader::new(holder.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let inode = line.trim().strip_prefix("ready ").unwrap().to_string();
    let join = format!("{}:{inode}", holder.id());
    let server = "python3 -c 'import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(); print(s.getsockname()[1], flush=True); s.accept()[0].send(b\"pong\")'";
    let mut first = Command::new(LAUNCHER).args(["-r", "/", "-w", "/dev/null", "-L", &join, "--", "sh", "-c", server]).stdout(Stdio::piped()).spawn().unwrap();
    let mut port = String::new();
    BufReader::new(first.stdout.as_mut().unwrap()).read_line(&mut port).unwrap();
    let client = format!("python3 -c 'import socket; print(socket.create_connection((\"127.0.0.1\", {})).recv(4).decode())'", port.trim());
    assert_eq!(stdout(&run(&["-L", &join], &client)), "pong");
    first.wait().unwrap();
    // A wrong inode (a reused pid) is refused, not joined.
    let wrong = run(&["-L", &format!("{}:1", holder.id())], "true");
    assert_eq!(wrong.status.code(), Some(125));
    drop(holder.stdin.take());
    assert!(holder.wait().unwrap().success());
}

#[test]
fn everything_ends_with_the_launcher() {
    let mark = format!("omp-sandbox-test-{}", std::process::id());
    let mut launcher = Command::new(LAUNCHER).args(["-r", "/", "-w", "/dev/null", "--", "bash", "-c", &format!("(exec -a {mark} sleep 60) & (exec -a {mark} sleep 60) & echo up; wait")]).stdout(Stdio::piped()).spawn().unwrap();
    let mut line = String::new();
    BufReader::new(launcher.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let running = || Command::new("pgrep").args(["-c", "-f", &format!("^{mark}")]).output().map(|o| String::from_utf8_lossy(&o.stdout).trim().parse::<u32>().unwrap_or(0)).unwrap_or(0);
    let started = std::time::Instant::now();
    while running() < 2 && started.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(running(), 2);
    launcher.kill().unwrap();
    launcher.wait().unwrap();
    while running() > 0 && started.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(running(), 0);
}

/// As an unprivileged user (a user namespace first) where the tests run as root and setpriv exists.
#[test]
fn works_unprivileged() {
    if unsafe { libc::geteuid() } != 0 || Command::new("setpriv").arg("--version").output().is_err() {
        return;
    }
    // A copy nobody can run, whatever the permissions on the way to the build dir.
    let dir = scratch("nobody");
    let launcher = dir.join("omp-sandbox");
    std::fs::copy(LAUNCHER, &launcher).unwrap();
    for path in [&dir, &launcher] {
        std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }
    let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"];
    let mut holder = Command::new("setpriv").args(nobody).arg(&launcher).arg("--hold-net").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut line = String::new();
    BufReader::new(holder.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let join = format!("{}:{}", holder.id(), line.trim().strip_prefix("ready ").unwrap());
    let script = "ls /proc | grep -c '^[0-9]'; id -u; python3 -c 'import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(); print(\"listening\")'";
    let output = Command::new("setpriv").args(nobody).arg(&launcher).args(["-r", "/", "-w", "/dev/null", "-L", &join, "--", "sh", "-c", script]).output().unwrap();
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() == 3 && lines[0].parse::<u32>().unwrap() <= 5 && lines[1] == "65534" && lines[2] == "listening", "{output:?}");
    drop(holder.stdin.take());
    holder.wait().unwrap();
}

#[test]
fn forwards_signals_to_the_command() {
    let mut launcher = Command::new(LAUNCHER)
        .args(["-r", "/", "-w", "/dev/null", "--", "sh", "-c", "trap 'echo got TERM; exit 7' TERM; echo ready; while :; do sleep 0.1; done"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(launcher.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "ready");
    // To the launcher alone (not its process group): it passes it to the namespace's init, which passes it on.
    unsafe { libc::kill(launcher.id() as libc::pid_t, libc::SIGTERM) };
    line.clear();
    out.read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "got TERM");
    assert_eq!(launcher.wait().unwrap().code(), Some(7));
}

#[test]
fn a_home_in_a_busy_writable_folder_keeps_its_denied_paths() {
    // Thousands of entries beside the home, as in a shared /tmp: each is granted, the denied ones are not.
    let busy = scratch("busy");
    for i in 0..3000 {
        if i % 3 == 0 {
            std::fs::create_dir(busy.join(format!("d{i}"))).unwrap();
            std::fs::write(busy.join(format!("d{i}/f")), "in a dir\n").unwrap();
        } else {
            std::fs::write(busy.join(format!("f{i}")), "a file\n").unwrap();
        }
    }
    let home = busy.join("home");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_ed25519"), "secret\n").unwrap();
    std::fs::write(home.join(".netrc"), "secret\n").unwrap();
    std::fs::write(home.join("agent.db-wal"), "secret\n").unwrap();
    std::fs::write(home.join("notes"), "mine\n").unwrap();
    std::os::unix::fs::symlink(home.join(".ssh"), busy.join("link-to-ssh")).unwrap();
    std::os::unix::fs::symlink(busy.join("f1"), busy.join("link-to-f1")).unwrap();
    let (b, h) = (busy.to_str().unwrap(), home.to_str().unwrap());
    let (ssh, netrc, db) = (format!("{h}/.ssh"), format!("{h}/.netrc"), format!("{h}/agent.db*"));
    let rules = ["-w", b, "-d", &ssh, "-d", &netrc, "-d", &db];
    let script = format!(
        "cat {b}/f2999 {b}/d2997/f {b}/link-to-f1 {h}/notes; echo changed > {b}/d0/f && cat {b}/d0/f; \
         for p in {h}/.ssh/id_ed25519 {b}/link-to-ssh/id_ed25519 {h}/.netrc {h}/agent.db-wal; do cat $p >/dev/null 2>&1 && echo \"read $p\"; done; \
         touch {b}/new 2>/dev/null && echo 'made in the folder'; echo done"
    );
    let output = run(&rules, &script);
    assert_eq!(stdout(&output), "a file\nin a dir\na file\nmine\nchanged\ndone", "{output:?}");
}

/// A cgroup (v2) dir of the test's own where it may make one (root on CI), else None.
fn own_cgroup(name: &str) -> Option<(PathBuf, String)> {
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?.lines().find_map(|line| line.strip_prefix("0::").map(str::to_string))?;
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mount = mountinfo.lines().map(|line| line.split(' ').collect::<Vec<_>>()).find(|fields| fields.iter().position(|f| *f == "-").is_some_and(|at| fields.get(at + 1) == Some(&"cgroup2")))?;
    let relative = format!("{}/omp-sandbox-test-{}-{name}", own.trim_end_matches('/'), std::process::id());
    let dir = PathBuf::from(mount[4]).join(relative.trim_start_matches('/'));
    std::fs::create_dir(&dir).ok()?;
    Some((dir, relative))
}

#[test]
fn the_command_and_all_it_starts_are_in_its_cgroup() {
    let Some((dir, relative)) = own_cgroup("cgroup") else {
        eprintln!("skipped: no writable cgroup v2 here");
        return;
    };
    let dir_text = dir.to_str().unwrap();
    // With namespaces the init is born in the cgroup (clone3), without them the launcher moves in.
    for extra in [&[][..], &["-x"][..]] {
        let rules: Vec<&str> = ["-C", dir_text].iter().copied().chain(extra.iter().copied()).collect();
        let output = run(&rules, "grep '^0::' /proc/self/cgroup; sh -c \"grep '^0::' /proc/self/cgroup\"");
        assert!(output.status.success(), "{extra:?}: {}", String::from_utf8_lossy(&output.stderr));
        assert_eq!(stdout(&output), format!("0::{relative}\n0::{relative}"), "{extra:?}");
    }
    std::fs::remove_dir(&dir).unwrap();
}

#[test]
fn contain_starts_a_command_unconfined_in_its_cgroup() {
    let dir = scratch("contain");
    let file = dir.join("written");
    let script = format!("grep '^0::' /proc/self/cgroup; sh -c \"grep '^0::' /proc/self/cgroup\"; echo mine > {}; exit 4", file.display());
    let cgroup = own_cgroup("contain");
    let mut command = Command::new(LAUNCHER);
    command.arg("--contain");
    if let Some((path, _)) = &cgroup {
        command.args(["-C", path.to_str().unwrap()]);
    }
    let output = command.args(["-D", "--", "sh", "-c", &script]).output().unwrap();
    // Nothing confined: it writes where no rule allowed it; its status is passed through.
    assert_eq!(output.status.code(), Some(4), "{output:?}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine\n");
    if let Some((path, relative)) = cgroup {
        assert_eq!(stdout(&output), format!("0::{relative}\n0::{relative}"));
        std::fs::remove_dir(&path).unwrap();
    }
    let killed = Command::new(LAUNCHER).args(["--contain", "--", "sh", "-c", "kill -TERM $$"]).output().unwrap();
    assert_eq!(killed.status.signal(), Some(libc::SIGTERM));
    let refused = Command::new(LAUNCHER).args(["--contain", "-w", "/", "--", "true"]).output().unwrap();
    assert_eq!(refused.status.code(), Some(125));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--contain takes -C DIR and -D only"), "{refused:?}");
}
