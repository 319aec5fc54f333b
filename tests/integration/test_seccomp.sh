#!/bin/sh
# test_seccomp.sh — the syscall filter on the real kernel: every denial by
# a static probe run inside `sandbx sandbox-run` (tests/probes/sys.c), the
# foreign ABIs killed, TIOCSTI refused on an inherited terminal, and the
# socket rules of each network mode.  The unit suite (test_seccomp.c)
# proves the same rules on the exported BPF; this proves the kernel
# applies them to a confined command.
. "$(dirname "$0")/lib.sh"

SYS="$PROBES/sys"
TRY="$TESTTOOLS/seccomp_try"

# probe [SANDBOX-FLAGS...] -- NAME [ARGS]: run the probe confined; its
# output in $out, the exit status of sandbox-run in $rc.
probe() {
	out=$(sbx sandbox-run --allow-exec "$PROBES" "$@")
	rc=$?
}

# expect_out ID WANT [SANDBOX-FLAGS...] -- NAME [ARGS]
expect_out() {
	id=$1 want=$2
	shift 2
	t_start "$id"
	probe "$@"
	case $out in
	"$want"*) t_pass ;;
	*) t_fail "wanted '$want', got '$out' (exit $rc): $(head -c 300 "$TMP/err")" ;;
	esac
}

if [ ! -x "$SYS" ]; then
	t_start sc-probes
	t_skip "no probe binary at $SYS (build with make)"
	t_done
	exit 0
fi
if ! sandbox_works; then
	t_start sc-sandbox
	t_skip "sandbox-run does not work here (user namespaces or Landlock missing)"
	t_done
	exit 0
fi

# --- what a command needs keeps working -----------------------------------
for n in getpid fork thread; do
	expect_out "sc-allow-$n" ok -- "$SYS" "$n"
done

# --- the denylist: EPERM for each --------------------------------------------
for n in ptrace process_vm_readv process_vm_writev pidfd_open pidfd_getfd \
	mount umount2 pivot_root chroot open_tree open_tree_attr move_mount \
	fsopen fsconfig fsmount fspick mount_setattr listmount statmount \
	setns unshare name_to_handle_at open_by_handle_at \
	init_module finit_module delete_module kexec_load kexec_file_load \
	bpf perf_event_open lookup_dcookie uselib _sysctl syslog \
	add_key request_key keyctl userfaultfd \
	io_uring_setup io_uring_enter io_uring_register memfd_create memfd_secret \
	reboot swapon swapoff settimeofday clock_settime clock_adjtime adjtimex \
	acct quotactl quotactl_fd vhangup ioperm iopl modify_ldt; do
	expect_out "sc-deny-$n" "err EPERM" -- "$SYS" "$n"
done

# --- namespaces: clone by flag, clone3 falls back ------------------------------
for f in newuser newns newpid newnet newuts newipc newcgroup; do
	expect_out "sc-deny-clone-$f" "err EPERM" -- "$SYS" "clone-$f"
done
expect_out sc-userns-unshare "err EPERM" -- "$SYS" unshare
expect_out sc-userns-clone "err EPERM" -- "$SYS" clone-newuser
expect_out sc-userns-clone-highbits "err EPERM" -- "$SYS" clone-newuser-high
expect_out sc-userns-clone3 "err ENOSYS" -- "$SYS" clone3-newuser
expect_out sc-clone3-enosys "err ENOSYS" -- "$SYS" clone3

# The filter alone makes the difference: outside any sandbox the probe
# creates a user namespace; under the filter (seccomp_try) it cannot.
t_start sc-filter-only-userns
if [ ! -x "$TRY" ]; then
	t_skip "no $TRY (build with make)"
else
	ctl=$("$SYS" clone-newuser 2>&1)
	got=$("$TRY" -- "$SYS" clone-newuser 2>&1)
	case $ctl in
	ok*) case $got in
		"err EPERM"*) t_pass ;;
		*) t_fail "under the filter alone: '$got'" ;;
		esac ;;
	*) t_skip "this kernel refuses user namespaces to $T_USER anyway ('$ctl')" ;;
	esac
fi

# --- code no path names ---------------------------------------------------------
expect_out sc-memfd-exec "err EPERM" -- "$SYS" memfd-exec

# --- foreign ABIs: killed by SIGSYS, reported 128+31 ----------------------------
if [ "$(uname -m)" = x86_64 ]; then
	for n in int80 x32; do
		t_start "sc-kill-$n"
		probe -- "$SYS" "$n"
		if [ "$rc" -eq 159 ] && [ -z "$out" ]; then t_pass; else t_fail "exit $rc, output '$out'"; fi
	done
fi

# --- the terminal ------------------------------------------------------------------
# The probe runs under a pty (script(1)) and inherits it as fd 0.
in_pty() {
	script -qec "$1" /dev/null </dev/null 2>/dev/null | tr -d '\r' | grep -E '^(ok|err)' | tail -1
}
have_script=1
command -v script >/dev/null 2>&1 || have_script=0
for n in tiocsti tiocsti-high tioclinux; do
	t_start "sc-tty-$n"
	if [ $have_script = 0 ]; then
		t_skip "script(1) from util-linux is not installed"
		continue
	fi
	got=$(in_pty "cd '$TMP/work' && '$SANDBX' sandbox-run --allow-exec '$PROBES' -- '$SYS' $n")
	case $got in
	"err EPERM"*) t_pass ;;
	*) t_fail "under a pty: '$got'" ;;
	esac
