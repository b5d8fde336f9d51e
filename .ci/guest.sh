#!/usr/bin/env bash
# Prepares the kernel interop guest (a QEMU VM running Linux SCTP) and prints ONLY its directory on stdout.
#
# The guest is a Debian cloud kernel booted under QEMU (TCG) by sctp/internal/kernelvm.
# This script installs qemu-system-x86 and busybox-static when they are missing, downloads
# the kernel package with `apt-get download` (nothing is installed into the host kernel),
# unpacks it with `dpkg -x`, extracts the uncompressed vmlinux from the bzImage (QEMU boots
# it through its PVH entry), and collects the sctp and virtio-net modules with their
# dependencies (read from each module's .modinfo), decompressed. Everything is cached in
#
#   ${USCTP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/usctp}/guest-<package>_<version>/
#
# keyed by the kernel package's name and version; a second run only checks the cache.
#
# Environment:
#   USCTP_GUEST_KERNEL  which kernel: "6.1" (default, linux-image-cloud-amd64, the
#                       distribution's kernel) or "6.12" (linux-image-6.12-cloud-amd64 from
#                       bookworm-security, which also has the fc and wfq stream schedulers),
#                       or a full package name such as linux-image-6.1.0-57-cloud-amd64.
#
# Output directory contents:
#   vmlinux        the uncompressed kernel (ELF with a PVH note)
#   modules/*.ko   uncompressed modules
#   modules.order  module file names in load order (dependencies first)
#   busybox        a static busybox
#   release        the kernel release (uname -r)
#   package        "<package> <version>"
set -euo pipefail

log() { printf 'guest.sh: %ss: %s\n' "$SECONDS" "$*" >&2; }
die() { log "error: $*"; exit 1; }

export DEBIAN_FRONTEND=noninteractive
cache_root=${USCTP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/usctp}
mkdir -p "$cache_root"

apt_updated=0
apt_update() {
	if [ "$apt_updated" = 0 ]; then
		log "apt-get update"
		apt-get update -qq >&2 || log "apt-get update failed (continuing with the lists we have)"
		apt_updated=1
	fi
}

# need CMD PACKAGE...: installs, in one apt-get call (one run of dpkg's triggers), the
# packages of the pairs whose command is missing.
need() {
	local missing=()
	while [ $# -ge 2 ]; do
		command -v "$1" >/dev/null 2>&1 || [ -x "$1" ] || missing+=("$2")
		shift 2
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	apt_update
	log "installing ${missing[*]}"
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 || die "apt-get install ${missing[*]} failed"
}

need qemu-system-x86_64 qemu-system-x86 /bin/busybox busybox-static

# Resolve the concrete kernel package (the meta-package depends on exactly one image).
meta=linux-image-cloud-amd64
case "${USCTP_GUEST_KERNEL:-6.1}" in
"" | 6.1) meta=linux-image-cloud-amd64 ;;
6.12) meta=linux-image-6.12-cloud-amd64 ;;
linux-image-*) meta=$USCTP_GUEST_KERNEL ;;
*) die "USCTP_GUEST_KERNEL=$USCTP_GUEST_KERNEL: want 6.1, 6.12 or a linux-image-* package name" ;;
esac

resolve() {
	local pkg
	pkg=$(apt-cache depends "$meta" 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[^ ]*\)$/\1/p' | head -1)
	if [ -z "$pkg" ] && apt-cache show "$meta" >/dev/null 2>&1 &&
		apt-cache show "$meta" 2>/dev/null | grep -q '^Package: linux-image-[0-9]'; then
		pkg=$meta # already a concrete image package
	fi
	[ -n "$pkg" ] || return 1
	local ver
	ver=$(apt-cache policy "$pkg" 2>/dev/null | sed -n 's/^ *Candidate: //p' | head -1)
	[ -n "$ver" ] && [ "$ver" != "(none)" ] || return 1
	printf '%s %s\n' "$pkg" "$ver"
}

# apt-cache takes seconds on a loaded machine: its answer is kept until the package lists
# change (apt-get update) or the chosen kernel line changes.
stamp="$cache_root/resolved-$meta"
lists=/var/lib/apt/lists
if [ -s "$stamp" ] && [ -d "$lists" ] &&
	[ -z "$(find "$lists" -maxdepth 1 -name '*Packages*' -newer "$stamp" 2>/dev/null | head -1)" ]; then
	pv=$(cat "$stamp")
elif pv=$(resolve); then
	echo "$pv" >"$stamp"
else
	pv=
fi
if [ -z "$pv" ]; then
	apt_update
	if pv=$(resolve); then
		echo "$pv" >"$stamp"
	else
		# Offline with a cache: use the newest prepared guest for this kernel line.
		last=$(ls -dt "$cache_root"/guest-*/ 2>/dev/null | while read -r d; do
			[ -f "$d/.ok" ] && echo "${d%/}"; done | head -1 || true)
		[ -n "$last" ] || die "cannot resolve the kernel package of $meta"
		log "cannot resolve $meta; using cached $last"
		echo "$last"
		exit 0
	fi
