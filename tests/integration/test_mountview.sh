# test_mountview.sh — the mount view (only the granted paths exist) and
# the entry-point pin (issue 3), against the real kernel.
. "$(dirname "$0")/lib.sh"

W="$TMP/work"; O="$TMP/outside"
mkdir -p "$W" "$O"; chmod 755 "$W" "$O"
echo data > "$O/mine"; chmod 644 "$O/mine"
FS="$PROBES/fs"
run() { ( cd "$W" && "$SANDBX" sandbox-run --allow-exec "$PROBES" --allow-write "$W" "$@" ) 2>"$TMP/err"; }

t_start mv-works "sandbox-run runs here"
if sandbox_works; then t_pass; else t_skip "sandbox-run cannot run here"; t_done; exit 0; fi

before=$(stat -c '%a %u %g %Y' "$O/mine")
t_start mv-chmod-outside "chmod of a file outside the grants fails and leaves it unchanged"
out=$(run -- "$FS" chmod "$O/mine" 777)
case "$out" in "err ENOENT"*) [ "$(stat -c '%a %u %g %Y' "$O/mine")" = "$before" ] && t_pass || t_fail "changed" ;; *) t_fail "$out" ;; esac
t_start mv-chown-outside "chown of a file outside the grants fails"
out=$(run -- "$FS" chown "$O/mine")
case "$out" in "err ENOENT"*) t_pass ;; *) t_fail "$out" ;; esac
t_start mv-utimes-outside "utimes of a file outside the grants fails and leaves it unchanged"
out=$(run -- "$FS" utimes "$O/mine")
case "$out" in "err ENOENT"*) [ "$(stat -c '%a %u %g %Y' "$O/mine")" = "$before" ] && t_pass || t_fail "changed" ;; *) t_fail "$out" ;; esac
t_start mv-setxattr-outside "setxattr of a file outside the grants fails"
out=$(run -- "$FS" setxattr "$O/mine")
case "$out" in "err ENOENT"*) getfattr -n user.sbx "$O/mine" >/dev/null 2>&1 && t_fail "xattr set" || t_pass ;; *) t_fail "$out" ;; esac
t_start mv-stat-outside "stat of an outside path says it does not exist"
out=$(run -- "$FS" stat "$O/mine")
out2=$(run -- /bin/sh -c "test -e '$O' && echo visible || echo absent")
if [ "$out" = "err ENOENT 2" ] && [ "$out2" = absent ]; then t_pass; else t_fail "$out / $out2"; fi
t_start mv-root-listing "host directories that were not granted do not exist in the view, whose root is read-only"
# /etc holds /etc/alternatives only (mv-floor-alternatives)
out=$(run -- /bin/sh -c 'for d in /home /root /var /boot /sys /run /srv /opt /etc/passwd /etc/shadow /etc/ssh /etc/hostname; do [ -e $d ] && echo "$d exists"; done; true')
# Landlock has no right for chmod or utimes: the root tmpfs (and the
# directories made in it) must be read-only for these to fail.
ro=$(run -- /bin/sh -c "'$FS' utimes /etc; '$FS' chmod / 700")
if [ -z "$out" ] && [ "$ro" = "err EROFS 30
err EROFS 30" ]; then t_pass; else t_fail "$out / root: $ro"; fi

t_start mv-host-tree-detached "the command's mount table is the view's alone: one mount at /, the view's tmpfs, and none of the host's tree that pivot_root left stacked over it"
# With the host's tree still stacked over the view, /proc/self/mountinfo
# lists a second mount at /, the host's root filesystem, and its /sys,
# /proc and /dev beneath it.
mi=$(run --allow-read /proc -- /bin/sh -c 'cat /proc/self/mountinfo')
roots=$(printf '%s\n' "$mi" | awk '$5 == "/"' | wc -l)
rootfs=$(printf '%s\n' "$mi" | awk '$5 == "/" { for (i = 7; $i != "-"; i++); print $(i+1) }')
host=$(printf '%s\n' "$mi" | awk '$5 == "/sys" || $5 == "/dev" || $5 == "/dev/pts" || $5 ~ /^\/sys\//' | wc -l)
if [ "$roots" = 1 ] && [ "$rootfs" = tmpfs ] && [ "$host" = 0 ]; then t_pass
else t_fail "mounts at /: $roots ($rootfs); host mounts: $host; $(grep -v audit "$TMP/err" | head -2)"; fi

t_start mv-unix-outside "a pathname unix socket outside the grants cannot be dialled, even with --allow-unix-sockets"
python3 -c "
import socket,os,time
p='$O/sock'
s=socket.socket(socket.AF_UNIX);s.bind(p);s.listen(1);s.settimeout(5)
try:
    c,_=s.accept();open('$O/dialled','w').write('1')
except Exception: pass
" & lis=$!
i=0; while [ ! -S "$O/sock" ] && [ $i -lt 50 ]; do sleep 0.05; i=$((i+1)); done
out=$(run --allow-unix-sockets -- "$FS" unix-connect "$O/sock")
kill $lis 2>/dev/null; wait $lis 2>/dev/null
if [ ! -e "$O/dialled" ] && [ "${out%% *}" = err ]; then t_pass; else t_fail "$out"; fi

t_start mv-readonly-floor "the system directories are read-only and nosuid in the view"
out=$(run -- /bin/sh -c "touch /usr/sbx-test 2>&1; grep ' /usr ' /proc/self/mountinfo 2>/dev/null; true")
case "$out" in *"Read-only file system"*) t_pass ;; *) t_fail "$out" ;; esac

