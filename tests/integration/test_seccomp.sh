#!/bin/sh
# test_seccomp.sh — the syscall filter on the real kernel: every denial by
# a static probe run inside `sandbx sandbox-run` (tests/probes/sys.c), the
# foreign ABIs killed, no set-id file left on the host, TIOCSTI and the
# other terminal ioctls refused on an inherited terminal, and the socket
# rules of each network mode.  The unit suite (test_seccomp.c)
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

# Each test id is written out on its own line: the claims check finds
# ids by name.  deny ID NAME: probe NAME answers EPERM.
deny() {
	expect_out "$1" "err EPERM" -- "$SYS" "$2"
}

# --- what a command needs keeps working -----------------------------------
expect_out sc-allow-getpid ok -- "$SYS" getpid
expect_out sc-allow-fork ok -- "$SYS" fork
expect_out sc-allow-thread ok -- "$SYS" thread

# --- the denylist: EPERM for each --------------------------------------------
deny sc-deny-ptrace ptrace
deny sc-deny-process-vm-readv process_vm_readv
deny sc-deny-process-vm-writev process_vm_writev
deny sc-deny-pidfd-open pidfd_open
deny sc-deny-pidfd-getfd pidfd_getfd
deny sc-deny-mount mount
deny sc-deny-umount2 umount2
deny sc-deny-pivot-root pivot_root
deny sc-deny-chroot chroot
deny sc-deny-open-tree open_tree
deny sc-deny-open-tree-attr open_tree_attr
deny sc-deny-move-mount move_mount
deny sc-deny-fsopen fsopen
deny sc-deny-fsconfig fsconfig
deny sc-deny-fsmount fsmount
deny sc-deny-fspick fspick
deny sc-deny-mount-setattr mount_setattr
deny sc-deny-listmount listmount
deny sc-deny-statmount statmount
deny sc-deny-setns setns
deny sc-deny-unshare unshare
deny sc-deny-name-to-handle-at name_to_handle_at
deny sc-deny-open-by-handle-at open_by_handle_at
deny sc-deny-init-module init_module
deny sc-deny-finit-module finit_module
deny sc-deny-delete-module delete_module
deny sc-deny-kexec-load kexec_load
deny sc-deny-kexec-file-load kexec_file_load
deny sc-deny-bpf bpf
deny sc-deny-perf-event-open perf_event_open
deny sc-deny-lookup-dcookie lookup_dcookie
deny sc-deny-uselib uselib
deny sc-deny-sysctl _sysctl
deny sc-deny-syslog syslog
deny sc-deny-add-key add_key
deny sc-deny-request-key request_key
deny sc-deny-keyctl keyctl
deny sc-deny-fscrypt-add-key fscrypt-add-key
deny sc-deny-fscrypt-remove-key fscrypt-remove-key
deny sc-deny-fscrypt-remove-key-all fscrypt-remove-key-all
deny sc-deny-userfaultfd userfaultfd
deny sc-deny-io-uring-setup io_uring_setup
deny sc-deny-io-uring-enter io_uring_enter
deny sc-deny-io-uring-register io_uring_register
deny sc-deny-memfd-create memfd_create
deny sc-deny-memfd-secret memfd_secret
deny sc-deny-reboot reboot
deny sc-deny-swapon swapon
deny sc-deny-swapoff swapoff
deny sc-deny-settimeofday settimeofday
deny sc-deny-clock-settime clock_settime
deny sc-deny-clock-adjtime clock_adjtime
deny sc-deny-adjtimex adjtimex
deny sc-deny-acct acct
deny sc-deny-quotactl quotactl
deny sc-deny-quotactl-fd quotactl_fd
deny sc-deny-vhangup vhangup
if [ "$(uname -m)" = x86_64 ]; then
	deny sc-deny-ioperm ioperm
	deny sc-deny-iopl iopl
	deny sc-deny-modify-ldt modify_ldt
fi

# --- the init's limits: set refused, read and the command's own allowed -----
deny sc-deny-prlimit-init prlimit-init
expect_out sc-allow-prlimit-init-read ok -- "$SYS" prlimit-init-read
expect_out sc-allow-prlimit-self ok -- "$SYS" prlimit-self

# --- namespaces: clone by flag, clone3 falls back ------------------------------
deny sc-deny-clone-newuser clone-newuser
deny sc-deny-clone-newns clone-newns
deny sc-deny-clone-newpid clone-newpid
deny sc-deny-clone-newnet clone-newnet
deny sc-deny-clone-newuts clone-newuts
deny sc-deny-clone-newipc clone-newipc
deny sc-deny-clone-newcgroup clone-newcgroup
expect_out sc-userns-unshare "err EPERM" -- "$SYS" unshare
expect_out sc-userns-clone "err EPERM" -- "$SYS" clone-newuser
expect_out sc-userns-clone-highbits "err EPERM" -- "$SYS" clone-newuser-high
expect_out sc-userns-clone3 "err ENOSYS" -- "$SYS" clone3-newuser
expect_out sc-clone3-enosys "err ENOSYS" -- "$SYS" clone3
# Native AIO: fs.aio-max-nr bounds the events of every context of the
# machine together, no capability exempts a caller, and one io_setup
# asking for all of them was granted in the sandbox.  io_setup answers
# ENOSYS, as a kernel without AIO does, so libaio's users fall back to
# threads.  The bad pointer has this kernel (which has AIO: the probe run
# outside answers EFAULT) tell its own answer apart.
expect_out sc-io-setup-enosys "err ENOSYS" -- "$SYS" io_setup
# The huge page pool (vm.nr_hugepages) is the machine's, charged to no
# user or memory limit: an anonymous MAP_HUGETLB mapping or a SHM_HUGETLB
# segment answers ENOMEM, an empty pool's answer (the kernel's own here,
# for a length of 0, is EINVAL).
expect_out sc-hugetlb-mmap-enomem "err ENOMEM" -- "$SYS" mmap-hugetlb
expect_out sc-hugetlb-shmget-enomem "err ENOMEM" -- "$SYS" shmget-hugetlb
# Kernel same-page merging: a page the command opts in is merged with
# an identical one of any process that did (a VM's memory), and the time
# of a write to it tells the command what the host holds.  Both ways in
# answer EINVAL, a kernel without KSM's answer; this kernel, which has
# KSM, answers ok outside (sc-ksm-kernel-ok).
expect_out sc-ksm-madvise-einval "err EINVAL" -- "$SYS" ksm-madvise
expect_out sc-ksm-prctl-einval "err EINVAL" -- "$SYS" ksm-prctl
# process_madvise on the caller itself (PIDFD_SELF, 6.15) is madvise by
# another number, MADV_MERGEABLE included: ENOSYS, a kernel before 5.10.
expect_out sc-ksm-process-madvise-enosys "err ENOSYS" -- "$SYS" ksm-process-madvise
t_start sc-ksm-kernel-ok
out=$("$SYS" ksm-madvise 2>&1; "$SYS" ksm-prctl 2>&1; "$SYS" ksm-process-madvise 2>&1)
case $out in
"ok"*"ok"*"ok"*) t_pass ;;
*"err EINVAL"*) t_skip "this kernel has no KSM (CONFIG_KSM): '$out'" ;;
*) t_fail "outside the sandbox: '$out'" ;;
esac
# Syscalls newer than the filter's tables were reviewed against
# (SBX_SYSCALL_NEWEST, 469: file_setattr, Linux 6.17) answer ENOSYS, what
# a kernel without them answers, so a denylist does not allow what a
# later kernel adds (listns is 470, Linux 6.19).  The unit suite shows
# the cut on a syscall this kernel has (test_seccomp_newer_enosys_kernel);
# here the real binary's filter lets the newest reviewed through to the
# kernel, which answers as it does outside.
t_start sc-newer-syscall-enosys
bad=
for n in 470 471 500 1000 65535; do
	probe -- "$SYS" nr $n
	case $out in
	"err ENOSYS"*) ;;
	*) bad="$bad $n:'$out'(exit $rc)" ;;
	esac