done
# The command stage's setsid alone would refuse TIOCSTI (not the session's
# terminal); show the filter refuses it on the caller's own controlling
# terminal too, where the kernel would otherwise push the byte (or answer
# EIO when dev.tty.legacy_tiocsti is 0).
for n in tiocsti tiocsti-high; do
	t_start "sc-tty-filter-only-$n"
	if [ $have_script = 0 ] || [ ! -x "$TRY" ]; then
		t_skip "script(1) or $TRY missing"
		continue
	fi
	ctl=$(in_pty "'$SYS' $n")
	got=$(in_pty "'$TRY' -- '$SYS' $n")
	case "$ctl|$got" in
	"ok|err EPERM"* | "err EIO"*"|err EPERM"*) t_pass ;;
	*) t_fail "control '$ctl', under the filter '$got'" ;;
	esac
done
# Other terminal ioctls still work on the inherited terminal.
t_start sc-tty-tcgets-allowed
if [ $have_script = 0 ]; then
	t_skip "script(1) from util-linux is not installed"
else
	got=$(in_pty "cd '$TMP/work' && '$SANDBX' sandbox-run --allow-exec '$PROBES' -- '$SYS' tcgets")
	if [ "$got" = ok ]; then t_pass; else t_fail "TCGETS under a pty: '$got'"; fi
fi

# --- /proc stays read-only ----------------------------------------------------------
t_start sc-proc-hostname-ro
probe --allow-read /proc -- "$SYS" write-file /proc/sys/kernel/hostname
case $out in
err*) if [ "$(hostname)" != pwned ]; then t_pass; else t_fail "the host name changed"; fi ;;
*) t_fail "writing /proc/sys/kernel/hostname: '$out'" ;;
esac

# --- unix sockets ------------------------------------------------------------------------
AF_UNIX=1 AF_INET=2 AF_INET6=10 AF_NETLINK=16 AF_PACKET=17 AF_VSOCK=40
STREAM=1 DGRAM=2 RAW=3 SEQPACKET=5
expect_out sc-unix-socket-denied "err EPERM" -- "$SYS" socket $AF_UNIX $STREAM 0
expect_out sc-unix-dgram-denied "err EPERM" -- "$SYS" socket $AF_UNIX $DGRAM 0
expect_out sc-unix-socketpair-dgram-denied "err EPERM" -- "$SYS" socketpair $AF_UNIX $DGRAM
expect_out sc-unix-socketpair-seqpacket-denied "err EPERM" -- "$SYS" socketpair $AF_UNIX $SEQPACKET
expect_out sc-unix-socketpair-stream-allowed ok -- "$SYS" socketpair $AF_UNIX $STREAM
expect_out sc-unix-allowed-socket ok --allow-unix-sockets -- "$SYS" socket $AF_UNIX $DGRAM 0
expect_out sc-unix-allowed-socketpair ok --allow-unix-sockets -- "$SYS" socketpair $AF_UNIX $DGRAM

# --- network modes --------------------------------------------------------------------------
# No network: the empty namespace holds everything but vsock.
expect_out sc-none-vsock-denied "err EPERM" -- "$SYS" socket $AF_VSOCK $STREAM 0
expect_out sc-none-udp-allowed ok -- "$SYS" socket $AF_INET $DGRAM 0

# Ports: what Landlock's TCP rules cannot police is refused.
P="--allow-network 443"
expect_out sc-ports-tcp-allowed ok $P -- "$SYS" socket $AF_INET $STREAM 0
expect_out sc-ports-tcp6-allowed ok $P -- "$SYS" socket $AF_INET6 $STREAM 6
expect_out sc-ports-udp-denied "err EPERM" $P -- "$SYS" socket $AF_INET $DGRAM 0
expect_out sc-ports-udp6-denied "err EPERM" $P -- "$SYS" socket $AF_INET6 $DGRAM 17
expect_out sc-ports-raw-denied "err EPERM" $P -- "$SYS" socket $AF_INET $RAW 1
expect_out sc-ports-seqpacket-denied "err EPERM" $P -- "$SYS" socket $AF_INET $SEQPACKET 132
expect_out sc-ports-packet-denied "err EPERM" $P -- "$SYS" socket $AF_PACKET $RAW 0
expect_out sc-ports-netlink-denied "err EPERM" $P -- "$SYS" socket $AF_NETLINK $RAW 0
expect_out sc-ports-vsock-denied "err EPERM" $P -- "$SYS" socket $AF_VSOCK $STREAM 0
expect_out sc-ports-mptcp-denied "err EPERM" $P -- "$SYS" socket $AF_INET $STREAM 262
expect_out sc-ports-sctp-stream-denied "err EPERM" $P -- "$SYS" socket $AF_INET6 $STREAM 132
expect_out sc-ports-tcp-ulp-denied "err EPERM" $P -- "$SYS" tcp_ulp
expect_out sc-ports-tfo-connect-denied "err EPERM" $P -- "$SYS" tcp_fastopen_connect
expect_out sc-ports-msg-fastopen-denied "err EPERM" $P -- "$SYS" msg_fastopen
expect_out sc-ports-unix-denied "err EPERM" $P -- "$SYS" socket $AF_UNIX $STREAM 0
# glibc's AI_ADDRCONFIG probe uses netlink; getaddrinfo falls back.
expect_out sc-ports-getaddrinfo ok $P -- "$SYS" getaddrinfo

# Any network: nothing network-related refused but AF_UNIX.
expect_out sc-any-udp-allowed ok --allow-network -- "$SYS" socket $AF_INET $DGRAM 0
expect_out sc-any-netlink-allowed ok --allow-network -- "$SYS" socket $AF_NETLINK $RAW 0
expect_out sc-any-unix-denied "err EPERM" --allow-network -- "$SYS" socket $AF_UNIX $STREAM 0

t_done
