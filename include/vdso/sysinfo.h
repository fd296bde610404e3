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
 *		reader of a page of zeroes. Written by the publisher only.
 * @__pad:	Zero.
 * @now:	CLOCK_BOOTTIME's coarse base, seconds in the upper 32 bits
 *		and nanoseconds in the lower (vdso_sysinfo_time()), written
 *		by update_vsyscall() on every timekeeping update while the
 *		publisher runs, and by nothing else: the age of the snapshot
 *		and the uptime are measured against it. Not under @seq: a
 *		single 64-bit store, of a value that only grows.
 * @published:	The same clock when the snapshot was published. Under @seq,
 *		written by the publisher only.
 * @info:	The snapshot as do_sysinfo() returns it to a 64-bit task,
 *		except @info.uptime, which is always zero: readers compute
 *		it from @now and @published.
 * @info32:	The same snapshot as compat_sys_sysinfo() returns it, with
 *		@info32.uptime zero as well.
 *
 * The kernel rewrites the snapshot about every VDSO_SYSINFO_PERIOD_MS
 * milliseconds while somebody reads it (see kernel/time/vsysinfo.c),
 * between vdso_sysinfo_write_begin() and vdso_sysinfo_write_end().
 * Readers copy it between vdso_sysinfo_read_begin() and
 * vdso_sysinfo_read_retry() and try again when the count changed, so
 * they never see a mix of two publications. Every field has one writer.
 */
struct vdso_sysinfo_data {
	u32			seq;
	u32			__pad;
	u64			now;
	u64			published;
	struct vdso_sysinfo64	info;
	struct vdso_sysinfo32	info32;
};

/* How often the kernel publishes the counters, rounded to whole ticks */
#define VDSO_SYSINFO_PERIOD_MS	10

/*
 * How old a snapshot readers still use: five periods of CLOCK_BOOTTIME's
 * coarse base (which lags the real time by at most a tick). The kernel
 * publishes every period while the snapshot is read, so only a publisher
 * that stopped running (or a tick that came very late) leaves one this
 * old; its readers then make the system call, which publishes again.
 */
#define VDSO_SYSINFO_MAX_AGE_MS	(5 * VDSO_SYSINFO_PERIOD_MS)

/* The same in nanoseconds, which readers compare */
#define VDSO_SYSINFO_MAX_AGE_NS	(VDSO_SYSINFO_MAX_AGE_MS * NSEC_PER_MSEC)

/* The kernel's address of the snapshot, which it writes */
extern struct vdso_sysinfo_data *vdso_k_sysinfo_data;

/**
 * vdso_sysinfo_time - A time as @now and @published hold it
 * @sec:	Seconds
 * @nsec:	Nanoseconds, below NSEC_PER_SEC
 *
 * Seconds in the upper 32 bits, nanoseconds in the lower: ordered as the
 * times are, without a multiplication for the writer nor a division for
 * a 32-bit reader (which would need libgcc).
 */
static __always_inline u64 vdso_sysinfo_time(s64 sec, u32 nsec)
{
	return (u64)sec << 32 | nsec;
}

/*
 * Whether a snapshot published at @published is young at @t, the later
 * of @now and @published: at most VDSO_SYSINFO_MAX_AGE_NS older. Below a
 * second, the age is @t - @published when both fall in the same second,
 * and that minus 2^32 - NSEC_PER_SEC when a second began between them
 * (the nanoseconds borrow); any other difference is a second or more.
 */
static __always_inline bool vdso_sysinfo_young(u64 t, u64 published)
{
	u64 d = t - published;

	return d <= VDSO_SYSINFO_MAX_AGE_NS ||
	       d - ((1ULL << 32) - NSEC_PER_SEC) <= VDSO_SYSINFO_MAX_AGE_NS;
}

/* The uptime sysinfo(2) reports for a time @t: rounded up to whole seconds */
static __always_inline s64 vdso_sysinfo_uptime(u64 t)
{
	return (s64)(t >> 32) + ((u32)t ? 1 : 0);
}

/*
 * The same in a time namespace whose boottime offset is @off_sec and
 * @off_nsec: the offset added before rounding, as do_sysinfo() adds it
 * with timens_add_boottime().
 */
static __always_inline s64 vdso_sysinfo_uptime_ns(u64 t, s64 off_sec, u32 off_nsec)
{
	s64 sec = (s64)(t >> 32) + off_sec;
	u32 nsec = (u32)t + off_nsec;

	/* Both below NSEC_PER_SEC: at most one second to carry */
	if (nsec >= NSEC_PER_SEC) {
		nsec -= NSEC_PER_SEC;
		sec++;
	}
	return sec + (nsec ? 1 : 0);
}

/*
 * Read @now, which the kernel stores with one 64-bit store. A 32-bit
 * reader (x86's, little-endian: the upper half is the second word) loads
 * it in two halves and takes them again until the upper half did not
 * change, which, as the value only grows, gives a value the kernel
 * stored.
 */
static __always_inline u64 vdso_sysinfo_read_now(const struct vdso_sysinfo_data *sd)
{
	const u32 *w = (const u32 *)&sd->now;
	u32 hi, lo;

	if (sizeof(long) == sizeof(u64))
		return READ_ONCE(sd->now);
	do {
		hi = READ_ONCE(w[1]);
		/* The upper half before the lower one, as it grows */
		smp_rmb();
		lo = READ_ONCE(w[0]);
		/* The lower half before the upper one again */
		smp_rmb();
	} while (unlikely(READ_ONCE(w[1]) != hi));
	return (u64)hi << 32 | lo;
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
 * @off_sec:	Inside a time namespace, the seconds of its boottime
 *		offset; 0 outside one
 * @off_nsec:	The nanoseconds of that offset, below NSEC_PER_SEC
 *
 * Copies the snapshot in @info's layout (64-bit longs on 64-bit and x32
 * readers, 32-bit ones in a 32-bit vDSO) from one publication into
 * locals, which the compiler keeps in registers, and only once the
 * sequence count says they are consistent stores them into @info, with
 * the uptime: the later of @now and @published (@now is older after the
 * publisher restarted, until the next timekeeping update), plus the
 * offset, rounded up. A snapshot older than VDSO_SYSINFO_MAX_AGE_NS by
 * @now is not used. The caller's buffer is written outside the read
 * section: a fault on it cannot make the section start again.
 *
 * Return: 0; -EFAULT, sysinfo(2)'s answer, for a NULL @info; or
 * VDSO_SYSINFO_FALLBACK when there is no valid and fresh snapshot, so
 * that a task the snapshot is hidden from gets what the system call
 * returns (a seccomp filter's answer included) for NULL too.
 */
static __always_inline int vdso_sysinfo_store(const struct vdso_sysinfo_data *sd,
					      struct sysinfo *info, s64 off_sec, u32 off_nsec)
{
	u64 now, published, t;
	s64 uptime;
	u32 seq;

	while ((seq = vdso_sysinfo_read_begin(sd))) {
		now = vdso_sysinfo_read_now(sd);
		published = READ_ONCE(sd->published);
		t = now > published ? now : published;
		if (unlikely(!vdso_sysinfo_young(t, published)))
			break;
		/* Outside a time namespace the offset is a constant 0 */
		if (off_sec || off_nsec)
			uptime = vdso_sysinfo_uptime_ns(t, off_sec, off_nsec);
		else
			uptime = vdso_sysinfo_uptime(t);
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