done
if [ -z "$bad" ]; then t_pass; else t_fail "wanted ENOSYS from each, got$bad"; fi
t_start sc-newest-syscall-reaches-kernel
outside=$("$SYS" nr 469 2>&1)
probe -- "$SYS" nr 469
case $outside in
"err ENOSYS"*) t_skip "this kernel has no syscall 469 (file_setattr, Linux 6.17): '$outside'" ;;
"$out") t_pass ;;
*) t_fail "syscall 469 answered '$out' inside (exit $rc), '$outside' outside" ;;
esac
t_start sc-hugetlb-kernel-einval
out=$("$SYS" mmap-hugetlb 2>&1)
case $out in
"err EINVAL"*) t_pass ;;
*) t_fail "outside the sandbox, a MAP_HUGETLB mapping of length 0: '$out'" ;;
esac
t_start sc-io-setup-host-budget
aio_max=$(cat /proc/sys/fs/aio-max-nr)
host=$("$SYS" io_setup 2>&1)
probe -- "$SYS" io_setup-all "$aio_max"
case "$host $out" in
"err EFAULT"*" err ENOSYS"*) t_pass ;;
*) t_fail "outside: '$host', inside, io_setup of $aio_max events: '$out' (exit $rc)" ;;
esac

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

# --- read watches: the host's reads are not reported ----------------------------
# A granted directory is the host's own inode: a watch on it sees every
# host process that opens, reads or executes a file there.  $WD stands
# for /usr/bin: while the probe watches it for 1.5 s, the host executes
# $WD/true and reads $WD/f every 10 ms (act read), or appends to $WD/f
# (act write).  A watch for read events is refused (EPERM); a watch for
# changes still reports the host's writes.
NOTIFY="$PROBES/notify"
WD=$TMP/watched
mkdir -p "$WD"
cp /bin/true "$WD/true"
echo x >"$WD/f"
chmod -R a+rX "$WD"
# host_act ACT: ACT on $WD every 10 ms until $TMP/stop exists (10 s at most).
host_act() {
	i=0
	while [ ! -e "$TMP/stop" ] && [ $i -lt 1000 ]; do
		case $1 in
		read) "$WD/true"; cat "$WD/f" >/dev/null ;;
		write) echo x >>"$WD/f" ;;
		esac
		i=$((i + 1))
		sleep 0.01
	done
}
# watched ACT RUNNER... -- KIND MASK: RUNNER runs the probe watching $WD
# for 1.5 s while the host acts; its line in $out.
watched() {
	act=$1
	shift
	rm -f "$TMP/stop"
	host_act "$act" &
	hp=$!
	out=$("$@" 2>/dev/null)
	rc=$?
	touch "$TMP/stop"
	wait $hp
}
# watch_confined ID WANT ACT KIND MASK: the probe confined with $WD granted
# read-only; WANT is "err EPERM" or "events" (ok with at least one event).
watch_confined() {
	t_start "$1"
	want=$2 act=$3
	watched "$act" sbx sandbox-run --allow-exec "$PROBES" --allow-read "$WD" -- "$NOTIFY" "$4" "$WD" "$5" 1.5
	case "$want:$out" in
	"err EPERM:err EPERM"*) t_pass ;;
	"events:ok "[1-9]*) t_pass ;;
	*) t_fail "wanted $want, got '$out' (exit $rc): $(head -c 300 "$TMP/err")" ;;
	esac
}
IN_ACCESS=0x1 IN_MODIFY=0x2 IN_CLOSE_NOWRITE=0x10 IN_OPEN=0x20 IN_CREATE=0x100 IN_ALL_EVENTS=0xfff
FAN_ACCESS=0x1 FAN_MODIFY=0x2 FAN_OPEN=0x20 FAN_OPEN_EXEC=0x1000
DN_ACCESS=0x1 DN_MODIFY=0x2
watch_confined sc-watch-inotify-open-denied "err EPERM" read inotify $IN_OPEN
watch_confined sc-watch-inotify-access-denied "err EPERM" read inotify $IN_ACCESS
watch_confined sc-watch-inotify-close-nowrite-denied "err EPERM" read inotify $IN_CLOSE_NOWRITE
watch_confined sc-watch-inotify-all-denied "err EPERM" read inotify $IN_ALL_EVENTS
watch_confined sc-watch-inotify-changes-allowed events write inotify $((IN_MODIFY | IN_CREATE))
watch_confined sc-watch-fanotify-open-denied "err EPERM" read fanotify $FAN_OPEN
watch_confined sc-watch-fanotify-open-exec-denied "err EPERM" read fanotify $FAN_OPEN_EXEC
watch_confined sc-watch-fanotify-access-denied "err EPERM" read fanotify $FAN_ACCESS
watch_confined sc-watch-fanotify-modify-allowed events write fanotify $FAN_MODIFY
watch_confined sc-watch-dnotify-access-denied "err EPERM" read dnotify $DN_ACCESS
watch_confined sc-watch-dnotify-modify-allowed events write dnotify $DN_MODIFY
# The refusal is the filter's: unconfined, each kind of read watch sees
# the host's reads (the leak the rules close); under the filter alone
# each answers EPERM.
t_start sc-watch-filter-only
if [ ! -x "$TRY" ]; then
	t_skip "no $TRY (build with make)"
else
	bad=
	for kw in inotify:$IN_OPEN fanotify:$FAN_OPEN_EXEC dnotify:$DN_ACCESS; do
		watched read "$NOTIFY" "${kw%%:*}" "$WD" "${kw#*:}" 1.5
		free=$out
		watched read "$TRY" -- "$NOTIFY" "${kw%%:*}" "$WD" "${kw#*:}" 1.5
		case "$free|$out" in
		"ok "[1-9]*"|err EPERM"*) ;;
		*) bad="$bad $kw: unconfined '$free', under the filter '$out';" ;;
		esac
	done
	if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi
