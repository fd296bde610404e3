/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __VDSO_SYSINFO_H
#define __VDSO_SYSINFO_H

#ifndef __ASSEMBLER__

#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <uapi/asm-generic/errno-base.h>
#include <uapi/linux/sysinfo.h>
#include <uapi/linux/types.h>

#include <asm/barrier.h>
#include <vdso/time64.h>

/**
 * struct vdso_sysinfo64 - What sysinfo(2) of a 64-bit kernel returns
 *
 * The fields, names and offsets of the 64-bit struct sysinfo, spelled
 * with fixed-width types (and explicit padding) so that the 64-bit and
 * the 32-bit kernel code see the same layout. A reader whose struct
 * sysinfo has 64-bit longs (x86-64 and x32) copies it as it is.
 */
struct vdso_sysinfo64 {
	s64	uptime;
	u64	loads[3];
	u64	totalram;
	u64	freeram;
	u64	sharedram;
	u64	bufferram;
	u64	totalswap;
	u64	freeswap;
	u16	procs;
	u16	pad;
	u32	__pad1;
	u64	totalhigh;
	u64	freehigh;
	u32	mem_unit;
	u32	__pad2;
};

/**
 * struct vdso_sysinfo32 - What sysinfo(2) returns to a 32-bit task
 *
 * The layout of struct compat_sysinfo (kernel/sys.c), filled the way
 * compat_sys_sysinfo() fills it: sizes scaled to a larger mem_unit when
 * a total does not fit in 32 bits, then truncated, padding zero.
 */
struct vdso_sysinfo32 {
	s32	uptime;
	u32	loads[3];
	u32	totalram;
	u32	freeram;
	u32	sharedram;
	u32	bufferram;
	u32	totalswap;
	u32	freeswap;
	u16	procs;
	u16	pad;
	u32	totalhigh;
	u32	freehigh;
	u32	mem_unit;
	u32	__pad[2];
};

/**
 * struct vdso_sysinfo_data - sysinfo(2) snapshot shared with the vDSO
 * @seq:	Sequence count. Odd while the snapshot is valid and stable;
 *		even while the kernel rewrites it, before the first
 *		publication, while the publisher is stopped and while
 *		kernel.vdso_sysinfo is 0. A reader that sees an even count
 *		makes the system call instead of waiting, and so does a
 *		reader of a page of zeroes.
 * @uptime:	CLOCK_BOOTTIME's coarse base rounded up, as do_sysinfo()
 *		rounds: the uptime. Rewritten by update_vsyscall() on every
 *		timekeeping update while the snapshot is published, whatever
 *		the clocksource, and before each publication; 0 once the
 *		snapshot is more than VDSO_SYSINFO_MAX_AGE_MS old, which
 *		makes readers take the system call. Read after @seq: a
 *		publication writes it first.
 * @boot_sec:	CLOCK_BOOTTIME minus CLOCK_MONOTONIC (the time spent in
 *		suspend), whole seconds, for readers in a time namespace,
 *		which round after adding the namespace's offset. Written
 *		by update_vsyscall() on every change, under the clock
 *		data's sequence count, whether or not the snapshot is
 *		published; read under that count, with CLOCK_MONOTONIC's
 *		coarse base.
 * @boot_nsec:	Nanoseconds of that offset, below NSEC_PER_SEC.
 * @info:	The snapshot as do_sysinfo() returns it to a 64-bit task,
 *		except @info.uptime, which is always zero: readers take
 *		@uptime.
 * @info32:	The same snapshot as compat_sys_sysinfo() returns it, with
 *		@info32.uptime zero as well.
 *
 * The kernel rewrites the snapshot about every VDSO_SYSINFO_PERIOD_MS
 * milliseconds while somebody reads it (see kernel/time/vsysinfo.c),
 * between vdso_sysinfo_write_begin() and vdso_sysinfo_write_end().
 * Readers copy it between vdso_sysinfo_read_begin() and
 * vdso_sysinfo_read_retry() and try again when the count changed, so
 * they never see a mix of two publications.
 */
struct vdso_sysinfo_data {
	u32			seq;
	u32			uptime;
	s64			boot_sec;
	u32			boot_nsec;
	u32			__pad;
	struct vdso_sysinfo64	info;
	struct vdso_sysinfo32	info32;
};

/* How often the kernel publishes the counters, rounded to whole ticks */
#define VDSO_SYSINFO_PERIOD_MS	10

/*
 * How old a snapshot readers still use: five periods. The kernel
 * publishes every period while the snapshot is read, so only a publisher
 * that stopped running (or a tick that came very late) leaves one this
 * old; update_vsyscall() then sets @uptime to 0.
 */
#define VDSO_SYSINFO_MAX_AGE_MS	(5 * VDSO_SYSINFO_PERIOD_MS)

/* The kernel's address of the snapshot, which it writes */
extern struct vdso_sysinfo_data *vdso_k_sysinfo_data;

/**
 * vdso_sysinfo_add - Add a normalised time offset to a time
 * @sec:	Seconds of the time, updated
 * @nsec:	Nanoseconds of the time, below NSEC_PER_SEC, updated
 * @off_sec:	Seconds of the offset
 * @off_nsec:	Nanoseconds of the offset, below NSEC_PER_SEC
 *
 * Both nanosecond parts are normalised, so their sum carries at most one
 * second: no loop, and no division for a 32-bit compiler to turn into a
 * libgcc call.
 */
static __always_inline void vdso_sysinfo_add(s64 *sec, u32 *nsec, s64 off_sec, u32 off_nsec)
{
	*sec += off_sec;
	*nsec += off_nsec;
	if (*nsec >= NSEC_PER_SEC) {
		*nsec -= NSEC_PER_SEC;
		(*sec)++;
	}
}

