//! Landlock through raw syscalls (Debian has no Landlock crate): one ruleset holding the
//! filesystem grants, walked around the denied paths, and the TCP ports, then restrict_self.
//!
//! Landlock only allows; it cannot carve a denied dir out of a granted tree. So a tree with a
//! denied path inside is not granted whole: its dir gets the right to be listed, and each of its
//! entries is granted in turn the same way, down to the denied ones, which get nothing. The costs:
//! one rule per entry of each dir above a denied path (a few dozen for a usual home, thousands for
//! a home inside a busy /tmp, as in tests), and in a writable dir that holds a denied path (that
//! home inside /tmp) new entries can be made only in its subdirs, not in it directly. All the
//! trees are walked at once, so such a dir is listed once and each entry gets a single rule, made
//! through its name in the dir (one open and the rule: no stat, no path resolved from /).

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::policy::{Deny, Policy};
use crate::resolve::canonical;

const CREATE_RULESET_VERSION: u32 = 1;
const RULE_PATH_BENEATH: libc::c_int = 1;
const RULE_NET_PORT: libc::c_int = 2;

const EXECUTE: u64 = 1 << 0;
const WRITE_FILE: u64 = 1 << 1;
const READ_FILE: u64 = 1 << 2;
const READ_DIR: u64 = 1 << 3;
const REMOVE_DIR: u64 = 1 << 4;
const REMOVE_FILE: u64 = 1 << 5;
const MAKE_CHAR: u64 = 1 << 6;
const MAKE_DIR: u64 = 1 << 7;
const MAKE_REG: u64 = 1 << 8;
const MAKE_SOCK: u64 = 1 << 9;
const MAKE_FIFO: u64 = 1 << 10;
const MAKE_BLOCK: u64 = 1 << 11;
const MAKE_SYM: u64 = 1 << 12;
const REFER: u64 = 1 << 13;
const TRUNCATE: u64 = 1 << 14;

const NET_BIND_TCP: u64 = 1 << 0;
const NET_CONNECT_TCP: u64 = 1 << 1;
const SCOPE_ABSTRACT_UNIX_SOCKET: u64 = 1 << 0;
const SCOPE_SIGNAL: u64 = 1 << 1;

/// Rights that make sense on a file rather than a dir (the kernel refuses the others there).
const FILE_RIGHTS: u64 = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE;
const READ: u64 = EXECUTE | READ_FILE | READ_DIR;
const WRITE: u64 = WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO | MAKE_BLOCK | MAKE_SYM | REFER | TRUNCATE;

#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
    handled_access_net: u64,
    scoped: u64,
}

#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

#[repr(C)]
struct NetPortAttr {
    allowed_access: u64,
    port: u64,
}

/// The Landlock ABI version the kernel offers, 0 when it has none (or it is disabled).
pub fn abi() -> i64 {
    let version = unsafe { libc::syscall(libc::SYS_landlock_create_ruleset, std::ptr::null::<RulesetAttr>(), 0usize, CREATE_RULESET_VERSION) };
    version.max(0) as i64
}

fn handled_fs(abi: i64) -> u64 {
    let mut rights = READ | (WRITE & !(REFER | TRUNCATE));
    if abi >= 2 {
        rights |= REFER;
    }
    if abi >= 3 {
        rights |= TRUNCATE;
    }
    rights
}

struct Ruleset {
    fd: libc::c_int,
    handled: u64,
}

impl Ruleset {
    fn add_path(&self, fd: libc::c_int, is_dir: bool, access: u64) -> Result<(), String> {
        let mut allowed = access & self.handled;
        if !is_dir {
            allowed &= FILE_RIGHTS;
        }
        if allowed == 0 {
            return Ok(());
        }
        let attr = PathBeneathAttr { allowed_access: allowed, parent_fd: fd };
        let done = unsafe { libc::syscall(libc::SYS_landlock_add_rule, self.fd, RULE_PATH_BENEATH, &attr as *const PathBeneathAttr, 0u32) };
        if done != 0 {
            return Err(format!("landlock_add_rule: {}", std::io::Error::last_os_error()));
        }
        Ok(())
    }

    fn add_port(&self, port: u16) -> Result<(), String> {
        let attr = NetPortAttr { allowed_access: NET_CONNECT_TCP, port: port as u64 };
        let done = unsafe { libc::syscall(libc::SYS_landlock_add_rule, self.fd, RULE_NET_PORT, &attr as *const NetPortAttr, 0u32) };
        if done != 0 {
            return Err(format!("landlock_add_rule (port {port}): {}", std::io::Error::last_os_error()));
        }
        Ok(())
    }
}

/// An O_PATH handle on `path` (following symlinks) and whether it is a dir; None when it is gone.
fn open_path(path: &Path) -> Option<(libc::c_int, bool)> {
    let c_path = CString::new(path.as_os_str().as_bytes()).ok()?;
    let fd = unsafe { libc::open(c_path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
    if fd < 0 {
        return None;
    }
    match fd_is_dir(fd) {
        Some(is_dir) => Some((fd, is_dir)),
        None => {
            unsafe { libc::close(fd) };
            None
        }
    }
}

fn fd_is_dir(fd: libc::c_int) -> Option<bool> {
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut stat) } != 0 {
        return None;
    }
    Some(stat.st_mode & libc::S_IFMT == libc::S_IFDIR)
}

