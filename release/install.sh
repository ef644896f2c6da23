#!/bin/sh
# Installs omp, a coding agent for your terminal (https://omp.sh).
#
#   curl -fsSL https://omp.sh/releases/install.sh | sh
#   curl -fsSL https://omp.sh/releases/install.sh | sh -s -- --modify-path
#   sh install.sh --archive omp-<version>-<target>-offline.tar.gz     # no network needed
#
# Options:
#   --archive <path>   install from an offline bundle, a release archive (with SHA256SUMS and
#                      SHA256SUMS.sig beside it) or an unpacked bundle directory; no downloads
#   --modify-path      add the install dir to PATH in your shell's startup files
#   --uninstall        remove omp from the install dir (and the PATH lines --modify-path added)
#   --yes, -y          do not ask: confirm --uninstall, replace a non-omp file at the install path
#   --force            install a version older than the one installed (a downgrade)
#   --allow-unsigned   without openssl >= 1.1.1, install after checking only the sha256
#   --print-target     print the build this machine needs and exit
#   --help, -h
#
# Environment:
#   OMP_VERSION        the version to install (default: the newest on the channel)
#   OMP_CHANNEL        stable (default) or canary
#   OMP_INSTALL_DIR    where omp goes (default ~/.local/bin)
#   OMP_DOWNLOAD_URL   the release server, e.g. a mirror (default https://omp.sh/releases)
#
# Everything is downloaded into a temporary directory and verified there: the Ed25519 signature of
# SHA256SUMS with the release key below, then the sha256 of each file. The new omp is copied next to
# the old one, run once, and renamed over it, so a failed or interrupted run leaves the previous
# install as it was. Never needs root.

# The release public key (Ed25519, SPKI DER in base64); release/build.ts writes the signing key's.
OMP_RELEASE_PUBKEY='MCowBQYDK2VwAyEASBaC3tn4F7LuED+5nPw7tRfrSkoUZwIOvZibQKS/D9Y='
OMP_DEFAULT_URL='https://omp.sh/releases'

# The work happens in main, called on the last line, so a truncated download executes nothing.
set -u

PATH_MARKER='# added by the omp installer'

say() {
    printf 'omp-install: %s\n' "$*" >&2
}

die() {
    say "error: $*"
    exit 1
}

usage() {
    sed -n '2,25s/^# \{0,1\}//p' "$0" 2>/dev/null || true
    printf '%s\n' "Usage: install.sh [--archive <path>] [--modify-path] [--uninstall] [--yes] [--force] [--allow-unsigned] [--print-target]"
}

have() {
    command -v "$1" >/dev/null 2>&1
}

cleanup() {
    if [ -n "${work_dir:-}" ] && [ -d "$work_dir" ]; then rm -rf "$work_dir"; fi
    if [ -n "${staged:-}" ] && [ -f "$staged" ]; then rm -f "$staged"; fi
}