fi

# --- the host's page cache ------------------------------------------------------
# A granted file's cached pages are the host's.  $PC/data (4 MiB, on
# the disk, written back) stands for a shared read-only file; the host
# reads it whole, and the probe, outside, counts its resident pages
# with mincore (the caller owns the file, so the kernel answers
# truly).  An eviction attempt from the sandbox must leave them all.
PCACHE="$PROBES/pcache"
PC=$TMP/pc
mkdir -p "$PC"
head -c 4194304 /dev/urandom >"$PC/data"
chmod -R a+rX "$PC"
sync "$PC/data"
# cached: the host reads $PC/data whole; "RESIDENT PAGES" in $res.
cached() {
	cat "$PC/data" >/dev/null
	res=$("$PCACHE" resident "$PC/data")
	res=${res#ok }
}
# evict_kept ID WANT ARGS...: the probe confined with $PC granted
# read-only answers WANT, and the host's pages stay resident.  Tried a
# second time when they did not: an eviction that gets through the filter
# happens every time, while the kernel's own reclaim under a loaded run
# (the sanitized suite) once took 2 of the 1024 pages meanwhile.
evict_kept() {
	t_start "$1"
	want=$2
	shift 2
	for try in 1 2; do
		cached
		before=$res
		probe --allow-read "$PC" -- "$PCACHE" "$@"
		after=$("$PCACHE" resident "$PC/data")
		case "$before|$out|$after" in
		*"|$want"*"|ok $before") t_pass; return ;;
		esac
	done
	t_fail "host resident before '$before', the probe '$out' (exit $rc), host after '$after' (twice)"
}
POSIX_FADV_DONTNEED=4 MADV_PAGEOUT=21
t_start sc-pagecache-host-cached
cached
case $res in
"1024 1024") t_pass ;;
*) t_fail "the host's read of $PC/data left '$res' pages resident, not 1024 1024" ;;
esac
evict_kept sc-pagecache-fadvise-kept ok fadvise "$PC/data" $POSIX_FADV_DONTNEED
evict_kept sc-pagecache-pageout-kept ok madvise "$PC/data" $MADV_PAGEOUT
evict_kept sc-pagecache-process-madvise-enosys "err ENOSYS" process-madvise "$PC/data" $MADV_PAGEOUT
# The same eviction outside the sandbox does evict: the test can see one.
t_start sc-pagecache-kernel-evicts
cached
out=$("$PCACHE" fadvise "$PC/data" $POSIX_FADV_DONTNEED)
after=$("$PCACHE" resident "$PC/data")
case "$res|$out|$after" in
"1024 1024|ok|ok 0 1024") t_pass ;;
*) t_fail "unconfined: host resident before '$res', fadvise '$out', after '$after'" ;;
esac
# Residency, asked outright: cachestat answers ENOSYS (a kernel before
# 6.5), a read or write with RWF_NOWAIT EOPNOTSUPP (a filesystem without
# nowait support), where this kernel answers them itself (ok).
cached
expect_out sc-pagecache-cachestat-enosys "err ENOSYS" --allow-read "$PC" -- "$PCACHE" cachestat "$PC/data"
expect_out sc-pagecache-preadv2-nowait-eopnotsupp "err EOPNOTSUPP" --allow-read "$PC" -- \
	"$PCACHE" preadv2-nowait "$PC/data"
expect_out sc-pagecache-pwritev2-nowait-eopnotsupp "err EOPNOTSUPP" -- "$PCACHE" pwritev2-nowait-pipe
t_start sc-pagecache-kernel-answers
cached
got="$("$PCACHE" cachestat "$PC/data")|$("$PCACHE" preadv2-nowait "$PC/data")|$("$PCACHE" pwritev2-nowait-pipe)"
case $got in
"ok "*"|ok|ok") t_pass ;;
*) t_fail "unconfined: cachestat, preadv2 and pwritev2 with RWF_NOWAIT answered '$got'" ;;
esac

# --- filesystems beyond the view -------------------------------------------------
# sync() writes back every filesystem of the machine, and its time tells
# the command how much the host wrote: in the sandbox it does nothing.
# $SY/out lies outside every grant; the host writes it (dirty pages, not
# yet written back), and the probe, outside, counts them with cachestat.
# Another process's sync on the machine (a parallel test run) can clean
# them too, so each test tries three times: the claim fails only when
# every try saw them written back.
SY=$TMP/sy
mkdir -p "$SY/w"
chmod -R a+rwX "$SY"
# host_dirty: a fresh $SY/out of 16 MiB written by the host; its dirty
# page count in $dirty ("ok N").
host_dirty() {
	rm -f "$SY/out"
	head -c 16777216 /dev/zero >"$SY/out"
	dirty=$("$PCACHE" dirty "$SY/out")
}
# sync_kept ID WANT-AFTER CMD...: after the host dirtied $SY/out, CMD ran;
# passes when $SY/out's dirty count then matches WANT-AFTER (a case
# pattern) on one of three tries.
sync_kept() {
	id=$1 want=$2
	shift 2
	t_start "$id"
	seen=
	for try in 1 2 3; do
		host_dirty
		before=$dirty
		out=$("$@" 2>>"$TMP/err")
		after=$("$PCACHE" dirty "$SY/out")
		seen="$seen try $try: dirty before '$before', '$out', after '$after';"
		case "$before|$out|$after" in
		"ok "[1-9]*"|ok|"$want) t_pass; return ;;
		esac
	done
	t_fail "$seen"
}
sync_kept sc-sync-host-dirty-kept 'ok [1-9]*' sbx sandbox-run --allow-exec "$PROBES" -- "$SYS" sync
# The same sync outside the sandbox writes the host's pages back.
sync_kept sc-sync-kernel-writes-back 'ok 0' "$SYS" sync
# fsync of the command's own file in its writable grant still writes it
# back: the host then finds none of its pages dirty.
t_start sc-sync-fsync-own-durable
head -c 4194304 /dev/urandom >"$SY/w/own"
chmod a+rw "$SY/w/own"
probe --allow-write "$SY/w" -- "$PCACHE" write-fsync "$SY/w/own"
after=$("$PCACHE" dirty "$SY/w/own")
case "$out|$after" in
"ok|ok 0") t_pass ;;
*) t_fail "the command's write and fsync answered '$out' (exit $rc), host dirty after '$after'" ;;
esac
# ustat reports the free space of any mounted filesystem by device number,
# one outside the view included: ENOSYS in the sandbox, where the kernel
# answers it unconfined (x86_64 only: aarch64 never had it).
if [ "$(uname -m)" = x86_64 ]; then
	dev=$(stat -c %d "$SY")
	expect_out sc-ustat-enosys "err ENOSYS" -- "$SYS" ustat "$dev"
	t_start sc-ustat-kernel-answers
	out=$("$SYS" ustat "$dev")
	case $out in
	ok*) t_pass ;;
	*) t_fail "unconfined: ustat of device $dev answered '$out'" ;;
	esac