/// A tree granted: `access` on it and all below, `above_denied` on a dir of it that holds a denied path.
struct Grant {
    root: PathBuf,
    access: u64,
    above_denied: u64,
}

struct Walk<'a> {
    ruleset: &'a Ruleset,
    deny: &'a [Deny],
    grants: &'a [Grant],
    /// Roots already reached by the walk of a tree above them.
    reached: std::cell::RefCell<Vec<bool>>,
}

/// What a dir holding a denied path says about each of its entries, worked out once for the dir
/// rather than once per entry (a home inside a busy /tmp has thousands).
struct DirDeny<'a> {
    /// Deny rules naming an entry of this dir.
    here: Vec<&'a Deny>,
    /// Names of entries with a denied path somewhere below them.
    leading: Vec<Vec<u8>>,
}

impl DirDeny<'_> {
    fn denied(&self, name: &[u8]) -> bool {
        self.here.iter().any(|d| if d.prefix { name.starts_with(&d.name) } else { name == d.name.as_slice() })
    }

    fn leads_to_denied(&self, name: &[u8]) -> bool {
        self.leading.iter().any(|leading| leading.as_slice() == name)
    }
}

impl Walk<'_> {
    fn denied(&self, path: &Path) -> bool {
        match (path.parent(), path.file_name()) {
            (Some(dir), Some(name)) => self.deny.iter().any(|d| d.matches(dir, name.as_bytes())),
            _ => false,
        }
    }

    /// Whether a denied path lies strictly inside `path`.
    fn holds_denied(&self, path: &Path) -> bool {
        self.deny.iter().any(|d| d.dir.starts_with(path))
    }

    fn dir_deny(&self, dir: &Path) -> DirDeny<'_> {
        let here = self.deny.iter().filter(|d| d.dir == dir).collect();
        let mut leading: Vec<Vec<u8>> = Vec::new();
        for d in self.deny {
            if let Ok(rest) = d.dir.strip_prefix(dir) {
                if let Some(first) = rest.components().next() {
                    let name = first.as_os_str().as_bytes().to_vec();
                    if !leading.contains(&name) {
                        leading.push(name);
                    }
                }
            }
        }
        DirDeny { here, leading }
    }

    /// The grants in `active` plus those rooted at `path` (marked reached).
    fn active_at(&self, path: &Path, active: &[usize]) -> Vec<usize> {
        let mut now = active.to_vec();
        for (index, grant) in self.grants.iter().enumerate() {
            if grant.root == path && !now.contains(&index) {
                now.push(index);
                self.reached.borrow_mut()[index] = true;
            }
        }
        now
    }

    fn rights(&self, active: &[usize], holds: bool) -> u64 {
        active.iter().map(|&i| if holds { self.grants[i].above_denied } else { self.grants[i].access }).fold(0, |all, rights| all | rights)
    }

    /// Grants `path` (canonical) what the `active` grants give it, going around denied paths: a dir
    /// that holds one gets their `above_denied` rights and each of its entries is granted in turn.
    fn grant(&self, path: &Path, active: &[usize], depth: u32) -> Result<(), String> {
        if depth > 64 || self.denied(path) {
            return Ok(());
        }
        let Some((fd, is_dir)) = open_path(path) else { return Ok(()) };
        let active = self.active_at(path, active);
        let holds = is_dir && self.holds_denied(path);
        let added = self.ruleset.add_path(fd, is_dir, self.rights(&active, holds));
        let result = match added {
            Ok(()) if holds => self.grant_entries(path, fd, &active, depth),
            other => other,
        };
        unsafe { libc::close(fd) };
        result
    }

    /// Each entry of `dir` (open as `dir_fd`), which holds a denied path. An entry with nothing
    /// denied below it is granted whole through its name in the dir: one open, no stat (its type
    /// is the dir entry's), no path to resolve.
    fn grant_entries(&self, dir: &Path, dir_fd: libc::c_int, active: &[usize], depth: u32) -> Result<(), String> {
        let Ok(entries) = std::fs::read_dir(dir) else { return Ok(()) };
        let dir_deny = self.dir_deny(dir);
        let leaf_rights = self.rights(active, false);
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.as_bytes();
            if dir_deny.denied(name) {
                continue;
            }
            let file_type = entry.file_type().ok();
            if file_type.is_some_and(|t| t.is_symlink()) {
                // A link is granted as what it points to, so a link to a denied dir (or to /) grants nothing it should not.
                let Some(target) = canonical(&entry.path()) else { continue };
                if self.denied(&target) || self.holds_denied(&target) {
                    continue;
                }
                self.grant(&target, active, depth + 1)?;
            } else if dir_deny.leads_to_denied(name) || file_type.is_none() {
                self.grant(&entry.path(), active, depth + 1)?;
            } else if depth < 64 {
                self.grant_leaf(dir_fd, name, file_type.is_some_and(|t| t.is_dir()), leaf_rights)?;
            }
        }
        Ok(())
    }

    /// An entry with no denied path below it. Not following links: one made since the dir was
    /// listed is granted nothing beyond itself. Should its type have changed since, the rule is
    /// made again for what it is now.
    fn grant_leaf(&self, dir_fd: libc::c_int, name: &[u8], is_dir: bool, access: u64) -> Result<(), String> {
        let Ok(c_name) = CString::new(name) else { return Ok(()) };
        let fd = unsafe { libc::openat(dir_fd, c_name.as_ptr(), libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC) };
        if fd < 0 {
            return Ok(());
        }
        let mut added = self.ruleset.add_path(fd, is_dir, access);
        if added.is_err() {
            if let Some(now_dir) = fd_is_dir(fd) {
                if now_dir != is_dir {
                    added = self.ruleset.add_path(fd, now_dir, access);
                }
            }
        }
        unsafe { libc::close(fd) };
        added
    }
}