t_start mv-floor-alternatives "programs reached through /etc/alternatives run (awk); that directory is read-only and the rest of /etc absent"
if [ -L /usr/bin/awk ] && [ "$(readlink /usr/bin/awk)" = /etc/alternatives/awk ]; then
	out=$(run -- /bin/sh -c 'echo a b | awk "{print \$2}"; touch /etc/alternatives/sbx 2>/dev/null && echo wrote; test -e /etc/passwd && echo passwd; true')
	if [ "$out" = b ] && grep -q 'ro=/etc/alternatives' "$TMP/err"; then t_pass; else t_fail "$out $(cat "$TMP/err")"; fi
else t_skip "/usr/bin/awk is not a Debian alternatives link here"; fi

t_start mv-proc-hostname "writing /proc/sys/kernel/hostname is refused, also as root"
out=$(run --allow-read /proc -- /bin/sh -c 'echo evil > /proc/sys/kernel/hostname && echo wrote')
if [ "$out" != wrote ] && [ "$(hostname)" != evil ]; then t_pass; else t_fail "$out"; fi

t_start mv-uts-names "the host's names are not in the sandbox: uname's node name reads sandbx and its NIS domain name (none), whatever the caller's are"
# The caller's names are set in a uts namespace of the test's own (a user
# namespace maps the caller to root there), so the machine's stay as they are.
if ! command -v unshare >/dev/null; then t_skip "no unshare(1) to give the caller names of its own"
else
	out=$(cd "$W" && unshare --user --map-root-user --uts /bin/sh -c \
		'hostname host-rt-name && domainname host-rt-nis && "$0" sandbox-run -- /bin/sh -c "uname -n; domainname"' \
		"$SANDBX" 2>"$TMP/err")
	if [ "$out" = "sandbx
(none)" ]; then t_pass; else t_fail "'$out' $(cat "$TMP/err")"; fi
fi

t_start mv-proc-keys-masked "with --allow-read /proc, /proc/keys and /proc/key-users read empty: the caller's keyring names (its session keyring, kerberos or AFS tokens) are not listed, while the rest of /proc reads"
hostkeys=$(wc -c < /proc/keys)
out=$(run --allow-read /proc -- /bin/sh -c 'printf "keys=%s users=%s " "$(wc -c < /proc/keys)" "$(wc -c < /proc/key-users)"; head -c 4 /proc/self/stat >/dev/null && echo stat')
if [ "$hostkeys" -eq 0 ]; then t_fail "the host's /proc/keys lists nothing here: the test shows nothing"
elif [ "$out" = "keys=0 users=0 stat" ]; then t_pass
else t_fail "host lists $hostkeys bytes; in the sandbox: $out $(cat "$TMP/err")"; fi

# ---- /dev nodes ----
t_start mv-dev-readonly "the /dev nodes work but their host inodes cannot be changed: chmod (to its own mode, harmless if it ever succeeds) and touch of /dev/full fail, the host's times stay"
before=$(stat -c '%a %u %g %X %Y' /dev/full)
out=$(run -- /bin/sh -c 'echo x > /dev/null && echo null; head -c 3 /dev/zero | wc -c; head -c 3 /dev/urandom | wc -c; chmod 666 /dev/full 2>&1; touch /dev/full 2>&1; true')
case "$out" in
"null
3
3
"*"Read-only file system"*"Read-only file system"*)
	[ "$(stat -c '%a %u %g %X %Y' /dev/full)" = "$before" ] && t_pass || t_fail "host /dev/full changed: $before -> $(stat -c '%a %u %g %X %Y' /dev/full)" ;;
*) t_fail "$out" ;;
esac

# ---- /dev/shm ----
mark="/dev/shm/sbx-host-mark.$$"
: > "$mark"
t_start mv-shm-private "/dev/shm is the sandbox's own: the host's files absent, writable, gone after the run"
out=$(run -- /bin/sh -c 'ls -A /dev/shm; echo x > /dev/shm/sbx-inside.'$$' && cat /dev/shm/sbx-inside.'$$)
if [ "$out" = x ] && [ ! -e "/dev/shm/sbx-inside.$$" ] && [ -e "$mark" ]; then t_pass; else t_fail "$out"; fi

t_start mv-shm-semaphore "POSIX semaphores work in the sandbox: Python's multiprocessing.Lock"
if [ -x /usr/bin/python3 ]; then
	out=$(run -- /usr/bin/python3 -c 'import multiprocessing as m; m.Lock(); print("ok")' 2>&1)
	if [ "$out" = ok ]; then t_pass; else t_fail "$out"; fi
else t_skip "no /usr/bin/python3"; fi