# The staged binary and temp dir of an install.sh that was killed (SIGKILL, power loss): their
# names carry its pid, and a pid that is gone cannot be working on them any more.
sweep_leftovers() {
    for leftover in "$install_dir"/.omp.install.* "${TMPDIR:-/tmp}"/omp-install.*; do
        [ -e "$leftover" ] || continue
        pid=${leftover##*/}
        pid=${pid#.omp.install.}
        pid=${pid#omp-install.}
        pid=${pid%%.*}
        case "$pid" in '' | *[!0-9]*) continue ;; esac
        if [ "$pid" != $$ ] && ! kill -0 "$pid" 2>/dev/null && [ -O "$leftover" ]; then rm -rf "$leftover"; fi
    done
}

# ---- what to install ----------------------------------------------------------------------------

detect_target() {
    os=$(uname -s)
    arch=$(uname -m)
    case "$os" in
        Linux) os=linux ;;
        Darwin) os=darwin ;;
        MINGW* | MSYS* | CYGWIN* | Windows_NT) die "on Windows, download omp-windows-x64.exe from $base_url (install.sh is for Linux and macOS)" ;;
        *) die "omp has no builds for $os" ;;
    esac
    case "$arch" in
        x86_64 | amd64) arch=x64 ;;
        aarch64 | arm64) arch=arm64 ;;
        *) die "omp has no builds for $os on $arch" ;;
    esac
    target="$os-$arch"
    if [ "$os" = darwin ]; then
        if [ "$arch" = x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null)" = 1 ]; then
            say "this shell runs under Rosetta 2: installing the native arm64 build"
            target=darwin-arm64
        fi
        return 0
    fi
    libc=glibc
    if ldd --version 2>&1 | grep -qi musl || [ -f /etc/alpine-release ]; then libc=musl; fi
    avx2=yes
    if [ "$arch" = x64 ] && [ -r /proc/cpuinfo ] && ! grep '^flags' /proc/cpuinfo | grep -qw avx2; then avx2=no; fi
    if [ "$libc" = musl ]; then
        [ "$avx2" = yes ] || die "this CPU lacks AVX2 and there is no musl build of omp for it; use a glibc system"
        target="$target-musl"
    elif [ "$avx2" = no ]; then
        say "this CPU lacks AVX2: installing the baseline build"
        target="$target-baseline"
    fi
}

# Prints -1, 0 or 1 as $1 ranks below, equal to or above $2 in semver order (a release above its
# pre-releases, build metadata ignored), as omp update compares them.
version_cmp() {
    awk -v a="$1" -v b="$2" '
        function ids(x, y,   xs, ys, nx, ny, i, xn, yn) {
            nx = split(x, xs, "."); ny = split(y, ys, ".")
            for (i = 1; i <= nx && i <= ny; i++) {
                xn = xs[i] ~ /^[0-9]+$/; yn = ys[i] ~ /^[0-9]+$/
                if (xn && yn) { if (xs[i] + 0 != ys[i] + 0) return xs[i] + 0 < ys[i] + 0 ? -1 : 1 }
                else if (xn != yn) return xn ? -1 : 1
                else if (xs[i] != ys[i]) return xs[i] < ys[i] ? -1 : 1
            }
            return nx == ny ? 0 : (nx < ny ? -1 : 1)
        }
        function core(v) { sub(/[-+].*/, "", v); return v }
        function pre(v) { sub(/\+.*/, "", v); return index(v, "-") ? substr(v, index(v, "-") + 1) : "" }
        BEGIN {
            r = ids(core(a), core(b)); pa = pre(a); pb = pre(b)
            if (r == 0 && pa != pb) r = pa == "" ? 1 : (pb == "" ? -1 : ids(pa, pb))
            print r
        }'
}

check_version_text() {
    case "$1" in
        '' | *[!0-9A-Za-z.+-]* | [!0-9]*) die "not a version: '$1' (expected something like 1.2.3)" ;;
    esac
}

# ---- downloads ----------------------------------------------------------------------------------

fetch_once() {
    if have curl; then
        case "$1" in
            https://*) curl --proto '=https' --tlsv1.2 --fail --silent --show-error --location --connect-timeout 30 --speed-limit 1 --speed-time 60 --output "$2" "$1" ;;
            *) curl --fail --silent --show-error --location --connect-timeout 30 --speed-limit 1 --speed-time 60 --output "$2" "$1" ;;
        esac
    elif have wget; then
        wget -q -T 60 -O "$2" "$1"
    else
        die "neither curl nor wget is installed; install one, or use --archive with an offline bundle"
    fi
}

download() {
    attempt=1
    while :; do
        if fetch_once "$1" "$2"; then return 0; fi
        if [ "$attempt" -ge 3 ]; then
            rm -f "$2"
            die "could not download $1 after 3 attempts (check the network, a proxy in https_proxy/http_proxy, or OMP_DOWNLOAD_URL)"
        fi
        say "downloading $1 failed (attempt $attempt of 3); retrying"
        sleep "$attempt"
        attempt=$((attempt + 1))
    done
}