fi
pkg=${pv% *}
ver=${pv#* }
dir="$cache_root/guest-${pkg}_${ver//[:~]/_}"

if [ -f "$dir/.ok" ] && [ -f "$dir/vmlinux" ] && [ -x "$dir/busybox" ]; then
	log "cached: $dir"
	echo "$dir"
	exit 0
fi

log "preparing $pkg $ver in $dir"
need lz4 lz4 zstd zstd xz xz-utils

work=$(mktemp -d "$cache_root/.work.XXXXXX")
trap 'rm -rf "$work"' EXIT
if ! (cd "$work" && apt-get download "$pkg=$ver" >&2); then
	# Stale package lists name a version the archive no longer has: update them and
	# start again once, which resolves the kernel anew.
	[ -z "${USCTP_GUEST_RETRY:-}" ] || die "apt-get download $pkg=$ver failed"
	rm -f "$stamp"
	apt_update
	rm -rf "$work"
	USCTP_GUEST_RETRY=1 exec bash "$0" "$@"
fi
dpkg -x "$work"/*.deb "$work/root"

out="$work/out"
mkdir -p "$out/modules"
release=$(ls "$work/root/lib/modules" | head -1)
[ -n "$release" ] || die "no lib/modules in $pkg"
mdir="$work/root/lib/modules/$release"
echo "$release" >"$out/release"
echo "$pkg $ver" >"$out/package"
cp /bin/busybox "$out/busybox"

# --- vmlinux from the bzImage -----------------------------------------------------------
# Boot protocol (Documentation/arch/x86/boot.rst): setup_sects at 0x1f1 (0 means 4); the
# protected-mode image starts at (setup_sects+1)*512; payload_offset (0x248) and
# payload_length (0x24c) locate the compressed vmlinux inside it.
bz=$(ls "$work"/root/boot/vmlinuz-* | head -1)
u8() { od -An -tu1 -j "$2" -N 1 "$1" | tr -d ' '; }
u32() { od -An -tu4 -j "$2" -N 4 --endian=little "$1" | tr -d ' '; }
[ "$(od -An -c -j 514 -N 4 "$bz" | tr -d ' ')" = "HdrS" ] || die "$bz: no bzImage header"
setup_sects=$(u8 "$bz" $((0x1f1)))
[ "$setup_sects" != 0 ] || setup_sects=4
pm=$(((setup_sects + 1) * 512))
poff=$(u32 "$bz" $((0x248)))
plen=$(u32 "$bz" $((0x24c)))
start=$((pm + poff))
magic=$(od -An -tx1 -j "$start" -N 4 "$bz" | tr -d ' ')
case "$magic" in
1f8b*) dec="gzip -dc" ;;
02214c18) dec="lz4 -dc" ;;     # LZ4 legacy frame
28b52ffd) dec="zstd -dcq" ;;
fd377a58) dec="xz -dc" ;;
425a68*) dec="bzip2 -dc" ;;
*) die "$bz: unknown payload compression (magic $magic)" ;;
esac
log "vmlinux: payload at $start, $plen bytes, ${dec%% *}"
# The payload ends with the 4-byte decompressed size that the decompressors may call
# trailing garbage; the ELF is complete before it, so their complaint is ignored.
tail -c +"$((start + 1))" "$bz" | head -c "$plen" | $dec >"$out/vmlinux" 2>/dev/null || true
[ "$(od -An -c -N 4 "$out/vmlinux" | tr -d ' ')" = '177ELF' ] || die "vmlinux extraction failed"

# --- modules ------------------------------------------------------------------------------
declare -A path=() loaded=()
while IFS= read -r f; do
	b=${f##*/}
	b=${b%%.ko*}
	path[${b//-/_}]=$f
done < <(find "$mdir/kernel" -name '*.ko*')
builtin() { grep -q "/${1//_/[-_]}\.ko\$" "$mdir/modules.builtin" 2>/dev/null; }

order=()
add() { # add MODULE: its dependencies first, then itself
	local m=$1
	[ -z "${loaded[$m]:-}" ] || return 0
	loaded[$m]=1
	if [ -z "${path[$m]:-}" ]; then
		builtin "$m" && return 0
		die "module $m not found in $pkg"
	fi
	local src=${path[$m]} ko="$out/modules/$m.ko"
	case "$src" in
	*.ko) cp "$src" "$ko" ;;
	*.ko.xz) xz -dc "$src" >"$ko" ;;
	*.ko.zst) zstd -dcq "$src" >"$ko" ;;
	*.ko.gz) gzip -dc "$src" >"$ko" ;;
	*) die "$src: unknown module compression" ;;
	esac
	local deps d
	deps=$(tr '\0' '\n' <"$ko" | sed -n 's/^depends=//p' | head -1)
	for d in ${deps//,/ }; do add "$d"; done
	order+=("$m.ko")
}
for m in virtio_pci virtio_net sctp; do
	if [ -n "${path[$m]:-}" ]; then add "$m"; elif ! builtin "$m"; then die "no module $m"; fi
done
printf '%s\n' "${order[@]}" >"$out/modules.order"
log "modules: ${order[*]}"

touch "$out/.ok"
rm -rf "$dir"
mv "$out" "$dir"
log "ready: $dir"
echo "$dir"