fi

# --- code no path names ---------------------------------------------------------
expect_out sc-memfd-exec "err EPERM" -- "$SYS" memfd-exec

# --- set-user-ID and set-group-ID files ---------------------------------------------
# A file the command owns (host uid 0 when the caller is root) must not
# leave the run with a set-id bit.  Each probe works on a fresh file of
# the writable grant $W; the host then looks at the file itself.
W=$TMP/work
mkdir -p "$W"
# setid_denied ID NAME: probe NAME on $W/NAME answers EPERM and the host
# sees no set-id bit on $W/NAME (when the call left a file at all).
setid_denied() {
	t_start "$1"
	rm -rf "${W:?}/$2"
	probe --allow-write "$W" -- "$SYS" "$2" "$W/$2"
	case $out in
	"err EPERM"*)
		if [ -n "$(find "$W/$2" -perm /6000 2>/dev/null)" ]; then
			t_fail "answered EPERM, but the host sees $(ls -l "$W/$2")"
		else
			t_pass
		fi ;;
	*) t_fail "wanted 'err EPERM', got '$out' (exit $rc): $(head -c 300 "$TMP/err")" ;;
	esac
}
setid_denied sc-setid-chmod-suid chmod-suid
setid_denied sc-setid-chmod-sgid chmod-sgid
setid_denied sc-setid-chmod-suid-high chmod-suid-high
setid_denied sc-setid-fchmod-suid fchmod-suid
setid_denied sc-setid-fchmodat-suid fchmodat-suid
setid_denied sc-setid-fchmodat2-suid fchmodat2-suid
setid_denied sc-setid-open-suid open-suid
setid_denied sc-setid-openat-suid openat-suid
setid_denied sc-setid-creat-suid creat-suid
setid_denied sc-setid-mknod-suid mknod-suid
setid_denied sc-setid-mknodat-suid mknodat-suid
# openat2 hides its mode in a struct: ENOSYS, whatever it asks.
expect_out sc-openat2-enosys "err ENOSYS" --allow-write "$W" -- "$SYS" openat2 "$W/openat2"
# Ordinary modes keep working, and are what was asked (the probe checks).
expect_out sc-setid-chmod-plain ok --allow-write "$W" -- "$SYS" chmod-plain "$W/chmod-plain"
expect_out sc-setid-open-plain ok --allow-write "$W" -- "$SYS" open-plain "$W/open-plain"
expect_out sc-setid-sticky ok --allow-write "$W" -- "$SYS" chmod-sticky "$W/sticky"

# --- device nodes ------------------------------------------------------------
# renameat2's RENAME_WHITEOUT leaves a character device 0:0 (overlayfs's
# whiteout) at the old name, and since Linux 5.8 asks no capability for
# it: before, the command planted one in its writable grant, where it
# outlived the run (mknod of a device needs CAP_MKNOD, which it never has).
# whiteout_denied ID NAME: probe NAME answers EPERM and the host sees no
# device at $W/wo-NAME; unconfined, the same probe makes one (the kernel's).
# (mknod probes leave it at PATH itself.)
whiteout_denied() {
	t_start "$1"
	rm -f "$W/wo-$2" "$W/wo-$2.moved" "$W/bare-$2" "$W/bare-$2.moved"
	probe --allow-write "$W" -- "$SYS" "$2" "$W/wo-$2"
	bare=$("$SYS" "$2" "$W/bare-$2" 2>/dev/null)
	case $out in
	"err EPERM"*)
		if [ -c "$W/wo-$2" ]; then
			t_fail "answered EPERM, but the host sees $(ls -l "$W/wo-$2")"
		elif [ "$bare" = ok ] && [ ! -c "$W/bare-$2" ]; then
			t_fail "unconfined, the probe said ok but left no device: it proves nothing"
		else
			t_pass
		fi ;;
	*) t_fail "wanted 'err EPERM', got '$out' (exit $rc; unconfined '$bare'; host: $(ls -l "$W/wo-$2" 2>&1)): $(head -c 300 "$TMP/err")" ;;
	esac
	rm -f "$W/bare-$2" "$W/bare-$2.moved"
}
whiteout_denied sc-deny-rename-whiteout rename-whiteout
whiteout_denied sc-deny-rename-whiteout-high rename-whiteout-high
# mknod of that device (S_IFCHR 0:0) asks no capability either; a block
# device or any other character device needs CAP_MKNOD, and both kinds
# are refused by the filter whatever the numbers.
whiteout_denied sc-deny-mknod-whiteout mknod-whiteout
whiteout_denied sc-deny-mknodat-whiteout mknodat-whiteout
whiteout_denied sc-deny-mknodat-whiteout-high mknodat-whiteout-high
# renameat2's other flags keep working (mv asks RENAME_NOREPLACE).
rm -f "$W/noreplace" "$W/noreplace.moved"
expect_out sc-allow-rename-noreplace ok --allow-write "$W" -- "$SYS" rename-noreplace "$W/noreplace"

# --- file leases ------------------------------------------------------------
# A lease needs only a descriptor, read-only will do, on a file the caller
# owns: a write lease on a file of a read-only grant made every open of it
# by a host process (a read too) wait for the command, up to
# lease-break-time (45 s) each, and a root caller owns /usr and /etc.
L=$TMP/lease
mkdir -p "$L"
echo data >"$L/f"
lease_denied() {
	t_start "$1"
	probe --allow-read "$L" -- "$SYS" "$2" "$L/f"
	bare=$("$SYS" "$2" "$L/f" 2>/dev/null)
	case $out in
	"err EPERM"*)
		case $bare in
		"err EPERM"*) t_fail "unconfined, the probe answers EPERM too: the refusal is not the filter's" ;;
		*) t_pass ;;
		esac ;;
	*) t_fail "wanted 'err EPERM', got '$out' (exit $rc; unconfined '$bare'): $(head -c 300 "$TMP/err")" ;;
	esac
}
lease_denied sc-deny-setlease setlease
lease_denied sc-deny-setlease-high setlease-high

