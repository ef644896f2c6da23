//! The launcher's command line, parsed into rules.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

#[derive(Debug, Default)]
pub struct Policy {
    pub read: Vec<PathBuf>,
    pub write: Vec<PathBuf>,
    pub deny: Vec<Deny>,
    pub connect_ports: Vec<u16>,
    pub network_open: bool,
    /// In a network namespace of its own (loopback only): sockets and ports are free inside it.
    pub private_loopback: bool,
    /// The session's loopback network to join instead: the holder's pid and the namespace's inode.
    pub join_net: Option<(u32, u64)>,
    /// Paths made read-only even inside a writable tree (the workspace's protected paths).
    pub protect: Vec<PathBuf>,
    /// Dirs kept where they are (bound onto themselves, so they cannot be renamed or removed): the
    /// git dirs, which a command could otherwise move aside and replace with one of its own.
    pub pin: Vec<PathBuf>,
    /// Pathname Unix sockets (or dirs of them) left reachable; all others are covered.
    pub allow_sockets: Vec<PathBuf>,
    /// No PID and mount namespaces (where user namespaces are unavailable): other processes and
    /// sockets stay visible, protected paths writable.
    pub no_namespaces: bool,
    /// The cgroup (v2) dir that holds all the command starts (omp's containment; what
    /// `sh -c 'echo $$ > cgroup.procs'` did): the init is born in it, or the launcher moves into it.
    pub cgroup: Option<PathBuf>,
    /// SIGKILL when omp dies (what `setpriv --pdeathsig KILL` did).
    pub parent_death: bool,
}

/// A denied path: `name` in `dir`, or every name in `dir` starting with `name` when `prefix`.
#[derive(Debug, Clone)]
pub struct Deny {
    pub dir: PathBuf,
    pub name: Vec<u8>,
    pub prefix: bool,
}

impl Deny {
    fn parse(path: &[u8]) -> Result<Deny, String> {
        let text = String::from_utf8_lossy(path).into_owned();
        let (path, prefix) = match path.strip_suffix(b"*") {
            Some(stem) => (stem, true),
            None => (path, false),
        };
        let split = path.iter().rposition(|&b| b == b'/').filter(|_| path.first() == Some(&b'/'));
        let split = split.ok_or_else(|| format!("-d wants an absolute path, got {text:?}"))?;
        let dir = if split == 0 { b"/".as_slice() } else { &path[..split] };
        let name = path[split + 1..].to_vec();
        if name.is_empty() && !prefix {
            return Err(format!("-d wants a path below /, got {text:?}"));
        }
        Ok(Deny { dir: PathBuf::from(std::ffi::OsStr::from_bytes(dir)), name, prefix })
    }

    pub fn matches(&self, dir: &std::path::Path, name: &[u8]) -> bool {
        dir == self.dir && if self.prefix { name.starts_with(&self.name) } else { name == self.name.as_slice() }
    }
}

pub fn parse(args: Vec<OsString>) -> Result<(Policy, Vec<OsString>), String> {
    let mut policy = Policy::default();
    let mut rest = args.into_iter();
    while let Some(arg) = rest.next() {
        let flag = arg.as_bytes();
        match flag {
            b"--" => {
                let command: Vec<OsString> = rest.collect();
                if command.is_empty() {
                    return Err("no command after --".into());
                }
                return Ok((policy, command));
            }
            b"-n" => policy.network_open = true,
            b"-x" => policy.no_namespaces = true,
            b"-D" => policy.parent_death = true,
            b"-l" => {
                policy.private_loopback = true;
                policy.network_open = true;
            }
            b"-r" | b"-w" | b"-d" | b"-p" | b"-P" | b"-K" | b"-s" | b"-L" | b"-C" => {
                let value = rest.next().ok_or_else(|| format!("{} wants a value", arg.to_string_lossy()))?;
                match flag {
                    b"-r" => policy.read.push(PathBuf::from(value)),
                    b"-w" => policy.write.push(PathBuf::from(value)),
                    b"-d" => policy.deny.push(Deny::parse(value.as_bytes())?),
                    b"-P" => policy.protect.push(PathBuf::from(value)),
                    b"-K" => policy.pin.push(PathBuf::from(value)),
                    b"-s" => policy.allow_sockets.push(PathBuf::from(value)),
                    b"-C" => policy.cgroup = Some(PathBuf::from(value)),
                    b"-L" => {
                        let parsed = value.to_str().and_then(|v| v.split_once(':')).and_then(|(pid, ino)| Some((pid.parse().ok()?, ino.parse().ok()?)));
                        policy.join_net = Some(parsed.ok_or_else(|| format!("-L wants PID:INODE, got {value:?}"))?);
                        policy.network_open = true;
                    }
                    _ => policy.connect_ports.push(
                        value.to_str().and_then(|v| v.parse().ok()).ok_or_else(|| format!("-p wants a TCP port, got {value:?}"))?,
                    ),
                }
            }
            _ => return Err(format!("unknown option {:?} (usage: omp-sandbox [-r|-w|-d|-P|-K|-s PATH] [-p PORT] [-n|-l|-L PID:INODE] [-x] [-C CGROUP] [-D] -- command…)", arg)),
        }
    }
    Err("no command: end the rules with -- and the command".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn parses_rules_and_command() {
        let (policy, command) = parse(args(&["-r", "/", "-w", "/tmp", "-d", "/h/.ssh", "-d", "/h/.omp/agent.db*", "-p", "8080", "--", "true"])).unwrap();
        assert_eq!(policy.read, vec![PathBuf::from("/")]);
        assert_eq!(policy.write, vec![PathBuf::from("/tmp")]);
        assert_eq!(policy.connect_ports, vec![8080]);
        assert!(policy.deny[1].prefix && policy.deny[1].matches(std::path::Path::new("/h/.omp"), b"agent.db-wal"));
        assert!(!policy.deny[0].matches(std::path::Path::new("/h"), b".sshd"));
        assert_eq!(command, args(&["true"]));
        let (policy, _) = parse(args(&["-P", "/w/.git/config", "-s", "/run/agent.sock", "-L", "42:4026532", "--", "true"])).unwrap();
        assert_eq!(policy.protect, vec![PathBuf::from("/w/.git/config")]);
        assert_eq!(policy.allow_sockets, vec![PathBuf::from("/run/agent.sock")]);
        assert!(policy.join_net == Some((42, 4026532)) && policy.network_open);
        assert!(policy.cgroup.is_none() && !policy.parent_death);
        let (policy, _) = parse(args(&["-C", "/sys/fs/cgroup/omp-1", "-D", "--", "true"])).unwrap();
        assert_eq!(policy.cgroup, Some(PathBuf::from("/sys/fs/cgroup/omp-1")));
        assert!(policy.parent_death);
    }

    #[test]
    fn refuses_bad_input() {
        assert!(parse(args(&["-d", "relative", "--", "true"])).is_err());
        assert!(parse(args(&["-p", "http", "--", "true"])).is_err());
        assert!(parse(args(&["-r", "/"])).is_err());
        assert!(parse(args(&["-L", "42", "--", "true"])).is_err());
    }
}