# The dynamic loader maps a program with mmap(PROT_EXEC), which Landlock's
# execute right does not cover: only a noexec mount refuses it.
LDSO=$(readelf -l /bin/echo 2>/dev/null | sed -n 's/.*program interpreter: \(.*\)]$/\1/p')
t_start mv-shm-noexec "a program copied into /dev/shm cannot be executed, also not through the dynamic loader"
out=$(run -- /bin/sh -c "cp '$FS' /dev/shm/p && /dev/shm/p getpid; echo rc=\$?" 2>&1)
ld=$(run -- /bin/sh -c "cp /bin/echo /dev/shm/e && '$LDSO' /dev/shm/e mapped-and-ran; echo rc=\$?")
case "$out/$ld/$(cat "$TMP/err")" in *"rc=126/rc=127/"*"failed to map"*) t_pass ;; *) t_fail "$out; loader: $ld $(cat "$TMP/err")" ;; esac

t_start mv-shm-capped "/dev/shm holds 64 MiB and no more; with --limit-memory, no more than the limit"
out=$(run -- /bin/sh -c 'head -c 67108864 /dev/zero > /dev/shm/a && echo fit; head -c 4096 /dev/zero >> /dev/shm/a 2>/dev/null || echo full')
size=$(run --limit-memory 16M -- /usr/bin/python3 -c "import os; s=os.statvfs('/dev/shm'); print(s.f_blocks * s.f_frsize)" 2>&1)
if [ "$out" = "fit
full" ] && [ "$size" = 16777216 ]; then t_pass; else t_fail "64 MiB: $out; size with --limit-memory 16M: $size"; fi

t_start mv-shm-granted "a grant naming /dev/shm gets the host's, with the granted rights only"
out=$(run --allow-read /dev/shm -- /bin/sh -c "test -e '$mark' && echo seen; echo x > /dev/shm/sbx-w.$$ 2>/dev/null && echo wrote; true")
if [ "$out" = seen ] && [ ! -e "/dev/shm/sbx-w.$$" ]; then t_pass; else t_fail "$out"; fi
rm -f "$mark" "/dev/shm/sbx-w.$$" "/dev/shm/sbx-inside.$$"

# ---- an mqueue mount in a granted tree (systemd's /dev/mqueue under
# --allow-read /dev): made here in a user+ipc+mount namespace of the test's
# own, whose queues stand for the host's ----
MQ="$TMP/mqh"; mkdir -p "$MQ/mq"; chmod 755 "$MQ" "$MQ/mq"
MQP="$PROBES/mq"
# mqrun GRANT: in the test's namespaces, mount mqueue at $MQ/mq, queue one
# message as the host, run the sandbox with a read grant GRANT listing the
# mount, taking the message, making a queue of its own and listing again;
# then count what the host's queue still holds.
mqrun() {
	( cd "$W" && unshare -Urim sh -c '
		mount -t mqueue none "$1/mq" || { echo nomount; exit 0; }
		"$2" send /sbxmq-host secret >/dev/null || { echo nosend; exit 0; }
		"$3" sandbox-run --allow-exec "$4" --allow-read "$5" -- /bin/sh -c "
			echo ls1=\$(ls -A $1/mq | tr \"\\n\" \" \")
			echo recv=\$($2 recv-path $1/mq/sbxmq-host)
			$2 send /sbxmq-own x >/dev/null
			echo ls2=\$(ls -A $1/mq | tr \"\\n\" \" \")"
		echo rc=$?
		echo host=$("$2" count /sbxmq-host)' sh "$MQ" "$MQP" "$SANDBX" "$PROBES" "$1" ) 2>"$TMP/err"
}
t_start mv-mqueue-private "a read grant holding an mqueue mount shows the sandbox's own queues there, not the host's: a host queue is neither listed nor received from"
if ! unshare -Urim true 2>/dev/null; then t_skip "unshare -Urim (user, ipc and mount namespaces) is not available"
else
	out=$(mqrun "$MQ")
	case "$out" in
	nomount*|nosend*) t_skip "cannot mount mqueue or make a queue in a namespace of the test's own: $out" ;;
	"ls1=
recv=err ENOENT"*"
ls2=sbxmq-own
rc=0
host=ok 1") t_pass ;;
	*) t_fail "$out $(cat "$TMP/err")" ;;
	esac
fi

t_start mv-mqueue-granted "a grant naming the mqueue mount shares the host's queues, with the granted rights (read: listed, no queue made there)"
if ! unshare -Urim true 2>/dev/null; then t_skip "unshare -Urim (user, ipc and mount namespaces) is not available"
else
	out=$(mqrun "$MQ/mq")
	case "$out" in
	nomount*|nosend*) t_skip "cannot mount mqueue or make a queue in a namespace of the test's own: $out" ;;
	"ls1=sbxmq-host
recv="*"
ls2=sbxmq-host
rc=0
host=ok "*) t_pass ;;
	*) t_fail "$out $(cat "$TMP/err")" ;;
	esac
fi