/// Each denied path's dir resolved once: most share one (the home dir), and resolving walks every
/// component of it (a readlink each), for every command.
fn canonical_deny(deny: &[Deny]) -> Vec<Deny> {
    let mut resolved: std::collections::HashMap<&Path, PathBuf> = std::collections::HashMap::new();
    deny.iter()
        .map(|d| {
            let dir = resolved.entry(d.dir.as_path()).or_insert_with(|| canonical(&d.dir).unwrap_or_else(|| d.dir.clone())).clone();
            Deny { dir, ..d.clone() }
        })
        .collect()
}

/// The trees the policy grants: readable ones, and writable ones (readable too, unless inside a
/// readable tree already). Nothing for the dir above a denied path in a writable tree itself: a
/// right on a dir holds for all below it, so even "make files here" would reach into the denied
/// dirs (and a home inside /tmp).
fn grants(policy: &Policy) -> Vec<Grant> {
    let read: Vec<PathBuf> = policy.read.iter().filter_map(|path| canonical(path)).collect();
    let mut grants: Vec<Grant> = read.iter().map(|root| Grant { root: root.clone(), access: READ, above_denied: READ_DIR }).collect();
    for path in policy.write.iter().filter_map(|path| canonical(path)) {
        let readable = read.iter().any(|root| path.starts_with(root));
        grants.push(Grant { root: path, access: WRITE | if readable { 0 } else { READ }, above_denied: if readable { 0 } else { READ_DIR } });
    }
    grants
}

/// Builds the ruleset from `policy` and restricts this process (and what it execs) to it.
pub fn restrict(policy: &Policy) -> Result<(), String> {
    let abi = abi();
    if abi < 1 {
        return Err("this kernel has no Landlock (or it is disabled): refusing to run the command unsandboxed".into());
    }
    let handled = handled_fs(abi);
    let net = !policy.network_open && abi >= 4;
    let mut scoped = 0;
    if abi >= 6 {
        scoped = SCOPE_SIGNAL | if policy.network_open { 0 } else { SCOPE_ABSTRACT_UNIX_SOCKET };
    }
    let attr = RulesetAttr { handled_access_fs: handled, handled_access_net: if net { NET_BIND_TCP | NET_CONNECT_TCP } else { 0 }, scoped };
    let size = match abi {
        1..=3 => 8,
        4 | 5 => 16,
        _ => std::mem::size_of::<RulesetAttr>(),
    };
    let fd = unsafe { libc::syscall(libc::SYS_landlock_create_ruleset, &attr as *const RulesetAttr, size, 0u32) };
    if fd < 0 {
        return Err(format!("landlock_create_ruleset: {}", std::io::Error::last_os_error()));
    }
    let ruleset = Ruleset { fd: fd as libc::c_int, handled };
    let deny = canonical_deny(&policy.deny);
    let grants = grants(policy);
    // One walk for all the trees, ancestors first: a dir above a denied path is listed once, and
    // each of its entries gets one rule with the rights of every tree it is in.
    let mut order: Vec<usize> = (0..grants.len()).collect();
    order.sort_by_key(|&i| grants[i].root.as_os_str().len());
    let walk = Walk { ruleset: &ruleset, deny: &deny, grants: &grants, reached: std::cell::RefCell::new(vec![false; grants.len()]) };
    for index in order {
        if !walk.reached.borrow()[index] {
            walk.grant(&grants[index].root, &[], 0)?;
        }
    }
    if net {
        for &port in &policy.connect_ports {
            ruleset.add_port(port)?;
        }
    }
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(format!("prctl(PR_SET_NO_NEW_PRIVS): {}", std::io::Error::last_os_error()));
    }
    let done = unsafe { libc::syscall(libc::SYS_landlock_restrict_self, ruleset.fd, 0u32) };
    unsafe { libc::close(ruleset.fd) };
    if done != 0 {
        return Err(format!("landlock_restrict_self: {}", std::io::Error::last_os_error()));
    }
    Ok(())
}
