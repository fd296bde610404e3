// SPDX-License-Identifier: GPL-2.0-only
/*
 * sysinfo() in the x32 vDSO: the 64-bit code, built again so that its
 * fallback makes the x32 system call, then converted like the other
 * 64-bit objects of the x32 vDSO.
 */
#define BUILD_VDSOX32

#include "common/vsysinfo.c"
