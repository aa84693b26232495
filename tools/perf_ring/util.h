/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by the perf-ring sources. */
#ifndef PERF_RING_UTIL_H
#define PERF_RING_UTIL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <sys/types.h>

typedef uint64_t u64;
typedef uint32_t u32;
typedef uint16_t u16;
typedef uint8_t u8;

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a) (((x) + ((a) - 1)) & ~((u64)(a) - 1))

/* Parse "123", "4K", "16M", "1G" (B/K/M/G, case-insensitive). */
int parse_size(const char *s, u64 *out);
/* Parse a decimal integer in [min, max]. */
int parse_long(const char *s, long min, long max, long *out);
/*
 * The pid or tid a /proc directory entry is named by, or -1 for a name
 * that is not one (all digits, at most INT_MAX): called for every thread
 * of the system, where strtol() costs several times the loop.
 */
int proc_entry_pid(const char *name);

/* Write/read all bytes or fail with -errno (-EIO on EOF for reads). */
int write_full(int fd, const void *buf, size_t len);
int pwrite_full(int fd, const void *buf, size_t len, off_t off);
/*
 * The n parts one after another from off, in one pwritev() unless it
 * comes back short (the rest then by pwrite_full()): 0 or -errno.
 */
struct iovec;
int pwritev_full(int fd, const struct iovec *iov, int n, off_t off);
int pread_full(int fd, void *buf, size_t len, off_t off);

/* Read a small text file into a malloc'd NUL-terminated buffer. */
int read_text_file(const char *path, char **out, size_t *len);
/*
 * The start of a small file (a /proc or /sys entry) in buf, at most
 * len - 1 bytes and NUL-terminated: its length, or -errno.
 */
ssize_t read_small_file(const char *path, char *buf, size_t len);

/* Parse a CPU list such as "0-3,6"; sets bits in mask (max 1024 CPUs). */
#define MAX_CPUS 1024

/* -D START-END: a time range, in ms from the start */
struct time_range {
	u64 start, end;
};
int parse_cpu_list(const char *s, bool *mask, int max);
int online_cpus(bool *mask, int max);

/*
 * pthread_create() (default attributes, the same return values) that
 * leaves the caller's signal mask as it found it.
 */
int thread_create(pthread_t *t, void *(*fn)(void *), void *arg);

/*
 * Buffers of anonymous pages of their own, not the heap's: pages_drop()
 * gives their pages back to the system and keeps the mapping, so that a
 * buffer kept from one use to the next costs memory only while in use.
 * pages_alloc() returns NULL on failure; len need not be page-aligned.
 */
void *pages_alloc(size_t len);
void pages_drop(void *p, size_t len);
void pages_free(void *p, size_t len);

u64 now_ns(void);          /* CLOCK_MONOTONIC */
/* "617.9 MB" style size, "6.0M" style count. */
void fmt_bytes(char *buf, size_t len, double bytes);
void fmt_count(char *buf, size_t len, u64 n);

#endif
