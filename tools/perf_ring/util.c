// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>
#include <sys/uio.h>

#include "util.h"

int parse_size(const char *s, u64 *out)
{
	char *end;
	unsigned long long v;
	u64 mult = 1;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	if (*end) {
		switch (toupper((unsigned char)*end)) {
		case 'B': mult = 1; break;
		case 'K': mult = 1ULL << 10; break;
		case 'M': mult = 1ULL << 20; break;
		case 'G': mult = 1ULL << 30; break;
		default: return -EINVAL;
		}
		end++;
		if (*end == 'B' || *end == 'b')
			end++;
		if (*end)
			return -EINVAL;
	}
	if (v > UINT64_MAX / mult)
		return -ERANGE;
	*out = v * mult;
	return 0;
}

int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int proc_entry_pid(const char *name)
{
	int v = 0;

	if (!*name)
		return -1;
	for (; *name; name++) {
		int d = *name - '0';

		if (d < 0 || d > 9 || v > (INT_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	return v;
}

int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}

/* pread(2) or pwrite(2) until len bytes are done; EOF is -EIO */
static int pio_full(int fd, char *p, size_t len, off_t off, bool wr)
{
	while (len) {
		ssize_t n = wr ? pwrite(fd, p, len, off) : pread(fd, p, len, off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

int pwrite_full(int fd, const void *buf, size_t len, off_t off)
{
	return pio_full(fd, (char *)buf, len, off, true);
}

int pwritev_full(int fd, const struct iovec *iov, int n, off_t off)
{
	ssize_t done;

	do
		done = pwritev(fd, iov, n, off);
	while (done < 0 && errno == EINTR);
	if (done < 0)
		return -errno;
	/* a short write: the rest by pwrite_full() */
	for (int i = 0; i < n; i++) {
		size_t skip = (size_t)done < iov[i].iov_len ? (size_t)done : iov[i].iov_len;
		int err = skip < iov[i].iov_len ?
			  pwrite_full(fd, (const char *)iov[i].iov_base + skip,
				      iov[i].iov_len - skip, off + skip) : 0;

		if (err)
			return err;
		done -= skip;
		off += iov[i].iov_len;
	}
	return 0;
}

int pread_full(int fd, void *buf, size_t len, off_t off)
{
	return pio_full(fd, buf, len, off, false);
}

ssize_t read_small_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, len - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		n = -errno;
	close(fd);
	buf[n < 0 ? 0 : n] = 0;
	return n;
}

int read_text_file(const char *path, char **out, size_t *lenp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, len = 0;
	char *buf;

	if (fd < 0)
		return -errno;
	buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *nb = realloc(buf, cap * 2 + 1);

			if (!nb) {
				free(buf);
				close(fd);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			int err = -errno;

			if (errno == EINTR)
				continue;
			free(buf);
			close(fd);
			return err;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = 0;
	*out = buf;
	if (lenp)
		*lenp = len;
	return 0;
}

int parse_cpu_list(const char *s, bool *mask, int max)
{
	const char *p = s;
	int any = 0;

	while (*p) {
		char *end;
		long a, b;

		while (*p == ' ' || *p == '\n')
			p++;
		if (!*p)
			break;
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		a = strtol(p, &end, 10);
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			b = strtol(p, &end, 10);
			p = end;
		}
		if (a > b || b >= max)
			return -EINVAL;
		for (long i = a; i <= b; i++)
			mask[i] = true;
		any = 1;
		while (*p == ' ' || *p == '\n')
			p++;
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	return any ? 0 : -EINVAL;
}

int online_cpus(bool *mask, int max)
{
	char *s;
	int err = read_text_file("/sys/devices/system/cpu/online", &s, NULL);

	if (err) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		if (n < 1)
			return err;
		for (long i = 0; i < n && i < max; i++)
			mask[i] = true;
		return 0;
	}
	err = parse_cpu_list(s, mask, max);
	free(s);
	return err;
}

u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void fmt_bytes(char *buf, size_t len, double b)
{
	if (b >= 1e9)
		snprintf(buf, len, "%.1f GB", b / 1e9);
	else if (b >= 1e6)
		snprintf(buf, len, "%.1f MB", b / 1e6);
	else if (b >= 1e3)
		snprintf(buf, len, "%.1f kB", b / 1e3);
	else
		snprintf(buf, len, "%.0f B", b);
}

void fmt_count(char *buf, size_t len, u64 n)
{
	if (n >= 1000000000ULL)
		snprintf(buf, len, "%.1fG", n / 1e9);
	else if (n >= 1000000ULL)
		snprintf(buf, len, "%.1fM", n / 1e6);
	else if (n >= 10000ULL)
		snprintf(buf, len, "%.1fk", n / 1e3);
	else
		snprintf(buf, len, "%llu", (unsigned long long)n);
}

/* glibc's sigset_t has room for 1024 signals; the kernel's 64 are compared */
static bool same_mask(const sigset_t *a, const sigset_t *b)
{
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(a, sig) != sigismember(b, sig))
			return false;
	return true;
}

/*
 * glibc's pthread_create() blocks every signal around clone() and sets the
 * caller's mask back without looking at the result.  When that
 * rt_sigprocmask() fails (EFAULT: only ever injected, the set is on its
 * stack), SIGCHLD, SIGINT and SIGUSR2 stay blocked in the recorder for
 * good: it waits for ever on a command that has ended, and no signal stops
 * it.  The mask is compared with the one from before, and set back.
 */
int thread_create(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t before, now;
	bool known = !pthread_sigmask(SIG_SETMASK, NULL, &before);
	int err = pthread_create(t, NULL, fn, arg);

	for (int i = 0; known && i < 8; i++) {
		if (!pthread_sigmask(SIG_SETMASK, NULL, &now) && same_mask(&now, &before))
			break;
		pthread_sigmask(SIG_SETMASK, &before, NULL);
	}
	return err;
}

static size_t page_round(size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (len + pg - 1) & ~(pg - 1);
}

void *pages_alloc(size_t len)
{
	void *p = mmap(NULL, page_round(len), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/*
	 * Small pages only: with transparent huge pages "always", a buffer
	 * touched for a few kB would take 2 MiB, more than the memory check
	 * counted for it (output.c's file_need())
	 */
	madvise(p, page_round(len), MADV_NOHUGEPAGE);
	return p;
}

/* The next touch of a dropped page finds it zero-filled, as a new one. */
void pages_drop(void *p, size_t len)
{
	if (p)
		madvise(p, page_round(len), MADV_DONTNEED);
}

void pages_free(void *p, size_t len)
{
	if (p)
		munmap(p, page_round(len));
}