channel_version() {
    download "$base_url/channels/$channel.json" "$work_dir/channel.json"
    sed -n 's/.*"version"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' "$work_dir/channel.json" | head -n 1
}

# ---- verification -------------------------------------------------------------------------------

sha256_of() {
    if have sha256sum; then
        sha256sum "$1" | cut -d ' ' -f 1
    elif have shasum; then
        shasum -a 256 "$1" | cut -d ' ' -f 1
    elif have openssl; then
        openssl dgst -sha256 -r "$1" | cut -d ' ' -f 1
    else
        die "no sha256 tool (sha256sum, shasum or openssl) to verify the download with"
    fi
}

# openssl verifies raw Ed25519 signatures from 1.1.1 on; older ones and LibreSSL lack -rawin.
have_verifier() {
    have openssl && openssl pkeyutl -help 2>&1 | grep -q -- '-rawin'
}

verify_sums() {
    sums_dir=$1
    [ -f "$sums_dir/SHA256SUMS" ] || die "SHA256SUMS is missing (expected in $sums_dir)"
    [ -f "$sums_dir/SHA256SUMS.sig" ] || die "SHA256SUMS.sig is missing (expected in $sums_dir)"
    if have_verifier; then
        {
            printf '%s\n' '-----BEGIN PUBLIC KEY-----'
            printf '%s\n' "$OMP_RELEASE_PUBKEY"
            printf '%s\n' '-----END PUBLIC KEY-----'
        } >"$work_dir/release.pub"
        if ! openssl pkeyutl -verify -pubin -inkey "$work_dir/release.pub" -rawin -in "$sums_dir/SHA256SUMS" -sigfile "$sums_dir/SHA256SUMS.sig" >/dev/null 2>&1; then
            die "the signature of SHA256SUMS does not verify with the omp release key: the files were tampered with or damaged. Nothing was installed."
        fi
        say "verified the Ed25519 signature of SHA256SUMS"
    elif [ "$allow_unsigned" = yes ]; then
        say "warning: no openssl >= 1.1.1 to check the signature; --allow-unsigned: trusting SHA256SUMS unverified"
    else
        die "cannot verify the release signature: install openssl 1.1.1 or newer, or re-run with --allow-unsigned to check only the sha256 (which proves nothing about who made the files)"
    fi
}

expect_sha256() {
    # file, its name in SHA256SUMS, SHA256SUMS
    wanted=$(awk -v name="$2" '$2 == name { print $1 }' "$3")
    [ -n "$wanted" ] || die "SHA256SUMS does not list $2"
    got=$(sha256_of "$1")
    [ "$got" = "$wanted" ] || die "$2 does not match SHA256SUMS (sha256 $got, expected $wanted): tampered with or damaged. Nothing was installed."
}

# ---- getting a verified binary into $binary -----------------------------------------------------

top_dir_of() {
    tar -tzf "$1" 2>/dev/null | head -n 1 | cut -d / -f 1
}

from_network() {
    if [ -n "${OMP_VERSION:-}" ]; then
        version=$OMP_VERSION
    else
        from_channel=yes
        version=$(channel_version)
        [ -n "$version" ] || die "$base_url/channels/$channel.json names no version"
    fi
    check_version_text "$version"
    release_url="$base_url/$version"
    archive_name="omp-$version-$target.tar.gz"
    say "installing omp $version ($target) from $release_url"
    download "$release_url/SHA256SUMS" "$work_dir/SHA256SUMS"
    download "$release_url/SHA256SUMS.sig" "$work_dir/SHA256SUMS.sig"
    verify_sums "$work_dir"
    awk -v name="$archive_name" '$2 == name { found = 1 } END { exit !found }' "$work_dir/SHA256SUMS" ||
        die "omp $version has no build for $target"
    binary_sha=$(awk -v name="omp-$target" '$2 == name { print $1 }' "$work_dir/SHA256SUMS")
    if [ -f "$install_dir/omp" ] && [ "$(sha256_of "$install_dir/omp")" = "$binary_sha" ]; then
        # Re-running the installer is cheap: the signed checksum says this exact build is in place.
        already=yes
        return 0
    fi
    download "$release_url/$archive_name" "$work_dir/$archive_name"
    expect_sha256 "$work_dir/$archive_name" "$archive_name" "$work_dir/SHA256SUMS"
    top=$(top_dir_of "$work_dir/$archive_name")
    mkdir "$work_dir/x"
    tar -xzf "$work_dir/$archive_name" -C "$work_dir/x" "$top/omp" || die "$archive_name holds no omp binary"
    binary="$work_dir/x/$top/omp"
    expect_sha256 "$binary" "omp-$target" "$work_dir/SHA256SUMS"
    binary_sha=$got
}