# --- futexes of a file -------------------------------------------------------
# A futex in a mapped file is keyed by the inode, so a command that may only
# read the file shares it with a host process waiting there; a shared
# requeue moved that waiter to a futex of the command's own, where the
# host's wake never reached it.  Each case: a host waiter (4 s timeout), the
# probe (confined with a read-only grant, or unconfined), then the host's
# wake; "probe|wake|waiter" in $got.
FX=$TMP/futex
mkdir -p "$FX"
head -c 4096 /dev/zero >"$FX/lock"
chmod 755 "$FX"
chmod 644 "$FX/lock"
futex_steal() {
	"$SYS" futex-wait "$FX/lock" 4 >"$TMP/futex-wait" 2>&1 &
	fw_pid=$!
	if [ "$1" = confined ]; then
		probe --allow-read "$FX" -- "$SYS" "$2" "$FX/lock"
	else
		out=$("$SYS" "$2" "$FX/lock" 2>&1)
	fi
	fw_woke=$("$SYS" futex-wake "$FX/lock" 2>&1)
	wait "$fw_pid"
	got="$out|$fw_woke|$(cat "$TMP/futex-wait")"
}
futex_case() {
	t_start "$1"
	futex_steal "$2" "$3"
	case $got in
	"$4") t_pass ;;
	*) t_fail "wanted '$4', got '$got' (exit $rc): $(head -c 300 "$TMP/err")" ;;
	esac
}
futex_case sc-futex-requeue-host-kept confined futex-requeue "err EPERM 1|ok|ok"
futex_case sc-futex-requeue2-enosys confined futex-requeue2 "err ENOSYS 38|ok|ok"
# Unconfined, the same probes take the waiter: the wake finds nobody and
# the waiter sleeps out its timeout.
futex_case sc-futex-kernel-requeues bare futex-requeue "ok|err ESRCH 3|err ETIMEDOUT 110"
futex_case sc-futex-kernel-requeues2 bare futex-requeue2 "ok|err ESRCH 3|err ETIMEDOUT 110"
# Private requeues (the caller's own memory, no host waiter) still work.
expect_out sc-futex-requeue-private-allowed ok -- "$SYS" futex-requeue-private

# The refusal is the filter's: the same probe sets the bit without it.
t_start sc-setid-filter-only
if [ ! -x "$TRY" ]; then
	t_skip "no $TRY (build with make)"
else
	ctl=$("$SYS" chmod-suid "$TMP/setid-ctl" 2>&1)
	ctlmode=$(stat -c %a "$TMP/setid-ctl" 2>&1)
	got=$("$TRY" -- "$SYS" chmod-suid "$TMP/setid-try" 2>&1)
	case "$ctl|$ctlmode|$got" in
	"ok|4755|err EPERM"*) t_pass ;;
	*) t_fail "unconfined '$ctl' (mode $ctlmode), under the filter '$got'" ;;
	esac
	rm -f "$TMP/setid-ctl" "$TMP/setid-try"
fi

# End to end: sh in the default working-directory grant copies a program
# and tries chmod 4755, g+s and u+s,g+s; the host sees mode 755.
t_start sc-setid-sh-chmod
rm -f "$W/suid"
out=$(sbx sandbox-run -- /bin/sh -c 'cp /bin/true suid && chmod 755 suid || exit 9
chmod 4755 suid; chmod g+s suid; chmod u+s,g+s suid; exit 0')
rc=$?
mode=$(stat -c %a "$W/suid" 2>&1)
denials=$(grep -c 'Operation not permitted' "$TMP/err")
if [ "$rc" -eq 0 ] && [ "$mode" = 755 ] && [ "$denials" -eq 3 ]; then
	t_pass
else
	t_fail "exit $rc, host mode '$mode', $denials chmod refusals: $(head -c 300 "$TMP/err")"
fi

# The file the user redirected stdout to, outside every grant: fchmod on
# the inherited descriptor is refused and its mode stays 755.  The probe
# reports on stderr and never writes the file (a write would clear the
# bit by itself).
t_start sc-setid-stdout
: > "$TMP/redir"
chmod 755 "$TMP/redir"
sbx sandbox-run --allow-exec "$PROBES" -- "$SYS" fchmod-stdout-suid > "$TMP/redir"
rc=$?
got=$(grep -E '^(ok|err)' "$TMP/err")
mode=$(stat -c %a "$TMP/redir")
case "$got|$mode" in
"err EPERM"*"|755") t_pass ;;
*) t_fail "probe said '$got' (exit $rc), host mode $mode" ;;
esac

# --- foreign ABIs: killed by SIGSYS, reported 128+31 ----------------------------
# killed ID NAME: probe NAME dies by SIGSYS before printing anything.
killed() {
	t_start "$1"
	probe -- "$SYS" "$2"
	if [ "$rc" -eq 159 ] && [ -z "$out" ]; then t_pass; else t_fail "exit $rc, output '$out'"; fi
}
if [ "$(uname -m)" = x86_64 ]; then
	# Without i386 emulation (ia32_emulation=0, or a hypervisor that
	# leaves it out) int $0x80 never reaches seccomp: the probe dies by
	# SIGSEGV even unconfined.  There is then no i386 call to stop; the
	# same cases still check that inside the sandbox it dies before doing
	# or printing anything, by SIGSYS or SIGSEGV.
	if "$SYS" int80 >/dev/null 2>&1; then
		killed sc-kill-int80 int80
		killed sc-kill-int80-chmod int80-chmod
	else
		for c in sc-kill-int80:int80 sc-kill-int80-chmod:int80-chmod; do
			t_start "${c%%:*}"
			probe -- "$SYS" "${c#*:}"
			if { [ "$rc" -eq 159 ] || [ "$rc" -eq 139 ]; } && [ -z "$out" ]; then t_pass
			else t_fail "no i386 emulation here, yet: exit $rc, output '$out'"; fi
		done
	fi
	killed sc-kill-x32 x32
	# A set-id chmod through the other ABIs dies too, before any file changes.
	killed sc-kill-x32-chmod x32-chmod
fi