/* The uptime sysinfo(2) reports for a boot time: rounded up, as do_sysinfo() */
static __always_inline s64 vdso_sysinfo_uptime(s64 sec, u32 nsec)
{
	return sec + (nsec ? 1 : 0);
}

static __always_inline void vdso_sysinfo_write_begin(struct vdso_sysinfo_data *sd)
{
	/* Even: readers take the system call until write_end() */
	WRITE_ONCE(sd->seq, (sd->seq + 1) & ~1U);
	/* Make @seq even before the snapshot changes; pairs with read_begin */
	smp_wmb();
}

static __always_inline void vdso_sysinfo_write_end(struct vdso_sysinfo_data *sd)
{
	/* Complete the snapshot before @seq is odd; pairs with read_retry */
	smp_wmb();
	WRITE_ONCE(sd->seq, sd->seq + 1);
}

/*
 * Return the sequence count to pass to vdso_sysinfo_read_retry(), or 0
 * when there is no valid snapshot to read (the caller makes the system
 * call). A valid count is odd, so never 0.
 */
static __always_inline u32 vdso_sysinfo_read_begin(const struct vdso_sysinfo_data *sd)
{
	u32 seq = READ_ONCE(sd->seq);

	/* Read @seq before the snapshot; pairs with write_begin */
	smp_rmb();
	return seq & 1 ? seq : 0;
}

static __always_inline bool vdso_sysinfo_read_retry(const struct vdso_sysinfo_data *sd,
						    u32 start)
{
	/* Read the snapshot before @seq; pairs with write_end */
	smp_rmb();
	return READ_ONCE(sd->seq) != start;
}

/*
 * The 64-bit layout is copied as seven 16-byte words held in locals,
 * which compilers keep in registers (pairs of general registers, or
 * vector registers where the vDSO may use them); a 112-byte local struct
 * goes through the stack with clang. Aligned as the snapshot and the
 * caller's struct sysinfo are: to 8 bytes.
 */
#ifdef __SIZEOF_INT128__
struct vdso_sysinfo_word {
	unsigned __int128 w;
} __packed __aligned(8);
#endif

/* vdso_sysinfo_store() found no valid snapshot: make the system call */
#define VDSO_SYSINFO_FALLBACK	1

/**
 * vdso_sysinfo_store - Copy the snapshot into a reader's struct sysinfo
 * @sd:		The snapshot
 * @info:	Where to store it
 * @ns_uptime:	The uptime inside a time namespace, or -1 outside one
 *
 * Copies the snapshot in @info's layout (64-bit longs on 64-bit and x32
 * readers, 32-bit ones in a 32-bit vDSO) from one publication into
 * locals, which the compiler keeps in registers, and only once the
 * sequence count says they are consistent stores them into @info, with
 * the uptime. The uptime is the snapshot's own (@ns_uptime < 0) or
 * @ns_uptime; either way a snapshot whose own is 0, too old, is not used.
 * The caller's buffer is written outside the read section: a fault on it
 * cannot make the section start again.
 *
 * Return: 0; -EFAULT, sysinfo(2)'s answer, for a NULL @info; or
 * VDSO_SYSINFO_FALLBACK when there is no valid and fresh snapshot, so
 * that a task the snapshot is hidden from gets what the system call
 * returns (a seccomp filter's answer included) for NULL too.
 */
static __always_inline int vdso_sysinfo_store(const struct vdso_sysinfo_data *sd,
					      struct sysinfo *info, s64 ns_uptime)
{
	s64 uptime;
	u32 seq;

	while ((seq = vdso_sysinfo_read_begin(sd))) {
		/* After @seq: a publication writes the uptime first */
		uptime = READ_ONCE(sd->uptime);
		if (unlikely(!uptime))
			break;
		if (ns_uptime >= 0)
			uptime = ns_uptime;
		/* A test of the argument, off the loads' dependency chain */
		if (unlikely(!info))
			return -EFAULT;
		if (sizeof(info->totalram) == sizeof(u64)) {
#ifdef __SIZEOF_INT128__
			const struct vdso_sysinfo_word *src = (const void *)&sd->info;
			struct vdso_sysinfo_word *dst = (void *)info;
			unsigned __int128 w0 = src[0].w, w1 = src[1].w, w2 = src[2].w,
					  w3 = src[3].w, w4 = src[4].w, w5 = src[5].w,
					  w6 = src[6].w;

			BUILD_BUG_ON(sizeof(*info) != 7 * sizeof(*src));
			if (likely(!vdso_sysinfo_read_retry(sd, seq))) {
				dst[0].w = w0;
				dst[1].w = w1;
				dst[2].w = w2;
				dst[3].w = w3;
				dst[4].w = w4;
				dst[5].w = w5;
				dst[6].w = w6;
				/* The snapshot's own uptime field is zero */
				info->uptime = uptime;
				return 0;
			}
#else
			/* Not reached: a 32-bit reader's longs are 32 bits wide */
			return VDSO_SYSINFO_FALLBACK;
#endif
		} else {
			struct vdso_sysinfo32 s = sd->info32;

			BUILD_BUG_ON(sizeof(*info) != sizeof(s));
			if (likely(!vdso_sysinfo_read_retry(sd, seq))) {
				s.uptime = uptime;
				*(struct vdso_sysinfo32 *)info = s;
				return 0;
			}
		}
	}
	return VDSO_SYSINFO_FALLBACK;
}

#endif /* !__ASSEMBLER__ */

#endif /* __VDSO_SYSINFO_H */