from_archive() {
    source_path=$1
    [ -e "$source_path" ] || die "$source_path does not exist"
    mkdir "$work_dir/x"
    if [ -d "$source_path" ]; then
        # An unpacked bundle.
        sums_dir=$source_path
        binary="$source_path/omp-$target"
        [ -f "$binary" ] || die "$source_path holds no omp-$target (the build this machine needs)"
    else
        top=$(top_dir_of "$source_path")
        [ -n "$top" ] || die "$source_path is not a .tar.gz archive"
        # Only the named files come out, never whatever else an unverified archive might hold.
        if tar -xzf "$source_path" -C "$work_dir/x" "$top/SHA256SUMS" "$top/SHA256SUMS.sig" 2>/dev/null; then
            sums_dir="$work_dir/x/$top"
            tar -xzf "$source_path" -C "$work_dir/x" "$top/omp-$target" 2>/dev/null ||
                die "$source_path holds no omp-$target: it is the bundle for another system"
            binary="$work_dir/x/$top/omp-$target"
        else
            sums_dir=$(dirname "$source_path")
            tar -xzf "$source_path" -C "$work_dir/x" "$top/omp" 2>/dev/null || die "$source_path holds no omp binary"
            binary="$work_dir/x/$top/omp"
        fi
    fi
    if [ ! -f "$binary" ] || [ -L "$binary" ]; then die "the omp binary in $source_path is not a plain file"; fi
    verify_sums "$sums_dir"
    expect_sha256 "$binary" "omp-$target" "$sums_dir/SHA256SUMS"
    binary_sha=$got
    version=$(sed -n "s/^[0-9a-f]\{64\}  omp-\([0-9][0-9A-Za-z.+-]*\)-$target\.tar\.gz\$/\1/p" "$sums_dir/SHA256SUMS" | head -n 1)
    [ -n "$version" ] || die "SHA256SUMS in $sums_dir names no release of omp for $target"
    say "installing omp $version ($target) from $source_path"
}

# ---- installing ---------------------------------------------------------------------------------

reported_version() {
    "$1" --version 2>/dev/null | sed -n 's|^omp/||p'
}

prepare_install_dir() {
    mkdir -p "$install_dir" 2>/dev/null || die "cannot create $install_dir; set OMP_INSTALL_DIR to a directory you can write"
    [ -w "$install_dir" ] || die "cannot write $install_dir; set OMP_INSTALL_DIR to a directory you can write (omp never needs root)"
    dest="$install_dir/omp"
}

# Like omp update: a version older than the installed one needs --force; a channel that is behind
# (back from canary to stable) is no reason to go back.
refuse_downgrade() {
    installed=$(reported_version "$dest")
    [ -n "$installed" ] && [ "$(version_cmp "$version" "$installed")" = -1 ] && [ "$force" != yes ] || return 0
    if [ "$from_channel" = yes ]; then
        say "omp $installed at $dest is newer than $version on the $channel channel; nothing changed (OMP_VERSION=$version with --force installs it)"
        exit 0
    fi
    die "omp $version is older than the installed omp $installed at $dest; re-run with --force to downgrade. Nothing was changed."
}