# --- the terminal ------------------------------------------------------------------
# The probe runs under a pty (script(1)) and inherits it as fd 0.
in_pty() {
	script -qec "$1" /dev/null </dev/null 2>/dev/null | tr -d '\r' | grep -E '^(ok|err)' | tail -1
}
have_script=1
command -v script >/dev/null 2>&1 || have_script=0
# tty_denied ID NAME: probe NAME, confined, under a pty, answers EPERM.
tty_denied() {
	t_start "$1"
	if [ $have_script = 0 ]; then
		t_skip "script(1) from util-linux is not installed"
		return
	fi
	got=$(in_pty "cd '$TMP/work' && '$SANDBX' sandbox-run --allow-exec '$PROBES' -- '$SYS' $2")
	case $got in
	"err EPERM"*) t_pass ;;
	*) t_fail "under a pty: '$got'" ;;
	esac
}
tty_denied sc-tty-tiocsti tiocsti
tty_denied sc-tty-tiocsti-high tiocsti-high
tty_denied sc-tty-tioclinux tioclinux
# tty_refused ID NAME: probe NAME, confined, under a pty, answers EPERM.
# These probes answer ENOTTY without a terminal, so with no script(1)
# the check runs without one and fails rather than skips.
tty_refused() {
	t_start "$1"
	cmd="cd '$TMP/work' && '$SANDBX' sandbox-run --allow-exec '$PROBES' -- '$SYS' $2"
	if [ $have_script = 1 ]; then
		got=$(in_pty "$cmd")
	else
		got="$(sh -c "$cmd" </dev/null 2>/dev/null) (no pty: script(1) missing)"
	fi
	case $got in
	"err EPERM"*) t_pass ;;
	*) t_fail "under a pty: '$got'" ;;
	esac
}
tty_refused sc-tty-tiocsetd tiocsetd
tty_refused sc-tty-tiocexcl tiocexcl
tty_refused sc-tty-tiocswinsz tiocswinsz
tty_refused sc-tty-tcxonc tcxonc
# The command stage's setsid alone would refuse TIOCSTI (not the session's
# terminal); show the filter refuses it on the caller's own controlling
# terminal too, where the kernel would otherwise push the byte (or answer
# EIO when dev.tty.legacy_tiocsti is 0).
# tty_filter_only ID NAME: outside any sandbox, under a pty, NAME works
# (or answers EIO), and under the filter alone it answers EPERM.
tty_filter_only() {
	t_start "$1"
	if [ $have_script = 0 ] || [ ! -x "$TRY" ]; then
		t_skip "script(1) or $TRY missing"
		return
	fi
	ctl=$(in_pty "'$SYS' $2")
	got=$(in_pty "'$TRY' -- '$SYS' $2")
	case "$ctl|$got" in
	"ok|err EPERM"* | "err EIO"*"|err EPERM"*) t_pass ;;
	*) t_fail "control '$ctl', under the filter '$got'" ;;
	esac
}
tty_filter_only sc-tty-filter-only-tiocsti tiocsti
tty_filter_only sc-tty-filter-only-tiocsti-high tiocsti-high
# The same for the line discipline, exclusive mode and the window size:
# unconfined on a pty each works (set to what it was, undone), under the
# filter alone each answers EPERM.
tty_filter_only sc-tty-filter-only-tiocsetd tiocsetd
tty_filter_only sc-tty-filter-only-tiocexcl tiocexcl
tty_filter_only sc-tty-filter-only-tiocswinsz tiocswinsz
tty_filter_only sc-tty-filter-only-tcxonc tcxonc
# A terminal that is no session's (a serial line or a pty redirected in)
# could be taken as the command's controlling terminal: the command is a
# session leader.  Its hangup when the command exits would then cut every
# other holder off.  free_pty CMD runs CMD with fd 0 a new pty no session
# holds.
free_pty() {
	python3 -c 'import os, subprocess, sys
m, s = os.openpty()
r = subprocess.run(["sh", "-c", sys.argv[1]], stdin=s, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=30)
sys.stdout.write(r.stdout.decode())' "$1" | grep -E '^(ok|err)' | tail -1
}
t_start sc-tty-tiocsctty
got=$(free_pty "cd '$TMP/work' && '$SANDBX' sandbox-run --allow-exec '$PROBES' -- '$SYS' tiocsctty")
case $got in
"err EPERM"*) t_pass ;;
*) t_fail "on a free pty: '$got'" ;;
esac
t_start sc-tty-filter-only-tiocsctty
if [ ! -x "$TRY" ]; then
	t_skip "$TRY missing"
else
	ctl=$(free_pty "'$SYS' tiocsctty")
	got=$(free_pty "'$TRY' -- '$SYS' tiocsctty")
	case "$ctl|$got" in
	"ok|err EPERM"*) t_pass ;;
	*) t_fail "control '$ctl', under the filter '$got'" ;;
	esac
fi
# The same terminal taken without TIOCSCTTY: a session leader's open of it
# without O_NOCTTY takes it too, and /dev/stdin (/proc/self/fd/0) reopens
# it wherever Landlock lets the command read its path (--allow-read /dev
# holds /dev/pts).  free_pty_rc CMD: like free_pty, then "rc=N".
free_pty_rc() {
	python3 -c 'import os, subprocess, sys
m, s = os.openpty()
r = subprocess.run(["sh", "-c", sys.argv[1]], stdin=s, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=30)
sys.stdout.write(r.stdout.decode() + "rc=%d" % r.returncode)' "$1" | grep -E '^(ok|err|rc=)' | tr '\n' ' '
}
t_start sc-tty-reopen-ctty
bare=$(free_pty_rc "cd '$TMP/work' && '$SANDBX' sandbox-run --allow-exec '$PROBES' -- '$SYS' ctty-reopen")
dev=$(free_pty_rc "cd '$TMP/work' && '$SANDBX' sandbox-run --allow-exec '$PROBES' --allow-read /dev -- '$SYS' ctty-reopen 2>'$TMP/err.ctty'")
case "$bare|$dev" in
"err EACCES "*"rc=1 |rc=125 ") if grep -q 'standard input is a terminal' "$TMP/err.ctty"; then t_pass; else
	t_fail "refused, but not saying why: $(head -c 300 "$TMP/err.ctty")"; fi ;;
*) t_fail "on a free pty: without a grant '$bare', with --allow-read /dev '$dev' (wanted refused, exit 125)" ;;
esac
# The caller's own terminal (script(1) makes the pty its controlling
# terminal) is a session's: the reopen does not take it, and the run is not refused.
t_start sc-tty-reopen-own-ctty
if [ $have_script = 0 ]; then
	t_skip "script(1) from util-linux is not installed"
else
	got=$(in_pty "cd '$TMP/work' && '$SANDBX' sandbox-run --allow-exec '$PROBES' --allow-read /dev -- '$SYS' ctty-reopen")
	# The caller's own terminal reaches the command through a read-only
	# mount of its own, which no grant holds (sr-stdio-tty-mode-own): the
	# reopen through /dev/stdin is refused by Landlock, so nothing is
	# taken.  Before, it opened and was not taken (ENOTTY).
	case $got in
	"err EACCES"*) t_pass ;;
	*) t_fail "on the caller's own terminal with --allow-read /dev: '$got'" ;;
	esac
