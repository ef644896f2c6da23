//! A small seccomp filter for what Landlock does not cover: sockets other than TCP (UDP, raw,
//! netlink…) when the network is off, and the ways out of a sandbox (ptrace, namespaces, mounts,
//! io_uring, which runs socket operations without passing this filter). Written as BPF by hand: it
//! is a straight list of comparisons, and linking Debian's libseccomp statically would need its
//! -dev package on every build machine for no more than this.

const RET_ALLOW: u32 = 0x7fff_0000;
const RET_ERRNO: u32 = 0x0005_0000;
const LD_W_ABS: u16 = 0x20;
const JEQ_K: u16 = 0x15;
const JGE_K: u16 = 0x35;
const JSET_K: u16 = 0x45;
const RET_K: u16 = 0x06;
const AND_K: u16 = 0x54;
const SECCOMP_SET_MODE_FILTER: libc::c_uint = 1;

/// Offsets in `struct seccomp_data`: the syscall number, the arch, the first argument's low half.
const NR: u32 = 0;
const ARCH: u32 = 4;
const ARG0: u32 = 16;
const ARG1: u32 = 24;

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;

/// clone flags that make new namespaces.
const NAMESPACE_FLAGS: u32 = (libc::CLONE_NEWNS | libc::CLONE_NEWUTS | libc::CLONE_NEWIPC | libc::CLONE_NEWUSER | libc::CLONE_NEWPID | libc::CLONE_NEWNET | libc::CLONE_NEWCGROUP) as u32;

const DENIED: &[libc::c_long] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_open_tree,
    libc::SYS_move_mount,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_userfaultfd,
    libc::SYS_reboot,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_acct,
];

#[derive(Clone, Copy)]
enum Target {
    Next,
    Deny,
    Allow,
    NoSys,
    CheckClone,
    CheckSocket,
    CheckStream,
}

struct Insn {
    code: u16,
    k: u32,
    jt: Target,
    jf: Target,
}

fn load(offset: u32) -> Insn {
    Insn { code: LD_W_ABS, k: offset, jt: Target::Next, jf: Target::Next }
}

fn jump(code: u16, k: u32, jt: Target) -> Insn {
    Insn { code, k, jt, jf: Target::Next }
}

fn ret(k: u32) -> Insn {
    Insn { code: RET_K, k, jt: Target::Next, jf: Target::Next }
}

/// `tcp`: TCP sockets allowed too (Landlock then decides which ports they may reach).
pub fn program(network_open: bool, tcp: bool) -> Vec<libc::sock_filter> {
    let mut insns = vec![load(ARCH), Insn { code: JEQ_K, k: AUDIT_ARCH, jt: Target::Next, jf: Target::Deny }, load(NR)];
    #[cfg(target_arch = "x86_64")]
    insns.push(jump(JGE_K, 0x4000_0000, Target::Deny)); // the x32 ABI's numbers
    insns.extend(DENIED.iter().map(|&nr| jump(JEQ_K, nr as u32, Target::Deny)));
    insns.push(jump(JEQ_K, libc::SYS_clone as u32, Target::CheckClone));
    // ENOSYS makes the C library fall back to clone, whose flags this filter can read.
    insns.push(jump(JEQ_K, libc::SYS_clone3 as u32, Target::NoSys));
    if !network_open {
        insns.push(jump(JEQ_K, libc::SYS_socket as u32, Target::CheckSocket));
        insns.push(jump(JEQ_K, libc::SYS_socketpair as u32, Target::CheckSocket));
    }
    let mut labels = std::collections::HashMap::new();
    let mut place = |insns: &mut Vec<Insn>, name: &'static str, block: Vec<Insn>| {
        labels.insert(name, insns.len());
        insns.extend(block);
    };
    insns.push(ret(RET_ALLOW));
    // BPF jumps only forward: the argument checks come first, the shared returns last.
    place(&mut insns, "clone", vec![load(ARG0), jump(JSET_K, NAMESPACE_FLAGS, Target::Deny), ret(RET_ALLOW)]);
    // Only AF_UNIX sockets when the network is off: local IPC keeps working, nothing leaves. With
    // allowed ports, TCP too (stream sockets only: Landlock rules cover TCP, not UDP or raw).
    let socket = if tcp {
        vec![
            load(ARG0),
            jump(JEQ_K, libc::AF_UNIX as u32, Target::Allow),
            jump(JEQ_K, libc::AF_INET as u32, Target::CheckStream),
            Insn { code: JEQ_K, k: libc::AF_INET6 as u32, jt: Target::CheckStream, jf: Target::Deny },
        ]
    } else {
        vec![load(ARG0), Insn { code: JEQ_K, k: libc::AF_UNIX as u32, jt: Target::Allow, jf: Target::Deny }]
    };
    place(&mut insns, "socket", socket);
    // The type argument carries SOCK_NONBLOCK/SOCK_CLOEXEC above its low four bits.
    place(&mut insns, "stream", vec![load(ARG1), Insn { code: AND_K, k: 0xf, jt: Target::Next, jf: Target::Next }, Insn { code: JEQ_K, k: libc::SOCK_STREAM as u32, jt: Target::Allow, jf: Target::Deny }]);
    place(&mut insns, "allow", vec![ret(RET_ALLOW)]);
    place(&mut insns, "deny", vec![ret(RET_ERRNO | libc::EPERM as u32)]);
    place(&mut insns, "nosys", vec![ret(RET_ERRNO | libc::ENOSYS as u32)]);
    let offset = |from: usize, target: Target| -> u8 {
        let to = match target {
            Target::Next => return 0,
            Target::Allow => labels["allow"],
            Target::Deny => labels["deny"],
            Target::NoSys => labels["nosys"],
            Target::CheckClone => labels["clone"],
            Target::CheckSocket => labels["socket"],
            Target::CheckStream => labels["stream"],
        };
        u8::try_from(to - from - 1).expect("seccomp jump within 255 instructions")
    };
    insns
        .iter()
        .enumerate()
        .map(|(i, insn)| libc::sock_filter { code: insn.code, jt: offset(i, insn.jt), jf: offset(i, insn.jf), k: insn.k })
        .collect()
}

/// Installs the filter; no-new-privs must already be set (landlock::restrict sets it).
pub fn install(network_open: bool, tcp: bool) -> Result<(), String> {
    let filter = program(network_open, tcp);
    let prog = libc::sock_fprog { len: filter.len() as u16, filter: filter.as_ptr() as *mut libc::sock_filter };
    let done = unsafe { libc::syscall(libc::SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0u32, &prog as *const libc::sock_fprog) };
    if done != 0 {
        return Err(format!("seccomp: {}", std::io::Error::last_os_error()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jumps_stay_inside_the_program() {
        for (open, tcp) in [(false, false), (false, true), (true, false)] {
            let filter = program(open, tcp);
            for (i, insn) in filter.iter().enumerate().filter(|(_, insn)| insn.code & 0x07 == 0x05) {
                assert!(i + 1 + (insn.jt as usize) < filter.len() && i + 1 + (insn.jf as usize) < filter.len());
            }
            assert_eq!(filter.last().unwrap().code, RET_K);
        }
    }
}