place_binary() {
    if [ "$already" = yes ] || { [ -f "$dest" ] && [ "$(sha256_of "$dest")" = "$binary_sha" ]; }; then
        say "omp $version is already installed at $dest"
        return 0
    fi
    if [ -f "$dest" ]; then refuse_downgrade; fi
    if [ -e "$dest" ] || [ -L "$dest" ]; then
        if [ -z "$(reported_version "$dest")" ] && [ "$assume_yes" != yes ]; then
            die "$dest exists and is not a working omp; move it away, or re-run with --yes to replace it"
        fi
    fi
    staged="$install_dir/.omp.install.$$"
    cp "$binary" "$staged" || die "cannot write $staged"
    chmod 755 "$staged"
    ran=$(reported_version "$staged")
    if [ "$ran" != "$version" ]; then
        rm -f "$staged"
        die "the new omp does not run from $install_dir (it printed '${ran:-nothing}'); is the directory on a noexec mount? Nothing was changed."
    fi
    # rename(2): whoever runs omp sees the old binary or the new one, never a partial file.
    mv -f "$staged" "$dest" || die "cannot move the new omp to $dest; the previous install is unchanged"
    staged=
    # Out of the page cache as the writes left it: its first runs would map ~5 MiB more of it than
    # later ones (core/fs/page-cache.ts does the same after omp update). Best effort: GNU dd only.
    sync "$dest" 2>/dev/null || true
    dd if="$dest" iflag=nocache count=0 status=none 2>/dev/null || true
    say "installed omp $version to $dest"
}

# ---- PATH -----------------------------------------------------------------------------------------

rc_files() {
    printf '%s\n' "$HOME/.profile"
    [ -f "$HOME/.bashrc" ] || [ "${SHELL##*/}" = bash ] && printf '%s\n' "$HOME/.bashrc"
    [ -f "${ZDOTDIR:-$HOME}/.zshrc" ] || [ "${SHELL##*/}" = zsh ] && printf '%s\n' "${ZDOTDIR:-$HOME}/.zshrc"
    return 0
}

fish_conf() {
    printf '%s\n' "${XDG_CONFIG_HOME:-$HOME/.config}/fish/conf.d/omp.fish"
}

modify_path() {
    line="export PATH=\"$install_dir:\$PATH\" $PATH_MARKER"
    for rc in $(rc_files); do
        if [ -f "$rc" ] && grep -qF "$line" "$rc"; then continue; fi
        printf '\n%s\n' "$line" >>"$rc" || die "cannot write $rc"
        say "added $install_dir to PATH in $rc"
    done
    if [ -d "${XDG_CONFIG_HOME:-$HOME/.config}/fish" ] || [ "${SHELL##*/}" = fish ]; then
        conf=$(fish_conf)
        mkdir -p "$(dirname "$conf")"
        # shellcheck disable=SC2016 # $PATH is for fish to expand
        printf '%s\ncontains -- "%s" $PATH; or set -gx PATH "%s" $PATH\n' "$PATH_MARKER" "$install_dir" "$install_dir" >"$conf"
        say "added $install_dir to PATH in $conf"
    fi
}

report_path() {
    on_path=$(command -v omp 2>/dev/null || true)
    if [ "$on_path" = "$dest" ] && [ "$(reported_version omp)" = "$version" ]; then
        say "done: omp $version is ready; run: omp"
        return 0
    fi
    if [ "$modify" = yes ]; then
        modify_path
        say "done: omp $version is installed; open a new shell (or run: export PATH=\"$install_dir:\$PATH\") to use it"
        return 0
    fi
    if [ -n "$on_path" ] && [ "$on_path" != "$dest" ]; then
        say "omp $version is installed at $dest, but $on_path comes first on your PATH and will run instead."
    else
        say "omp $version is installed at $dest, but $install_dir is not on your PATH."
    fi
    say "to use it, add this line to your shell's startup file (~/.profile, ~/.bashrc or ~/.zshrc), or re-run with --modify-path:"
    # shellcheck disable=SC2016 # the line is printed for the user's shell to expand
    printf '\n    export PATH="%s:$PATH"\n\n' "$install_dir" >&2
}