fi
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
# No network: the empty namespace holds IPv4, IPv6 and netlink; every
# other family is refused by the filter (EPERM, where the kernel itself
# answers EAFNOSUPPORT for a family it lacks: AF_ALG, TIPC are not built
# into every kernel, so the errno tells the filter's answer apart).
AF_ALG=38 AF_TIPC=30 RDM=4
expect_out sc-none-vsock-denied "err EPERM" -- "$SYS" socket $AF_VSOCK $STREAM 0
expect_out sc-none-udp-allowed ok -- "$SYS" socket $AF_INET $DGRAM 0
expect_out sc-none-tcp6-allowed ok -- "$SYS" socket $AF_INET6 $STREAM 0
expect_out sc-none-netlink-allowed ok -- "$SYS" socket $AF_NETLINK $DGRAM 0
expect_out sc-none-alg-denied "err EPERM" -- "$SYS" socket $AF_ALG $SEQPACKET 0
expect_out sc-none-unspec-denied "err EPERM" -- "$SYS" socket 0 $STREAM 0
expect_out sc-none-socketpair-family-denied "err EPERM" -- "$SYS" socketpair $AF_TIPC $RDM
# ... and among IPv4, IPv6 and netlink, the protocols built into the
# kernel: socket() of another has the kernel load its module (the
# filter's EPERM, where a kernel without it answers EPROTONOSUPPORT).
expect_out sc-none-sctp-denied "err EPERM" -- "$SYS" socket $AF_INET $STREAM 132
expect_out sc-none-l2tp-denied "err EPERM" -- "$SYS" socket $AF_INET6 $DGRAM 115
expect_out sc-none-mptcp-denied "err EPERM" -- "$SYS" socket $AF_INET $STREAM 262
expect_out sc-none-udp-proto-allowed ok -- "$SYS" socket $AF_INET6 $DGRAM 17
expect_out sc-none-tcp-proto-allowed ok -- "$SYS" socket $AF_INET $STREAM 6
expect_out sc-none-nfnetlink-denied "err EPERM" -- "$SYS" socket $AF_NETLINK $RAW 12
expect_out sc-none-netlink-crypto-denied "err EPERM" -- "$SYS" socket $AF_NETLINK $RAW 21
# Generic netlink is built in, but its controller, asked for a family by
# name it does not know, has the kernel load the module of that name
# (net-pf-16-proto-16-family-NAME: l2tp, gtp, wireguard, openvswitch,
# smc...) with no capability asked, as socket() would for a protocol.
# Refused without a network; the lookup itself reaches the kernel under
# bare --allow-network (its ENOENT, not the filter's EPERM).
expect_out sc-none-netlink-generic-denied "err EPERM" -- "$SYS" socket $AF_NETLINK $RAW 16
expect_out sc-none-genl-family-denied "err EPERM" -- "$SYS" genl-family sbx-nofamily
expect_out sc-any-genl-family-reached "err ENOENT" --allow-network -- "$SYS" genl-family sbx-nofamily

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
# socketpair() reaches the same families: TIPC implements it (a pair of
# connectionless sockets in the host's namespace that can sendto() any
# TIPC address).  The filter's EPERM, not the kernel's EAFNOSUPPORT.
expect_out sc-ports-socketpair-family-denied "err EPERM" $P -- "$SYS" socketpair $AF_TIPC $RDM
# glibc's AI_ADDRCONFIG probe uses netlink; getaddrinfo falls back.
expect_out sc-ports-getaddrinfo ok $P -- "$SYS" getaddrinfo
# A program steering a SO_REUSEPORT group: joined to a host listener's
# group on a listed port, the command's classic BPF would pick which
# socket gets each connection (all of them its own), and stay on the
# host's group after the run; detaching would take the host's own away.
# The filter's EPERM; under bare --allow-network the kernel takes the
# classic program unprivileged, and answers the other two itself.
expect_out sc-ports-reuseport-cbpf-denied "err EPERM" $P -- "$SYS" reuseport-cbpf
expect_out sc-ports-reuseport-ebpf-denied "err EPERM" $P -- "$SYS" reuseport-ebpf
expect_out sc-ports-reuseport-detach-denied "err EPERM" $P -- "$SYS" reuseport-detach
expect_out sc-any-reuseport-cbpf-allowed ok --allow-network -- "$SYS" reuseport-cbpf
expect_out sc-any-reuseport-ebpf-kernel "err EBADF" --allow-network -- "$SYS" reuseport-ebpf
expect_out sc-any-reuseport-detach-kernel "err ENOENT" --allow-network -- "$SYS" reuseport-detach

# Any network: nothing network-related refused but AF_UNIX.
expect_out sc-any-udp-allowed ok --allow-network -- "$SYS" socket $AF_INET $DGRAM 0
expect_out sc-any-netlink-allowed ok --allow-network -- "$SYS" socket $AF_NETLINK $RAW 0
expect_out sc-any-unix-denied "err EPERM" --allow-network -- "$SYS" socket $AF_UNIX $STREAM 0


# --- the compiled program kept between runs (sandbox/filtcache.h) -----------
# A state base of the test's own: the first run compiles and keeps the
# program, the next ones use it, and every one is confined the same.
FC_HOME="$TMP/fcstate"
FC_FILE="$FC_HOME/sandbx/filters/seccomp-net0-unix0"
mkdir -p "$FC_HOME"
fc_probe() {
	out=$(XDG_STATE_HOME="$FC_HOME" sbx sandbox-run --allow-exec "$PROBES" -- "$SYS" "$@")
	rc=$?
}
fc_ident() { stat -c '%i %Y %s' "$FC_FILE" 2>/dev/null; }
fc_denied() { case ${1:-$out} in "err EPERM"*) return 0 ;; esac; return 1; }

t_start sc-cache-kept "the first run keeps the compiled program, 0600 in 0700 directories of the user's"
fc_probe ptrace
modes=$(stat -c '%a %U' "$FC_HOME/sandbx" "$FC_HOME/sandbx/filters" "$FC_FILE" 2>/dev/null | tr '\n' ' ')
if fc_denied && [ "$modes" = "700 $T_USER 700 $T_USER 600 $T_USER " ] &&
	head -1 "$FC_FILE" | grep -q '^sandbx seccomp filter 1$'; then
	t_pass
else
	t_fail "probe '$out' (exit $rc), modes '$modes': $(head -c 300 "$TMP/err")"
fi

t_start sc-cache-kept-new-account "a new account's first run (no ~/.local) keeps the program: XDG's default base made, 0700 at every level"
FN="$TMP/fcnew"
mkdir -p "$FN" && chmod 700 "$FN"
out=$(XDG_STATE_HOME='' HOME="$FN" sbx sandbox-run --allow-exec "$PROBES" -- "$SYS" ptrace)
rc=$?
modes=$(stat -c '%a' "$FN/.local" "$FN/.local/state" "$FN/.local/state/sandbx" "$FN/.local/state/sandbx/filters" \
	"$FN/.local/state/sandbx/filters/seccomp-net0-unix0" 2>/dev/null | tr '\n' ' ')
if fc_denied && [ "$modes" = "700 700 700 700 600 " ]; then
	t_pass
else
	t_fail "probe '$out' (exit $rc), modes '$modes': $(head -c 300 "$TMP/err")"
fi

t_start sc-cache-reused "a later run uses the kept program as it is, and is confined by it"
before=$(fc_ident)
fc_probe ptrace
d1=$out
fc_probe mount
d2=$out
fc_probe getpid
if fc_denied "$d1" && fc_denied "$d2" && [ "$out" = ok ] && [ "$(fc_ident)" = "$before" ]; then
	t_pass
else
	t_fail "ptrace '$d1', mount '$d2', getpid '$out'; file '$before' -> '$(fc_ident)'"
fi

cp "$FC_FILE" "$TMP/fc.good"
# fc_tamper PYTHON-EXPR: rewrite the kept file in place (same inode) with
# b, its bytes, changed by the expression; reseal=1 makes the checksum
# whole again, as a careful editor would.
fc_tamper() {
	python3 - "$FC_FILE" "$1" "$2" <<'PY'
import sys
path, expr, reseal = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
b = bytearray(open(path, "rb").read())
exec(expr)
if reseal:
    h = 0xcbf29ce484222325
    for c in b[:-8]:
        h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
    b[-8:] = h.to_bytes(8, sys.byteorder)
open(path, "r+b").write(b)
PY
}