# ---- a hugetlbfs mount in a granted tree (systemd's /dev/hugepages under
# --allow-read /dev): mapping a file of holes there takes pages of the
# machine's huge-page pool, which stay with the file after the run ----
HUGE_NONE="no hugetlbfs to test with: as root one could not be mounted (a kernel without hugetlbfs or 2 MiB pages?); as another user, who cannot mount one even in a user namespace, the host has none whose parent is not / (scripts/ci-unprivileged.sh mounts one)"
if huge_mount "$TMP/huge"; then
	is_root && huge_pool 4
	HPG=${HP%/*}
fi
t_start mv-hugetlbfs-masked "a read grant holding a hugetlbfs mount shows an empty read-only directory there: the host's files are neither listed nor mapped, and the huge-page pool keeps its free pages"
if [ -z "$HP" ]; then t_skip "$HUGE_NONE"
else
	free0=$(huge_free)
	out=$( ( cd "$W" && "$SANDBX" sandbox-run --allow-exec "$PROBES" --allow-read "$HPG" -- /bin/sh -c "
		echo ls=\$(ls -A '$HP' | wc -l) fs=\$(stat -f -c %T '$HP')
		echo map=\$('$FS' map-read '${HPF:-$HP/holes}' 2097152)
		mkdir '$HP/d' 2>/dev/null && echo wrote; true" ) 2>"$TMP/err")
	free1=$(huge_free)
	# as root the pool holds 4 pages, all free before; a file of holes
	# mapped would take them all
	if is_root && [ "$free0" != 4 ]; then t_skip "the kernel could not give the huge-page pool 4 pages (HugePages_Free: $free0)"
	elif [ "$out" = "ls=0 fs=tmpfs
map=err ENOENT 2" ] && [ "$free1" = "$free0" ]; then t_pass
	else t_fail "$(printf '%s' "$out" | tr '\n' ';') pool free $free0 -> $free1 $(grep -v '^sandbx audit' "$TMP/err" | head -c 300)"; fi
fi

t_start mv-hugetlbfs-named-refused "a read or execute grant naming a hugetlbfs mount, or a file in it, is refused before anything runs, naming the mount"
if [ -z "$HP" ]; then t_skip "$HUGE_NONE"
else
	bad=""
	out=$( ( cd "$W" && "$SANDBX" sandbox-run --allow-read "$HP" -- /bin/echo ran ) 2>"$TMP/err"); rc=$?
	[ $rc -eq 125 ] && [ -z "$out" ] && grep -qF -- "--allow-read '$HP' lies in a hugetlbfs mount at '$HP': a command mapping a file there would take pages of the machine's huge-page pool" "$TMP/err" ||
		bad="$bad named: rc=$rc $out $(cat "$TMP/err");"
	if [ -n "$HPF" ]; then
		free0=$(huge_free)
		out=$( ( cd "$W" && "$SANDBX" sandbox-run --allow-exec "$PROBES" --allow-exec "$HPF" -- "$FS" map-read "$HPF" 2097152 ) 2>"$TMP/err"); rc=$?
		[ $rc -eq 125 ] && [ -z "$out" ] && [ "$(huge_free)" = "$free0" ] &&
			grep -qF -- "--allow-exec '$HPF' lies in a hugetlbfs mount at '$HP'" "$TMP/err" ||
			bad="$bad a file in it: rc=$rc $out pool free $free0 -> $(huge_free) $(cat "$TMP/err");"
	fi
	if [ -z "$bad" ]; then t_pass; else t_fail "$bad"; fi
fi
huge_umount

# ---- /tmp: the other tests work under /tmp, whose grants keep the host's
# /tmp out; these run from a tree outside it ----
V=$(mktemp -d /var/tmp/sbxv.XXXXXX); chmod 755 "$V"
cp "$FS" "$V/fs"	# $PROBES may itself lie in /tmp
vrun() { ( cd "$V" && "$SANDBX" sandbox-run --allow-write "$V" "$@" ) 2>"$TMP/err"; }
hostmark=$(mktemp /tmp/sbx-host-mark.XXXXXX)
t_start mv-tmp-private "/tmp is the sandbox's own when no grant lies in it: empty, writable (mktemp), 64 MiB with no --limit-memory, gone after the run"
out=$(vrun -- /bin/sh -c 'ls -A /tmp; f=$(mktemp) && echo made; echo x > /tmp/sbx-in.'$$' && cat /tmp/sbx-in.'$$)
size=$(vrun -- /usr/bin/python3 -c "import os; s=os.statvfs('/tmp'); print(s.f_blocks * s.f_frsize)" 2>&1)
if [ "$out" = "made
x" ] && [ ! -e "/tmp/sbx-in.$$" ] && [ "$size" = 67108864 ]; then t_pass; else t_fail "$out size=$size $(cat "$TMP/err")"; fi

t_start mv-tmp-noexec "a program copied into the private /tmp cannot be executed, also not through the dynamic loader; it holds no more than --limit-memory"
out=$(vrun -- /bin/sh -c "cp '$V/fs' /tmp/p && /tmp/p getpid; echo rc=\$?" 2>&1)
ld=$(vrun -- /bin/sh -c "cp /bin/echo /tmp/e && '$LDSO' /tmp/e mapped-and-ran; echo rc=\$?")
lderr=$(cat "$TMP/err")
size=$(vrun --limit-memory 16M -- /usr/bin/python3 -c "import os; s=os.statvfs('/tmp'); print(s.f_blocks * s.f_frsize)" 2>&1)
case "$out/$size/$ld/$lderr" in *"rc=126/16777216/rc=127/"*"failed to map"*) t_pass ;; *) t_fail "$out / size $size; loader: $ld $lderr" ;; esac

t_start mv-tmp-granted "with a grant inside /tmp, /tmp holds that grant's path, read-only around it, and none of the host's other files"
out=$(run -- /bin/sh -c "test -e '$hostmark' && echo seen; mktemp >/dev/null 2>&1 && echo made; test -d '$W' && echo grant; true")
if [ "$out" = grant ]; then t_pass; else t_fail "$out"; fi
rm -rf "$V" "$hostmark"

t_start mv-nested-grant-pinned "a read or exec grant two levels inside a write grant cannot be swapped out: the directories between are not renamed, the host's file keeps its content, and the rest of the tree stays writable"
NG="$W/ng"; mkdir -p "$NG/d/rodir" "$NG/tools/bin"; echo orig > "$NG/d/rodir/f"; chmod -R 755 "$NG"; chmod 644 "$NG/d/rodir/f"
out=$( ( cd "$NG" && "$SANDBX" sandbox-run --allow-write "$NG" --allow-read "$NG/d/rodir" --allow-exec "$NG/tools/bin" -- \
	/bin/sh -c 'mv d d.old 2>/dev/null && echo moved-d; mv tools t2 2>/dev/null && echo moved-tools
		mkdir -p d/rodir 2>/dev/null; echo EVIL > d/rodir/f 2>/dev/null && echo wrote; echo new > d/new && echo d-writable' ) 2>"$TMP/err")
if [ "$out" = d-writable ] && [ "$(cat "$NG/d/rodir/f")" = orig ] && [ ! -e "$NG/d.old" ] && [ ! -e "$NG/t2" ]; then t_pass
else t_fail "out=$out f=$(cat "$NG/d/rodir/f") $(ls "$NG") $(cat "$TMP/err")"; fi
rm -rf "$NG"

# ---- the pin ----
cp "$PROBES/fs" "$W/pinned"; chmod 755 "$W/pinned"
P="$TMP/pinx"; mkdir -p "$P"; chmod 755 "$P"; cp "$PROBES/fs" "$P/fs"; chmod 755 "$P/fs"
good=$("$SANDBX" hash "$P/fs")
bad=$(printf '%064d' 0)
prun() { ( cd "$W" && "$SANDBX" sandbox-run --allow-exec "$P" --allow-write "$W" "$@" ) 2>"$TMP/err"; }
t_start pin-match "a matching pin runs the program"
out=$(prun --pin-sha256 "$good" -- "$P/fs" getpid)
if [ "$out" = "ok 2" ]; then t_pass; else t_fail "$out $(cat "$TMP/err")"; fi
t_start pin-mismatch "a mismatching pin refuses before anything runs, naming both digests"
out=$(prun --pin-sha256 "$bad" -- "$P/fs" write "$W/ran")
rc=$?
if [ $rc -eq 125 ] && [ ! -e "$W/ran" ] && grep -q "$bad" "$TMP/err" && grep -q "$good" "$TMP/err"; then t_pass; else t_fail "rc=$rc $(cat "$TMP/err")"; fi
t_start pin-same-inode "the executed inode is the hashed one; when another file is renamed over the path after the pin was opened, nothing runs"
want=$(stat -c '%d:%i' "$P/fs")
out=$(prun --pin-sha256 "$good" -- "$P/fs" self-ino)
# Library level: the pinned descriptor is opened, then a copy is renamed
# over the path before the helper starts.  The helper executes the file
# at its path in the view only if it is the descriptor's inode
# (pin-exe-readonly says why), so the one now there does not run, and
# neither does the hashed one, which the view no longer holds.
cp "$PROBES/fs" "$P/fs2"; chmod 755 "$P/fs2"; cp "$PROBES/fs" "$P/fs.new"; chmod 755 "$P/fs.new"
out2=$( cd "$W" && "$TESTTOOLS/policyrun" --exec "$P" --write "$W" --pin-swap "$P/fs.new" -- "$P/fs2" self-ino 2>"$TMP/err")
rc2=$?
if [ "$out" = "ok $want" ] && [ -z "$out2" ] && [ $rc2 -eq 125 ] && grep -q 'refused mechanism=pin' "$TMP/err"; then t_pass
else t_fail "$out != $want; swapped: '$out2' rc=$rc2 $(cat "$TMP/err")"; fi
t_start pin-exe-readonly "the pinned program runs from the view's read-only mount: chmod, utimes and setxattr through /proc/self/exe fail and leave the host's file unchanged"
# The pin is opened in the harness, on the host's own mount, where the
# file is writable by its owner (root's files, for a root caller); the
# command's /proc/self/exe leads back to that descriptor's mount unless
# the helper executes the file through the view.  Landlock has no right
# for chmod, utimes or xattrs: only a read-only mount refuses them.
cp "$PROBES/fs" "$P/fsx"; chmod 755 "$P/fsx"
xh=$("$SANDBX" hash "$P/fsx")
before=$(stat -c '%a %Y' "$P/fsx")
o1=$(prun --pin-sha256 "$xh" -- "$P/fsx" chmod /proc/self/exe 777)
o2=$(prun --pin-sha256 "$xh" -- "$P/fsx" utimes /proc/self/exe)
o3=$(prun --pin-sha256 "$xh" -- "$P/fsx" setxattr /proc/self/exe)
after=$(stat -c '%a %Y' "$P/fsx")
ok=$(prun --pin-sha256 "$xh" -- "$P/fsx" getpid)
if [ "$o1" = "err EROFS 30" ] && [ "$o2" = "err EROFS 30" ] && [ "$o3" = "err EROFS 30" ] &&
	[ "$after" = "$before" ] && [ "$ok" = "ok 2" ]; then t_pass
else t_fail "chmod: $o1; utimes: $o2; setxattr: $o3; mode/mtime $before -> $after; run: $ok $(cat "$TMP/err")"; fi
rm -f "$P/fsx"
t_start pin-script "a #! script is refused under a pin"
printf '#!/bin/sh\necho ran\n' > "$P/script"; chmod 755 "$P/script"
sh_hash=$("$SANDBX" hash "$P/script")
out=$(prun --pin-sha256 "$sh_hash" -- "$P/script")
rc=$?
if [ $rc -eq 125 ] && [ "$out" != ran ] && grep -q "script" "$TMP/err"; then t_pass; else t_fail "rc=$rc $out"; fi
t_start pin-needs-exec-grant "a pinned program outside every execute grant is refused"
out=$( cd "$W" && "$SANDBX" sandbox-run --allow-read "$P" --allow-write "$W" --pin-sha256 "$good" -- "$P/fs" getpid 2>"$TMP/err")
rc=$?
if [ $rc -eq 125 ] && grep -q "not under a path granted execute" "$TMP/err"; then t_pass; else t_fail "rc=$rc $(cat "$TMP/err")"; fi

t_start pin-fifo "a pinned program that is a FIFO (one an earlier run could have made in its write grant) is refused at once, exit 125, nothing run (before, sandbx blocked for ever opening it)"
mkfifo "$P/fifo"
out=$( cd "$W" && timeout 10 "$SANDBX" sandbox-run --allow-exec "$P" --allow-write "$W" --pin-sha256 "$good" -- "$P/fifo" 2>"$TMP/err")
rc=$?
rm -f "$P/fifo"
if [ $rc -eq 125 ] && [ -z "$out" ] && grep -q "^sandbx: pinned program '$P/fifo' is not a regular file" "$TMP/err"; then t_pass
else t_fail "rc=$rc $(cat "$TMP/err")"; fi

t_start pin-rewrite-held "a pinned program rewritten in place (same inode) between the hash and the exec does not run: the writer is held off or refused, the hashed bytes run (before, the new bytes ran under the pin)"
# pinwrite, a process of the caller's, writes /usr/bin/id's bytes over
# the pinned fs probe at its second open (the helper's, after the hash),
# as another run with write on the tree could; the inode stays the one
# hashed, so only a hold on the bytes tells the two apart.
cp "$PROBES/fs" "$P/fsw"; chmod 755 "$P/fsw"; cp "$P/fsw" "$TMP/fsw.orig"
wh=$("$SANDBX" hash "$P/fsw")
# A writer that wakes only after the run has ended writes freely ("wrote"
# beside the hashed bytes' answer: the file was still the hashed one when
# it ran, else the program would be id).  Such a round shows nothing about
# the hold and is not counted; slow builds (the sanitized one) see a few,
# so up to eight rounds run until three have caught the writer in time.
res="" held=0 late=0
for i in 1 2 3 4 5 6 7 8; do
	[ $held -ge 3 ] && break
	cp "$TMP/fsw.orig" "$P/fsw"
	timeout 30 "$TESTTOOLS/pinwrite" "$P/fsw" /usr/bin/id 2 >"$TMP/pw" 2>"$TMP/pw.err" &
	pw=$!
	for _ in 1 2 3 4 5 6 7 8 9 10; do grep -q ready "$TMP/pw.err" && break; sleep 0.1; done
	out=$(prun --pin-sha256 "$wh" -- "$P/fsw" getpid)
	rc=$?
	wait $pw
	w=$(cat "$TMP/pw")
	case "$rc $out $w" in
	"0 ok 2 err EWOULDBLOCK"|"0 ok 2 err Text file busy")
		if cmp -s "$TMP/fsw.orig" "$P/fsw"; then held=$((held + 1)); else res="$res [$i: file changed]"; fi ;;
	"0 ok 2 wrote") late=$((late + 1)) ;;
	*) res="$res [$i: rc=$rc out='$out' writer='$w' $(grep -v audit "$TMP/err" | head -1)]" ;;
	esac
done
rm -f "$P/fsw" "$TMP/fsw.orig"
if [ -z "$res" ] && [ $held -ge 3 ]; then t_pass; else t_fail "held $held, writer late $late:$res"; fi
t_start pin-open-for-write-refused "a pinned program open for writing elsewhere is refused before anything runs (exit 125), saying so"
cp "$PROBES/fs" "$P/fso"; chmod 755 "$P/fso"
oh=$("$SANDBX" hash "$P/fso")
out=$( exec 7>>"$P/fso"; prun --pin-sha256 "$oh" -- "$P/fso" write "$W/ran-open" )
rc=$?
rm -f "$P/fso"
if [ $rc -eq 125 ] && [ ! -e "$W/ran-open" ] && grep -q "^sandbx: pinned program '$P/fso' is open for writing by another process" "$TMP/err"; then t_pass
else t_fail "rc=$rc $(cat "$TMP/err")"; fi

t_start pin-lease-broken-refused "a pinned run held between the hash and the exec (started in the background, waiting for fg) longer than the kernel holds a writer off is refused before anything runs: the writer let through may have changed the bytes (before, they ran under the pin)"
# The lease holds a writer off for fs.lease-break-time, then the kernel
# lets it through: here dd writes /usr/bin/id's bytes over the pinned
# probe (same inode) while the run waits for fg.  1 s as root, who may
# set it for the test; the kernel's default (45 s) for a user.
cp "$PROBES/fs" "$P/fsb"; chmod 755 "$P/fsb"
bh=$("$SANDBX" hash "$P/fsb")
lbt=$(cat /proc/sys/fs/lease-break-time)
[ "$(id -u)" = 0 ] && echo 1 > /proc/sys/fs/lease-break-time
brk=$(cat /proc/sys/fs/lease-break-time)
cat > "$TMP/pb.sh" <<IN
set -m
cd "$W"
"$SANDBX" sandbox-run --allow-exec "$P" --allow-write "$W" --pin-sha256 "$bh" -- "$P/fsb" getpid >"$TMP/pb.out" 2>"$TMP/pb.err" &
sleep 0.5
jobs -l
dd if=/usr/bin/id of="$P/fsb" conv=notrunc 2>/dev/null && echo written
fg >/dev/null
echo "rc=\$?"
IN
out=$( (sleep $((brk + 4))) | timeout $((brk + 60)) script -qec "bash $TMP/pb.sh" /dev/null 2>/dev/null | tr -d '\r')
[ "$(id -u)" = 0 ] && echo "$lbt" > /proc/sys/fs/lease-break-time
case "$out" in
*"Stopped"*written*"rc=125"*)
	if grep -q "the pinned program was opened for writing while the run waited to start" "$TMP/pb.err" &&
		! grep -q "ok 2\|uid=\|getpid" "$TMP/pb.out"; then t_pass
	else t_fail "out: $(cat "$TMP/pb.out") err: $(cat "$TMP/pb.err")"; fi ;;
*) t_fail "$out / out: $(cat "$TMP/pb.out") err: $(grep -v '^sandbx audit' "$TMP/pb.err")" ;;
esac
rm -f "$P/fsb"

# Where no lease can be had (a file of another owner's, F_SETLEASE's
# EACCES; leases turned off, EINVAL), the bytes cannot be held still
# between the hash and the exec: a program the caller may write is
# refused, one it cannot write runs as before.  As root the kernel leases
# any file, so the test turns leases off (fs.leases-enable) for the
# run, and root cannot write a file on a read-only mount; as a user,
# /usr/bin/true is root's, and scripts/ci-unprivileged.sh leaves a file of
# root's that every user may write (SANDBX_FOREIGN_WRITABLE).
nolease_on() { [ "$(id -u)" = 0 ] && echo 0 > /proc/sys/fs/leases-enable; }
nolease_off() { [ "$(id -u)" = 0 ] && echo "$leases_was" > /proc/sys/fs/leases-enable; }
leases_was=$(cat /proc/sys/fs/leases-enable)

t_start pin-nolease-unwritable-runs "a pinned program no lease can be had on, which the caller cannot write, runs under its pin"
if [ "$(id -u)" = 0 ]; then
	R="$TMP/pinro"; mkdir -p "$R"; cp "$PROBES/fs" "$R/fs"; chmod 755 "$R" "$R/fs"
	rh=$("$SANDBX" hash "$R/fs")
	if mount --bind "$R" "$R" && mount -o remount,bind,ro "$R"; then
		nolease_on
		out=$(prun --allow-exec "$R" --pin-sha256 "$rh" -- "$R/fs" getpid)
		rc=$?
		nolease_off
		umount "$R"
		if [ "$out" = "ok 2" ]; then t_pass; else t_fail "rc=$rc out='$out' $(grep -v audit "$TMP/err")"; fi
	else
		t_fail "cannot make a read-only bind mount at $R"
	fi
else
	th=$("$SANDBX" hash /usr/bin/true)
	out=$(prun --pin-sha256 "$th" -- /usr/bin/true)
	rc=$?
	if [ $rc -eq 0 ] && [ "$(stat -c %u /usr/bin/true)" = 0 ]; then t_pass
	else t_fail "rc=$rc $(grep -v audit "$TMP/err")"; fi
fi

t_start pin-nolease-writable-refused "a pinned program no lease can be had on, which the caller may write, is refused before anything runs, saying why"
fw=""
if [ "$(id -u)" = 0 ]; then
	fw="$P/fsn"; cp "$PROBES/fs" "$fw"; chmod 755 "$fw"
else
	fw=${SANDBX_FOREIGN_WRITABLE:-}
fi
if [ -n "$fw" ] && [ -f "$fw" ] && [ -w "$fw" ] && { [ "$(id -u)" = 0 ] || [ "$(stat -c %u "$fw")" != "$(id -u)" ]; }; then
	nh=$("$SANDBX" hash "$fw")
	nolease_on
	out=$(prun --allow-exec "$(dirname "$fw")" --pin-sha256 "$nh" -- "$fw" write "$W/ran-nolease")
	rc=$?
	nolease_off
	if [ $rc -eq 125 ] && [ -z "$out" ] && [ ! -e "$W/ran-nolease" ] &&
		grep -q "^sandbx: pinned program '$fw' cannot be held against writes during the run (.*), and you may write it" "$TMP/err"; then t_pass
	else t_fail "rc=$rc out='$out' $(grep -v audit "$TMP/err")"; fi
	[ "$(id -u)" = 0 ] && rm -f "$fw"
else
	t_skip "no file of another user's that $(id -un) may write (scripts/ci-unprivileged.sh makes one: SANDBX_FOREIGN_WRITABLE)"
fi

# ---- binfmt_misc ----
t_start mv-binfmt-fixed-interp "a binfmt_misc handler of the caller's whose interpreter was opened at registration (flag F: qemu-user's, Docker's binfmt) does not run in the sandbox: not from outside every grant, and not on the host's mount"
# Since Linux 6.7 a user namespace may have a binfmt_misc of its own,
# which its descendants use: the caller's is made here, in a namespace of
# the test's (the host's is left alone), with an F handler whose
# interpreter (the fs probe, as binfmt-interp) lies outside every grant.
# Outside the sandbox the handler runs it; inside, before, it ran too,
# from the host's mount, where chmod of /proc/self/exe worked.
B="$TMP/binfmt"; mkdir -p "$B/bin" "$B/ext" "$B/mnt"; chmod -R 755 "$B"
cp "$PROBES/fs" "$B/ext/binfmt-interp"; chmod 755 "$B/ext/binfmt-interp"
printf '\177SBXBFMT\n' > "$B/bin/foreign"; chmod 755 "$B/bin/foreign"
out=$(unshare -Urm sh -c '
	mount -t binfmt_misc binfmt_misc "$1/mnt" 2>/dev/null || { echo no-binfmt-userns; exit 0; }
	printf ":sbxbfmt:M::\\x7fSBXBFMT::%s:F\n" "$1/ext/binfmt-interp" > "$1/mnt/register" || exit 1
	echo "control: $("$1/bin/foreign")"
	s=$("$2" sandbox-run --allow-exec "$1/bin" -- "$1/bin/foreign" </dev/null)
	echo "sandbox: $s rc=$?"
' sh "$B" "$SANDBX" 2>"$TMP/err")
case $out in
no-binfmt-userns*|"") t_skip "no binfmt_misc of a user namespace's own here (Linux 6.7+, unshare -Urm): $out $(head -c 200 "$TMP/err")" ;;
*)
	# Without a handler the file is no program: execvp hands it to
	# /bin/sh, which finds no command in it.
	ctl=$(printf '%s\n' "$out" | sed -n 's/^control: //p')
	sbx=$(printf '%s\n' "$out" | sed -n 's/^sandbox: //p')
	if [ "$ctl" = "interp ok" ] && case $sbx in *interp*|*" rc=0") false ;; " rc="*) true ;; *) false ;; esac; then t_pass
	else t_fail "$(printf '%s' "$out" | tr '\n' ';') $(grep -v '^sandbx audit' "$TMP/err" | head -c 300)"; fi ;;
esac

# atime: a read-only grant is a read-only mount, where reads write no
# atime; reads in a writable grant update it as the host's mount says
# (relatime here: when it is older than the file's mtime or a day old).
# F's atime is set to 2020 first, so a read under relatime updates it.
AT="$TMP/atime"
mkdir -p "$AT"; echo data >"$AT/f"; chmod -R a+rX "$AT"
t_start mv-atime-readonly-kept "a read through a read-only grant leaves the file's atime as it was"
touch -a -d 2020-01-01 "$AT/f"
out=$( ( cd "$W" && "$SANDBX" sandbox-run --allow-read "$AT" -- /bin/cat "$AT/f" ) 2>"$TMP/err")
got=$(stat -c %X "$AT/f")
if [ "$out" = data ] && [ "$got" = "$(date -d 2020-01-01 +%s)" ]; then t_pass
else t_fail "read '$out', atime now $(stat -c %x "$AT/f")"; fi
t_start mv-atime-writable-updated "a read through a writable grant updates the atime as the host's mount does"
touch -a -d 2020-01-01 "$AT/f"
out=$( ( cd "$W" && "$SANDBX" sandbox-run --allow-write "$AT" -- /bin/cat "$AT/f" ) 2>"$TMP/err")
case $(findmnt -no OPTIONS -T "$AT") in
*noatime*) t_skip "the host mounts $AT noatime" ;;
*) if [ "$out" = data ] && [ "$(stat -c %X "$AT/f")" -gt "$(date -d 2021-01-01 +%s)" ]; then t_pass
   else t_fail "read '$out', atime now $(stat -c %x "$AT/f")"; fi ;;
esac

t_done