# ---- uninstall ----------------------------------------------------------------------------------

confirm() {
    [ "$assume_yes" = yes ] && return 0
    if [ -r /dev/tty ] && { true </dev/tty; } 2>/dev/null; then
        printf '%s [y/N] ' "$1" >/dev/tty
        read -r answer </dev/tty || answer=
        case "$answer" in y | Y | yes | YES) return 0 ;; esac
        return 1
    fi
    die "no terminal to confirm on; re-run with --yes"
}

uninstall() {
    dest="$install_dir/omp"
    if [ -e "$dest" ] || [ -L "$dest" ]; then
        confirm "remove $dest?" || die "nothing removed"
        rm -f "$dest" || die "cannot remove $dest"
        say "removed $dest"
    else
        say "no omp at $dest"
    fi
    for rc in $(rc_files); do
        if [ -f "$rc" ] && grep -qF "$PATH_MARKER" "$rc"; then
            grep -vF "$PATH_MARKER" "$rc" >"$rc.omp-uninstall.$$" && cat "$rc.omp-uninstall.$$" >"$rc"
            rm -f "$rc.omp-uninstall.$$"
            say "removed the omp PATH line from $rc"
        fi
    done
    conf=$(fish_conf)
    if [ -f "$conf" ] && grep -qF "$PATH_MARKER" "$conf"; then rm -f "$conf" && say "removed $conf"; fi
    say "settings and sessions in ~/.omp are kept; delete that directory to remove them too"
}

# ---- main ---------------------------------------------------------------------------------------

main() {
    archive=
    assume_yes=no
    allow_unsigned=no
    force=no
    from_channel=no
    modify=no
    action=install
    while [ $# -gt 0 ]; do
        case "$1" in
            --archive) [ $# -ge 2 ] || die "--archive needs a path"; archive=$2; shift ;;
            --archive=*) archive=${1#--archive=} ;;
            --yes | -y) assume_yes=yes ;;
            --force) force=yes ;;
            --allow-unsigned) allow_unsigned=yes ;;
            --modify-path) modify=yes ;;
            --uninstall) action=uninstall ;;
            --print-target) action=print-target ;;
            --help | -h) usage; exit 0 ;;
            *) die "unknown option $1 (see --help)" ;;
        esac
        shift
    done

    base_url=${OMP_DOWNLOAD_URL:-$OMP_DEFAULT_URL}
    base_url=${base_url%/}
    channel=${OMP_CHANNEL:-stable}
    case "$channel" in stable | canary) ;; *) die "OMP_CHANNEL must be stable or canary, not '$channel'" ;; esac
    [ -n "${HOME:-}" ] || die "HOME is not set"
    install_dir=${OMP_INSTALL_DIR:-$HOME/.local/bin}
    case "$install_dir" in /*) ;; *) install_dir="$(pwd)/$install_dir" ;; esac
    install_dir=${install_dir%/}

    case "$action" in
        uninstall) uninstall; exit 0 ;;
        print-target) detect_target; printf '%s\n' "$target"; exit 0 ;;
    esac

    detect_target
    have tar || die "tar is needed to unpack omp"
    # Every way out removes the temp dir and the staged binary; only SIGKILL cannot, and then the
    # pid in their names lets the next install.sh or omp update tell them from a live run's.
    trap cleanup EXIT
    trap 'exit 129' HUP
    trap 'exit 130' INT
    trap 'exit 143' TERM
    trap 'exit 141' PIPE
    prepare_install_dir
    sweep_leftovers
    already=no
    work_dir=$(mktemp -d "${TMPDIR:-/tmp}/omp-install.$$.XXXXXX" 2>/dev/null || mktemp -d -t "omp-install.$$") || die "cannot create a temporary directory"
    if [ -n "$archive" ]; then
        case "$archive" in /*) ;; *) archive="$(pwd)/$archive" ;; esac
        from_archive "$archive"
    else
        from_network
    fi
    place_binary
    report_path
}

main "$@"
