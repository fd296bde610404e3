/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KERNEL_TIME_VSYSINFO_H
#define _KERNEL_TIME_VSYSINFO_H

/* The sysctl table's type: const, as this kernel registers tables */
#define vdso_sysinfo_ctl_table	const struct ctl_table

#endif /* _KERNEL_TIME_VSYSINFO_H */