t_start sc-cache-damaged-recompiled "a damaged program is not loaded: compiled again, confined, the file made whole"
# the last instruction's action turned to ALLOW (0x7fff0000), checksum left
fc_tamper 'b[-12:-8] = (0x7fff0000).to_bytes(4, sys.byteorder)' 0
fc_probe ptrace
if fc_denied && cmp -s "$FC_FILE" "$TMP/fc.good"; then
	t_pass
else
	t_fail "probe '$out' (exit $rc); file whole again: $(cmp "$FC_FILE" "$TMP/fc.good" 2>&1)"
fi

t_start sc-cache-stale-recompiled "a program kept under another key (the library's inode, resealed) is compiled again"
fc_tamper '
i = b.index(b"\nlib ") + 5
line_end = b.index(b"\n", i)
f = b[i:line_end].split(b" ")
f[2] = str(int(f[2]) + 1).encode()
b[i:line_end] = b" ".join(f)' 1
fc_probe ptrace
if fc_denied && cmp -s "$FC_FILE" "$TMP/fc.good"; then
	t_pass
else
	t_fail "probe '$out' (exit $rc); file rewritten: $(cmp "$FC_FILE" "$TMP/fc.good" 2>&1)"
fi

t_start sc-cache-open-file-ignored "a kept file others may read or write is not used, and is replaced by one of mode 0600"
chmod 0666 "$FC_FILE"
before=$(stat -c %i "$FC_FILE")
fc_probe ptrace
if fc_denied && [ "$(stat -c '%a' "$FC_FILE")" = 600 ] && [ "$(stat -c %i "$FC_FILE")" != "$before" ]; then
	t_pass
else
	t_fail "probe '$out' (exit $rc); mode $(stat -c '%a' "$FC_FILE"), inode $before -> $(stat -c %i "$FC_FILE")"
fi

t_start sc-cache-grant-refused "no grant may reach the kept programs: the state directory is refused"
out=$(XDG_STATE_HOME="$FC_HOME" sbx sandbox-run --allow-write "$FC_HOME/sandbx/filters" -- /bin/true)
rc=$?
if [ $rc -eq 64 ] || [ $rc -eq 125 ]; then
	if grep -q "$FC_HOME/sandbx" "$TMP/err"; then t_pass; else t_fail "refused without naming it: $(head -c 300 "$TMP/err")"; fi
else
	t_fail "a grant of the filters directory ran (exit $rc)"
fi

# fc_weak SRC DST: DST holds SRC's key over a program that allows every
# call (one RET ALLOW), sealed: what a confined command can write in its
# own grant, having read every field of the key from inside (the build id
# from the binary, the library's and ld.so.cache's stat, uname).
fc_weak() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
body = b[:b.index(b"\n\n") + 2] + struct.pack("=I", 1) + struct.pack("=HBBI", 0x06, 0, 0, 0x7fff0000)
h = 0xcbf29ce484222325
for c in body:
    h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
open(sys.argv[2], "wb").write(body + struct.pack("=Q", h))
PY
	chmod 600 "$2"
}

t_start sc-cache-path-others-refused "a kept program reached through a directory others may write is not used"
# The same file is used while only the user may write the way to it (the
# control: the forged key is whole); once the directory holding the state
# base is open to others, who could have put any tree there, it is not.
FW="$TMP/fcshared"
mkdir -p "$FW/st/sandbx/filters" && chmod 755 "$FW" "$FW/st" && chmod 700 "$FW/st/sandbx" "$FW/st/sandbx/filters"
fc_weak "$FC_FILE" "$FW/st/sandbx/filters/seccomp-net0-unix0"
out=$(XDG_STATE_HOME="$FW/st" sbx sandbox-run --allow-exec "$PROBES" -- "$SYS" ptrace)
ctl=$out
chmod 0777 "$FW"
out=$(XDG_STATE_HOME="$FW/st" sbx sandbox-run --allow-exec "$PROBES" -- "$SYS" ptrace)
rc=$?
above=$out
# the base itself open to others: they could put another sandbx/ in it
chmod 755 "$FW" && chmod 0777 "$FW/st"
out=$(XDG_STATE_HOME="$FW/st" sbx sandbox-run --allow-exec "$PROBES" -- "$SYS" ptrace)
if [ "$ctl" = ok ] && fc_denied "$above" && fc_denied; then
	t_pass
else
	t_fail "control '$ctl' (wanted ok), a directory above open to others '$above' (exit $rc), the base '$out': $(head -c 300 "$TMP/err")"
fi

t_start sc-cache-link-grant-refused "a grant holding a symbolic link on the way to the state base is refused"
# XDG_STATE_HOME names the state through a link in the granted tree: the
# command could point it at a tree of its own holding a forged program
# (made here as it could make it), which the next run would load.
FL="$TMP/fclink"
mkdir -p "$FL/grant/evil/sandbx/filters" "$FL/real" && chmod 755 "$FL" "$FL/grant" "$FL/grant/evil" "$FL/real" &&
	chmod 700 "$FL/grant/evil/sandbx" "$FL/grant/evil/sandbx/filters"
fc_weak "$FC_FILE" "$FL/grant/evil/sandbx/filters/seccomp-net0-unix0"
ln -s "$FL/real" "$FL/grant/link"
out=$(XDG_STATE_HOME="$FL/grant/link" sbx sandbox-run --allow-write "$FL/grant" -- /bin/ln -sfn "$FL/grant/evil" "$FL/grant/link")
rc=$?
said=$(head -c 400 "$TMP/err")
out=$(XDG_STATE_HOME="$FL/grant/link" sbx sandbox-run --allow-exec "$PROBES" -- "$SYS" ptrace)
if { [ $rc -eq 64 ] || [ $rc -eq 125 ]; } && case $said in *"$FL/grant/link"*) true ;; *) false ;; esac && fc_denied; then
	t_pass
else
	t_fail "the grant ran (exit $rc: $said); the next run's ptrace '$out'"
fi

if is_root; then
	t_start sc-cache-other-home-refused "root run with another user's HOME (sudo -E) uses no program reached through that user's directories"
	# A tree of root's (as a root command writes in its grant), linked in
	# as the state base by the user whose home it is.
	FG="$TMP/fcgrant"
	FU="$TMP/fcuser"
	mkdir -p "$FG/sandbx/filters" "$FU/.local" && chmod 700 "$FG/sandbx" "$FG/sandbx/filters"
	fc_weak "$FC_FILE" "$FG/sandbx/filters/seccomp-net0-unix0"
	ln -s "$FG" "$FU/.local/state"
	chown -h 65534 "$FU" "$FU/.local" "$FU/.local/state"
	out=$(XDG_STATE_HOME='' HOME="$FU" sbx sandbox-run --allow-exec "$PROBES" -- "$SYS" ptrace)
	rc=$?
	if fc_denied; then
		t_pass
	else
		t_fail "ptrace '$out' (exit $rc): $(head -c 300 "$TMP/err")"
	fi
fi

t_done
